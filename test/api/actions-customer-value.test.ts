/**
 * Issue 21: an action on a customer as a whole ("All open", no invoice) jumped to the top of the
 * value-at-risk order, its whole balance weighed by its oldest invoice's lateness with no model.
 * Its value at risk is now the sum of what it covers, each invoice weighed as an invoice action is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../core/http/app';
import { newId } from '../../core/ids';
import { addCustomer, addTeamMember, assessProposals } from '../support/actions-fixtures';
import { addCompany, addUser, type App, call, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { addMember, fixture, insertActionRow, insertInvoiceRow } from '../support/rows';

describe('the value at risk of a customer action', () => {
  let engine: TestEngine;
  let app: App;
  let token: string;
  let company: string;

  const invoice = (customer: string, number: string, total: number, due: string) =>
    fixture(engine, company, (tx) => insertInvoiceRow(tx, company, customer, { invoice_number: number, invoice_date: '2026-01-01', due_date: due, total_amount: total }));
  const action = (customer: string, invoiceId: string | null, label: string, metadata: Record<string, unknown> = {}) =>
    fixture(engine, company, (tx) =>
      insertActionRow(tx, company, { customer_id: customer, invoice_id: invoiceId, is_action_required: 1, top_recommendation: 'recommended', recommendation_label: label, metadata }),
    );

  beforeAll(async () => {
    engine = await testEngine('2026-11-23T12:00:00.000Z');
    app = createApp(engine);
    const userId = await addUser(engine, 'ana', []);
    token = await loginAs(app, 'ana');
    company = await addCompany(engine, 'Acme Holdings');
    await addMember(engine, company, userId, 'collector');
    await addTeamMember(engine, company, 'Ana', userId);

    // Grove: $1,000 60 days late that the model expects paid within a month (80%), and $200 not yet due.
    const grove = await addCustomer(engine, company, 'Grove');
    const late = await invoice(grove, 'G-1', 100_000, '2026-09-24');
    const current = await invoice(grove, 'G-2', 20_000, '2026-12-10');
    engine.database.sqlite
      .prepare(
        `INSERT INTO insights (id, company_id, target_type, target_id, customer_id, invoice_id, insight_type, payload_json, valid_from, valid_to, created_at, evidence)
         VALUES (?, ?, 'invoice', ?, ?, ?, 'invoice_pay_date_prediction', ?, '2026-11-01T00:00:00.000Z', NULL, '2026-11-01T00:00:00.000Z', '[]')`,
      )
      .run(newId(), company, late, grove, late, JSON.stringify({ predicted_date: '2026-12-01', alternative_scenarios: [{ date: '2026-12-01', probability: 0.8 }, { date: '2027-01-15', probability: 0.2 }] }));
    await action(grove, null, 'Review the account');
    await action(grove, null, 'Send a statement', { invoice_ids: [current] });

    // Ivy: $1,500 30 days late, no prediction. Harbor: $14,183 229 days late. Corner: $356 12 days late.
    const ivy = await addCustomer(engine, company, 'Ivy');
    await action(ivy, await invoice(ivy, 'I-1', 150_000, '2026-10-24'), 'Remind Ivy');
    const harbor = await addCustomer(engine, company, 'Harbor');
    await action(harbor, await invoice(harbor, 'H-1', 1_418_300, '2026-04-08'), 'Call Harbor');
    const corner = await addCustomer(engine, company, 'Corner');
    await action(corner, await invoice(corner, 'C-1', 35_600, '2026-11-11'), 'Remind Corner');
    await assessProposals(engine, company, '2026-11-23');
  });
  afterAll(() => engine.dispose());

  it('is the sum of the invoices it covers, each weighed by its lateness and the model: it no longer jumps to the top', async () => {
    const res = await call(app, 'GET', `/api/companies/${company}/actions?category=needs_action&sort=value_at_risk`, { token });
    expect(res.status).toBe(200);
    const rows = res.body.data.map((a: { recommendation_label: string; invoice_number: string | null; balance: number; days_past_due: number; value_at_risk: number }) => [
      a.recommendation_label,
      a.invoice_number,
      a.balance,
      a.days_past_due,
      a.value_at_risk,
    ]);
    expect(rows).toEqual([
      // 14,183 x (1 + 229/30)
      ['Call Harbor', 'H-1', 14_183, 229, 122_446.57],
      // 1,500 x (1 + 30/30)
      ['Remind Ivy', 'I-1', 1_500, 30, 3_000],
      // The customer's balance and oldest lateness are shown; the value is 1,000 x 3 x 0.2 + 200 x 1 x 1.
      ['Review the account', null, 1_200, 60, 800],
      // 356 x (1 + 12/30)
      ['Remind Corner', 'C-1', 356, 12, 498.4],
      // Only what the statement lists, its value and the figures shown: the $200 not yet due.
      ['Send a statement', null, 200, 0, 200],
    ]);
  });
});
