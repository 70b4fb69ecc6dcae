/**
 * A payment that comes in by import withdraws the invoice's now-wrong engine proposals in the
 * import's own command, as one recorded by hand does, not at the next refresh.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../core/http/app';
import { addCompany, addUser, type App, call, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { AR_HEADER, AR_MAPPING, csv } from '../support/import-fixtures';
import { fixture, insertActionRow } from '../support/rows';

describe('an imported payment withdraws the proposals of its invoice', () => {
  let engine: TestEngine;
  let app: App;
  let token: string;
  let company: string;

  const importRows = async (rows: string[][]) => {
    const form = new FormData();
    form.append('file', new Blob([csv([AR_HEADER, ...rows])]), 'upload');
    form.append('mapping', JSON.stringify(AR_MAPPING));
    const res = await app.request(`/api/companies/${company}/imports`, { method: 'POST', body: form, headers: { authorization: `Token ${token}` } });
    return { status: res.status, body: (await res.json()) as any };
  };
  const action = async (id: string) => (await call(app, 'GET', `/api/companies/${company}/actions/${id}`, { token })).body;
  const invoiceId = (number: string) => (engine.database.sqlite.prepare('SELECT id, customer_id FROM invoices WHERE company_id = ? AND invoice_number = ?').get(company, number) as { id: string; customer_id: string });

  beforeAll(async () => {
    engine = await testEngine('2026-11-23T12:00:00.000Z');
    app = createApp(engine);
    company = await addCompany(engine, 'Home');
    await addUser(engine, 'demo', [[company, 'owner']]);
    token = await loginAs(app, 'demo');
  });
  afterAll(async () => engine.dispose());

  it('paid in full and paid in part, each with its reason; other invoices and what a person created stay', async () => {
    const open = [
      ['C-1', 'Globex', 'US', '', 'INV-1', '9/5/2026', '10/5/2026', '100.00', 'No', '', '', ''],
      ['C-1', 'Globex', 'US', '', 'INV-2', '9/6/2026', '10/6/2026', '80.00', 'No', '', '', ''],
      ['C-2', 'Initech', 'US', '', 'INV-3', '9/7/2026', '10/7/2026', '40.00', 'No', '', '', ''],
    ];
    expect((await importRows(open)).status).toBe(200);
    const [inv1, inv2, inv3] = ['INV-1', 'INV-2', 'INV-3'].map(invoiceId);
    const propose = (inv: { id: string; customer_id: string }, fields: Record<string, unknown> = {}) =>
      fixture(engine, company, (tx) => insertActionRow(tx, company, { customer_id: inv.customer_id, invoice_id: inv.id, is_action_required: 1, trigger_key: `past_due_no_touch:${inv.id}:31_60`, ...fields }));
    const full = await propose(inv1);
    const byHand = await propose(inv1, { is_ai_recommended: 0, trigger_key: null });
    const part = await propose(inv2);
    const untouched = await propose(inv3);

    const paid = [
      ['C-1', 'Globex', 'US', '', 'INV-1', '9/5/2026', '10/5/2026', '100.00', 'No', '100.00', '11/20/2026', 'ACH'],
      ['C-1', 'Globex', 'US', '', 'INV-2', '9/6/2026', '10/6/2026', '80.00', 'No', '30.00', '11/21/2026', 'ACH'],
      ['C-2', 'Initech', 'US', '', 'INV-3', '9/7/2026', '10/7/2026', '40.00', 'No', '', '', ''],
    ];
    const res = await importRows(paid);
    expect(res.status).toBe(200);
    expect(res.body.counts.payments.created).toBe(2);
    expect(await action(full)).toMatchObject({ status: 'cancelled', approval_log: [expect.objectContaining({ operation: 'cancel', reason: 'superseded: paid in full on November 20, 2026' })] });
    expect((await action(part)).approval_log.at(-1)).toMatchObject({ reason: 'superseded: payment received on November 21, 2026' });
    expect((await action(untouched)).status).toBe('proposed');
    expect((await action(byHand)).status).toBe('proposed');
    // In the import's own command: one transaction with the payments.
    const commands = engine.database.sqlite
      .prepare(`SELECT DISTINCT command FROM changes WHERE company_id = ? AND entity IN ('action', 'action_approval') AND command != 'test_fixture'`)
      .all(company) as { command: string }[];
    const paymentCommand = engine.database.sqlite.prepare(`SELECT DISTINCT command FROM changes WHERE company_id = ? AND entity = 'payment'`).all(company) as { command: string }[];
    expect(commands).toEqual(paymentCommand);
  });
});
