import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { invoiceActivity, mergeNewestFirst, type ActivityEntry } from '../../core/activity/activity';
import { createApp } from '../../core/http/app';
import { addCompany, addUser, type App, call, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { fixture, insertActionRow, insertCommunicationRow, insertCustomerRow, insertInvoiceRow } from '../support/rows';

/** A customer with one invoice, written straight to the tables (the activity query only reads). */
async function invoiceOf(engine: TestEngine, companyId: string, name: string): Promise<{ customer: string; invoice: string }> {
  return fixture(engine, companyId, async (tx) => {
    const customer = await insertCustomerRow(tx, companyId, { name });
    const invoice = await insertInvoiceRow(tx, companyId, customer, { invoice_number: `INV-${name}`, invoice_date: '2026-09-01', due_date: '2026-10-01', total_amount: 100_00 });
    return { customer, invoice };
  });
}

describe('invoice activity (extension)', () => {
  let engine: TestEngine;
  let app: App;
  let company: string;
  let other: string;
  let token: string;

  beforeEach(async () => {
    engine = await testEngine();
    app = createApp(engine);
    company = await addCompany(engine, 'Acme Supply');
    other = await addCompany(engine, 'Borealis Foods');
    await addUser(engine, 'demo', [
      [company, 'viewer'],
      [other, 'owner'],
    ]);
    token = await loginAs(app, 'demo');
  });
  afterEach(() => engine.dispose());

  it("lists an invoice's communications and actions newest first, without deleted actions", async () => {
    const { customer, invoice } = await invoiceOf(engine, company, 'Globex');
    const elsewhere = await invoiceOf(engine, company, 'Initech');
    await fixture(engine, company, async (tx) => {
      const comm = (invoiceId: string, at: string, kind: 'email' | 'call' | 'note', subject: string | null) =>
        insertCommunicationRow(tx, company, { customer_id: customer, invoice_id: invoiceId, kind, subject, body: 'Hello', occurred_at: at, author_name: 'Dana', created_at: at });
      await comm(invoice, '2026-11-01T09:00:00.000Z', 'email', 'Invoice INV-Globex is overdue');
      await comm(invoice, '2026-11-10T09:00:00.000Z', 'call', null);
      await comm(elsewhere.invoice, '2026-11-11T09:00:00.000Z', 'note', 'Not this invoice');
      const action = (createdAt: string, executedAt: string | null, deletedAt: string | null, description: string) =>
        insertActionRow(tx, company, {
          invoice_id: invoice,
          customer_id: customer,
          status: executedAt ? 'completed' : 'proposed',
          description,
          recommendation_label: 'Friendly reminder',
          is_action_required: 1,
          executed_at: executedAt,
          executed_by: executedAt ? 'Dana' : null,
          deleted_at: deletedAt,
          created_at: createdAt,
          updated_at: createdAt,
        });
      await action('2026-10-20T09:00:00.000Z', '2026-11-05T09:00:00.000Z', null, 'Sent the reminder');
      await action('2026-11-20T09:00:00.000Z', null, null, 'Call the customer');
      await action('2026-11-21T09:00:00.000Z', null, '2026-11-22T09:00:00.000Z', 'Deleted suggestion');
    });

    const res = await call(app, 'GET', `/api/companies/${company}/invoices/${invoice}/activity`, { token });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(4);
    expect(res.body.data.map((e: { kind: string; title: string; at: string }) => [e.kind, e.title, e.at])).toEqual([
      ['action', 'Call the customer', '2026-11-20T09:00:00.000Z'],
      ['communication', 'Call', '2026-11-10T09:00:00.000Z'],
      ['action', 'Sent the reminder', '2026-11-05T09:00:00.000Z'],
      ['communication', 'Invoice INV-Globex is overdue', '2026-11-01T09:00:00.000Z'],
    ]);
    expect(res.body.data[0]).toMatchObject({ type: 'email', status: 'proposed', direction: null, detail: 'Friendly reminder' });
    expect(res.body.data[1]).toMatchObject({ type: 'call', direction: 'outbound', status: null, by: 'Dana' });
  });

  it('keeps, under a limit, the actions executed most recently, not the ones created most recently', async () => {
    const { customer, invoice } = await invoiceOf(engine, company, 'Globex');
    await fixture(engine, company, async (tx) => {
      const action = (createdAt: string, executedAt: string | null, description: string) =>
        insertActionRow(tx, company, { invoice_id: invoice, customer_id: customer, status: executedAt ? 'completed' : 'proposed', description, executed_at: executedAt, created_at: createdAt, updated_at: createdAt });
      await action('2026-10-01T09:00:00.000Z', '2026-11-15T09:00:00.000Z', 'Old suggestion, done last week');
      await action('2026-11-10T09:00:00.000Z', null, 'Newer suggestion, still open');
    });
    expect((await invoiceActivity(engine.db, company, invoice, 1)).map((e) => e.title)).toEqual(['Old suggestion, done last week']);
  });

  it("answers 404 for an unknown id and for another company's invoice", async () => {
    const foreign = await invoiceOf(engine, other, 'Hooli');
    expect((await call(app, 'GET', `/api/companies/${company}/invoices/${foreign.invoice}/activity`, { token })).status).toBe(404);
    expect((await call(app, 'GET', `/api/companies/${company}/invoices/nope/activity`, { token })).status).toBe(404);
    expect((await call(app, 'GET', `/api/companies/${other}/invoices/${foreign.invoice}/activity`, { token })).body.count).toBe(0);
  });

  it('merges newest first with ties broken by id and a limit', () => {
    const e = (id: string, at: string): ActivityEntry => ({ kind: 'action', id, at, type: 'call', direction: null, status: null, title: id, detail: null, by: null, outcome: null, promise_date: null, promise_amount: null, reading: null });
    expect(mergeNewestFirst([e('a', '2026-01-02'), e('c', '2026-01-01')], [e('b', '2026-01-02')], 2).map((x) => x.id)).toEqual(['b', 'a']);
  });
});
