/**
 * Logging a call or a note by hand (the invoice panel, the customer page, the queue): a
 * communication of the customer, and of the invoice when one is named (its last touch).
 */
import { withdrawProposals } from '../supersede/withdraw';
import type { CallOutcome } from '../db/schema';
import { type Engine, runCommand, type Scope } from '../engine';
import { ValidationError } from '../errors';
import { refreshHolds } from '../holds/store';
import { newId } from '../ids';
import { toMinor } from '../money';
import { blankToNull } from '../text';
import { type LoggedKind, loggedFieldErrors } from './rules';
import { insertCommunication } from './store';
import { type CommunicationDto, getCommunication } from './timeline';

export interface LogCommunicationInput {
  customer_id: string;
  invoice_id?: string | null;
  kind: LoggedKind;
  /** Calls only: outbound (we called, the default) or inbound (the customer called). */
  direction?: 'outbound' | 'inbound';
  outcome?: CallOutcome | null;
  subject?: string | null;
  body?: string | null;
  promise_date?: string | null;
  /** Major units. */
  promise_amount?: number | null;
  occurred_at?: string | null;
}

export async function logCommunication(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope, input: LogCommunicationInput): Promise<CommunicationDto> {
  const id = await runCommand(engine, 'log_communication', scope, async (tx) => {
    const fields = {
      kind: input.kind,
      outcome: input.outcome ?? null,
      body: blankToNull(input.body),
      promise_date: input.promise_date ?? null,
      promise_amount: input.promise_amount === undefined || input.promise_amount === null ? null : toMinor(input.promise_amount),
      occurred_at: input.occurred_at ? new Date(Date.parse(input.occurred_at)).toISOString() : tx.now,
    };
    const errors = loggedFieldErrors(fields, tx.now);
    if (input.kind === 'note' && input.direction !== undefined) (errors.direction ??= []).push('Only a call has a direction');
    const customer = await tx.db.selectFrom('customers').select('id').where('company_id', '=', scope.companyId).where('id', '=', input.customer_id).executeTakeFirst();
    if (!customer) (errors.customer_id ??= []).push('No customer with this id in the company');
    if (input.invoice_id) {
      const invoice = await tx.db.selectFrom('invoices').select('customer_id').where('company_id', '=', scope.companyId).where('id', '=', input.invoice_id).executeTakeFirst();
      if (!invoice) (errors.invoice_id ??= []).push('No invoice with this id in the company');
      else if (customer && invoice.customer_id !== customer.id) (errors.invoice_id ??= []).push("Is not one of this customer's invoices");
    }
    if (Object.keys(errors).length) throw new ValidationError(`The ${input.kind} is invalid`, errors);
    const id = await insertCommunication(tx, {
      id: newId(),
      company_id: scope.companyId,
      customer_id: input.customer_id,
      invoice_id: input.invoice_id ?? null,
      kind: input.kind,
      direction: input.kind === 'call' ? (input.direction ?? 'outbound') : 'internal',
      subject: blankToNull(input.subject),
      body: fields.body,
      outcome: fields.outcome,
      promise_date: fields.promise_date,
      promise_amount: fields.promise_amount,
      occurred_at: fields.occurred_at,
      author_user_id: tx.actor.userId,
      author_name: tx.actor.name,
      email_connection_id: null,
      message_id: null,
      created_at: tx.now,
    });
    // A promise or a dispute makes the proposals that chase the invoice wrong: withdrawn with the call.
    const about = { customerId: input.customer_id, invoiceId: input.invoice_id ?? null };
    if (fields.outcome === 'promised_to_pay' && fields.promise_date) await withdrawProposals(tx, scope.companyId, { kind: 'promise', ...about, date: fields.promise_date });
    if (fields.outcome === 'disputed') await withdrawProposals(tx, scope.companyId, { kind: 'dispute', ...about, on: fields.occurred_at.slice(0, 10) });
    // A call that got through answers the customer's reply, and a promise logged with it holds the chase: the pauses follow now.
    if (input.kind === 'call') await refreshHolds(tx, scope.companyId, [input.customer_id]);
    return id;
  });
  return getCommunication(engine.db, scope.companyId, id);
}
