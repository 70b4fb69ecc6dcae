import { createRoute, z } from '@hono/zod-openapi';
import { today } from '../../clock';
import { fromMinor } from '../../money';
import { customerCreditSummary } from '../../payments/credits';
import { scopeOf } from '../context';
import { createRouter, DateString, idParams, json, problems, SECURITY, Uuid } from '../openapi';

const CustomerCredits = z
  .object({
    credits: z
      .array(
        z.object({
          kind: z.enum(['overpayment', 'credit_note', 'unapplied_cash']).openapi({ description: 'overpayment: an invoice paid more than its total; credit_note: an open invoice with a negative total; unapplied_cash: part of a bank credit kept on the customer' }),
          date: DateString.openapi({ description: 'When it arose: the last payment, the credit note, the bank booking' }),
          currency: z.string(),
          amount: z.number().openapi({ description: 'In the customer’s favour, positive' }),
          invoice: Uuid.nullable(),
          invoice_number: z.string().nullable(),
          bank_transaction: Uuid.nullable().openapi({ description: 'The bank entry the unapplied cash came with' }),
          payer: z.string().nullable(),
          reference: z.string().nullable(),
        }),
      )
      .openapi({ description: 'Oldest first; at most 200 of each kind (the balances count them all)' }),
    balances: z
      .array(z.object({ currency: z.string(), open: z.number(), credits: z.number(), net: z.number().openapi({ description: 'open less credits; below zero the customer is in credit' }) }))
      .openapi({ description: 'Per currency' }),
  })
  .openapi('CustomerCredits');

const customerCreditsRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/customers/{customer_id}/credits',
  tags: ['Extensions'],
  summary: "A customer's credits and unapplied cash, where each came from, and the balance net of them",
  description: 'The same credits the statement of account and the customer portal show.',
  security: SECURITY,
  request: { params: idParams('customer_id') },
  responses: { 200: json(CustomerCredits, 'The credits and the net balance'), ...problems(401, 403, 404) },
});

export function creditRoutes() {
  return createRouter().openapi(customerCreditsRoute, async (c) => {
    const s = await customerCreditSummary(c.var.engine.db, scopeOf(c).companyId, c.req.valid('param').customer_id, today(c.var.engine.clock));
    return c.json(
      {
        credits: s.items.map((i) => ({
          kind: i.kind,
          date: i.date,
          currency: i.currency,
          amount: fromMinor(i.amount),
          invoice: i.invoice_id,
          invoice_number: i.invoice_number,
          bank_transaction: i.bank_transaction_id,
          payer: i.payer,
          reference: i.reference,
        })),
        balances: s.balances.map((b) => ({ currency: b.currency, open: fromMinor(b.open), credits: fromMinor(b.credits), net: fromMinor(b.net) })),
      },
      200,
    );
  });
}
