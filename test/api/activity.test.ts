import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mergeNewestFirst, type ActivityEntry } from '../../core/activity/activity';
import { runCommand, systemActor } from '../../core/engine';
import { createApp } from '../../core/http/app';
import { newId } from '../../core/ids';
import { addCompany, addUser, type App, call, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';

/** A customer with one invoice, written straight to the tables (the activity query only reads). */
async function invoiceOf(engine: TestEngine, companyId: string, name: string): Promise<{ customer: string; invoice: string }> {
  return runCommand(engine, 'test_invoice', { actor: systemActor, companyId }, async (tx) => {
    const customer = newId();
    const invoice = newId();
    await tx.db
      .insertInto('customers')
      .values({ id: customer, company_id: companyId, name, is_person: 0, ar_owner_id: null, sales_owner_id: null, remote_id: null, currency: 'USD', payment_terms_days: 30, notes: null, created_at: tx.now, updated_at: tx.now })
      .execute();
    await tx.db
      .insertInto('invoices')
      .values({
        id: invoice,
        company_id: companyId,
        customer_id: customer,
        customer_name: name,
        customer_location_id: null,
        invoice_number: `INV-${name}`,
        invoice_date: '2026-09-01',
        due_date: '2026-10-01',
        currency: 'USD',
        total_amount: 100_00,
        paid_amount: 0,
        balance: 100_00,
        closing_reason: null,
        closed_date: null,
        payment_link: null,
        next_follow_up_date: null,
        remote_id: null,
        transaction_type: 'invoice',
        parent_invoice_id: null,
        progress_percentage: null,
        last_touch_at: null,
        last_touched_by: null,
        created_at: tx.now,
        updated_at: tx.now,
      })
      .execute();
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
    await runCommand(engine, 'test_activity', { actor: systemActor, companyId: company }, async (tx) => {
      const comm = (id: string, invoiceId: string, at: string, kind: 'email' | 'call' | 'note', subject: string | null) =>
        tx.db
          .insertInto('communications')
          .values({ id, company_id: company, customer_id: customer, invoice_id: invoiceId, kind, direction: 'outbound', subject, body: 'Hello', occurred_at: at, author_user_id: null, author_name: 'Dana', email_connection_id: null, message_id: null, created_at: at })
          .execute();
      await comm(newId(), invoice, '2026-11-01T09:00:00.000Z', 'email', 'Invoice INV-Globex is overdue');
      await comm(newId(), invoice, '2026-11-10T09:00:00.000Z', 'call', null);
      await comm(newId(), elsewhere.invoice, '2026-11-11T09:00:00.000Z', 'note', 'Not this invoice');
      const action = (id: string, createdAt: string, executedAt: string | null, deletedAt: string | null, description: string) =>
        tx.db
          .insertInto('actions')
          .values({
            id,
            company_id: company,
            invoice_id: invoice,
            customer_id: customer,
            action_type: 'email',
            status: executedAt ? 'completed' : 'proposed',
            description,
            recommendation_label: 'Friendly reminder',
            trigger_event_label: null,
            is_action_required: 1,
            top_recommendation: null,
            is_ai_recommended: 1,
            metadata: '{}',
            response_deadline: null,
            channel_id: null,
            external_id: null,
            executed_at: executedAt,
            executed_by: executedAt ? 'Dana' : null,
            deleted_at: deletedAt,
            created_at: createdAt,
            updated_at: createdAt,
          })
          .execute();
      await action(newId(), '2026-10-20T09:00:00.000Z', '2026-11-05T09:00:00.000Z', null, 'Sent the reminder');
      await action(newId(), '2026-11-20T09:00:00.000Z', null, null, 'Call the customer');
      await action(newId(), '2026-11-21T09:00:00.000Z', null, '2026-11-22T09:00:00.000Z', 'Deleted suggestion');
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

  it("answers 404 for an unknown id and for another company's invoice", async () => {
    const foreign = await invoiceOf(engine, other, 'Hooli');
    expect((await call(app, 'GET', `/api/companies/${company}/invoices/${foreign.invoice}/activity`, { token })).status).toBe(404);
    expect((await call(app, 'GET', `/api/companies/${company}/invoices/nope/activity`, { token })).status).toBe(404);
    expect((await call(app, 'GET', `/api/companies/${other}/invoices/${foreign.invoice}/activity`, { token })).body.count).toBe(0);
  });

  it('merges newest first with ties broken by id and a limit', () => {
    const e = (id: string, at: string): ActivityEntry => ({ kind: 'action', id, at, type: 'call', direction: null, status: null, title: id, detail: null, by: null });
    expect(mergeNewestFirst([e('a', '2026-01-02'), e('c', '2026-01-01')], [e('b', '2026-01-02')], 2).map((x) => x.id)).toEqual(['b', 'a']);
  });
});
