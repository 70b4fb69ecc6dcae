/**
 * What the Actions panel offers to attach before approving an email action (issue 26): the invoice
 * copy (an action about an invoice) and the customer's statement, made now with their names and
 * sizes; a call or task offers nothing; another company's action is a 404.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addAction } from '../support/actions-fixtures';
import { type App, apiUsers, call, twoCompanies } from '../support/api';
import type { TestEngine } from '../support/engine';
import { addBillingCustomer, addReminderInvoice } from '../support/reminders-fixtures';

describe('the documents an email action can attach (extension)', () => {
  let engine: TestEngine;
  let app: App;
  let tokens: Record<string, string>;
  let company: string;
  let other: string;
  let base: string;

  beforeAll(async () => {
    const users = await apiUsers();
    ({ engine, app, tokens } = users);
  });
  afterAll(() => engine.dispose());
  beforeEach(async () => {
    ({ company, other, base } = await twoCompanies(engine));
  });

  it('names the invoice copy and the statement with their sizes as made now; a customer action offers the statement only', async () => {
    const customer = await addBillingCustomer(engine, company, 'Cobalt Retail', 'payables@cobalt.example');
    const invoice = await addReminderInvoice(engine, company, customer, { number: 'ACT-88', total: 90_000 });
    const about = await addAction(engine, company, { customer_id: customer, invoice_id: invoice, action_type: 'email', description: 'Send a reminder for ACT-88' });
    const res = await call(app, 'GET', `${base}/actions/${about}/attachments`, { token: tokens.demo });
    expect(res.status).toBe(200);
    expect(res.body.data.map((a: { kind: string; file_name: string }) => [a.kind, a.file_name])).toEqual([
      ['invoice_pdf', 'Invoice-ACT-88.pdf'],
      ['statement', 'Statement-Cobalt-Retail-2026-11-23.pdf'],
    ]);
    for (const a of res.body.data) expect(a.bytes).toBeGreaterThan(5_000);
    // A viewer reads it as they read the action.
    expect((await call(app, 'GET', `${base}/actions/${about}/attachments`, { token: tokens.watcher })).status).toBe(200);

    const customerWide = await addAction(engine, company, { customer_id: customer, invoice_id: null, action_type: 'email', description: 'Send Cobalt Retail a statement' });
    const statementOnly = await call(app, 'GET', `${base}/actions/${customerWide}/attachments`, { token: tokens.demo });
    expect(statementOnly.body.data.map((a: { kind: string }) => a.kind)).toEqual(['statement']);

    const callAction = await addAction(engine, company, { customer_id: customer, invoice_id: invoice, action_type: 'call', description: 'Call about ACT-88' });
    expect((await call(app, 'GET', `${base}/actions/${callAction}/attachments`, { token: tokens.demo })).body).toEqual({ data: [] });
  });

  it("is a 404 problem+json for another company's action or an unknown id", async () => {
    const theirs = await addBillingCustomer(engine, other, 'Rival Goods', 'ap@rival.example');
    const action = await addAction(engine, other, { customer_id: theirs, invoice_id: null, action_type: 'email', description: 'Theirs' });
    const foreign = await call(app, 'GET', `${base}/actions/${action}/attachments`, { token: tokens.demo });
    expect(foreign.status).toBe(404);
    expect(foreign.headers.get('content-type')).toContain('application/problem+json');
    expect((await call(app, 'GET', `${base}/actions/not-a-uuid/attachments`, { token: tokens.demo })).status).toBe(404);
  });
});
