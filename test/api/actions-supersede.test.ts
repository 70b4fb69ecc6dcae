import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../core/http/app';
import { addAction, addCustomer, addInvoice, addTeamMember } from '../support/actions-fixtures';
import { addCompany, addUser, type App, call, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { addMember } from '../support/rows';

describe('proposals follow the facts and the collector’s choice', () => {
  let engine: TestEngine;
  let app: App;
  let userId: string;
  let token: string;
  let company: string;
  let customer: string;
  let inv1: string;
  let inv2: string;

  const api = (method: string, path: string, body?: unknown) => call(app, method, `/api/companies/${company}${path}`, { token, body });
  const action = async (id: string) => (await api('GET', `/actions/${id}`)).body;
  /** An engine proposal for a trigger: the recommendation and its alternative, as the engine writes them. */
  const proposal = (invoice: string | null, triggerKey: string, type: 'email' | 'call' | 'task' = 'email') =>
    addAction(engine, company, { customer_id: customer, invoice_id: invoice, action_type: type, trigger_key: triggerKey, is_action_required: 1 });

  beforeAll(async () => {
    engine = await testEngine('2026-11-23T12:00:00.000Z');
    app = createApp(engine);
    userId = await addUser(engine, 'ana', []);
    token = await loginAs(app, 'ana');
  });
  afterAll(() => engine.dispose());

  beforeEach(async () => {
    company = await addCompany(engine, 'Acme Holdings');
    await addMember(engine, company, userId, 'collector');
    await addTeamMember(engine, company, 'Ana', userId);
    customer = await addCustomer(engine, company, 'Twin Rivers');
    inv1 = await addInvoice(engine, company, customer, 'INV-10012');
    inv2 = await addInvoice(engine, company, customer, 'INV-10013');
  });

  it('a promise logged on a call withdraws that invoice’s proposals in the same command, with the reason', async () => {
    const email = await proposal(inv1, `past_due_no_touch:${inv1}:1_30`);
    const call = await proposal(inv1, `past_due_no_touch:${inv1}:1_30:alt:call`, 'call');
    const other = await proposal(inv2, `past_due_no_touch:${inv2}:1_30`);
    const byHand = await addAction(engine, company, { customer_id: customer, invoice_id: inv1, is_ai_recommended: 0 });
    const logged = await api('POST', '/communications', { customer_id: customer, invoice_id: inv1, kind: 'call', outcome: 'promised_to_pay', promise_date: '2026-12-04', promise_amount: 500 });
    expect(logged.status).toBe(201);
    for (const id of [email, call]) {
      const a = await action(id);
      expect(a.status).toBe('cancelled');
      expect(a.approval_log).toEqual([expect.objectContaining({ operation: 'cancel', reason: 'superseded: promise to pay on record for December 4, 2026' })]);
    }
    expect((await action(other)).status).toBe('proposed');
    // What a person created stays theirs to decide.
    expect((await action(byHand)).status).toBe('proposed');
    const commands = await engine.db.selectFrom('changes').select(['command', 'entity']).where('company_id', '=', company).where('entity', 'in', ['action', 'communication']).where('command', '!=', 'test_fixture').execute();
    expect(new Set(commands.map((c) => c.command))).toEqual(new Set(['log_communication']));
  });

  it('a refused call changes nothing: the proposals stay', async () => {
    const email = await proposal(inv1, `past_due_no_touch:${inv1}:1_30`);
    const refused = await api('POST', '/communications', { customer_id: customer, invoice_id: inv1, kind: 'call', outcome: 'promised_to_pay' });
    expect(refused.status).toBe(400);
    expect((await action(email)).status).toBe('proposed');
  });

  it('a dispute on the account withdraws every proposal of the customer', async () => {
    const a = await proposal(inv1, `past_due_no_touch:${inv1}:1_30`);
    const b = await proposal(inv2, `past_due_no_touch:${inv2}:1_30`);
    await api('POST', '/communications', { customer_id: customer, kind: 'call', outcome: 'disputed', body: 'They say the goods arrived damaged' });
    for (const id of [a, b]) expect((await action(id)).approval_log.at(-1)).toMatchObject({ reason: 'superseded: disputed by the customer on November 23, 2026' });
  });

  it('a payment withdraws the proposals drafted on the old balance of that invoice only', async () => {
    const paid = await proposal(inv1, `past_due_no_touch:${inv1}:1_30`);
    const part = await proposal(inv2, `past_due_no_touch:${inv2}:1_30`);
    const full = await api('POST', '/payments', { invoice: inv1, amount: 1250, payment_date: '2026-11-22' });
    expect(full.status).toBe(201);
    expect((await action(paid)).approval_log.at(-1)).toMatchObject({ operation: 'cancel', reason: 'superseded: paid in full on November 22, 2026' });
    expect((await action(part)).status).toBe('proposed');
    await api('POST', '/payments', { invoice: inv2, amount: 100 });
    expect((await action(part)).approval_log.at(-1)).toMatchObject({ reason: 'superseded: payment received on November 23, 2026' });
  });

  it('a label marked as meaning a dispute withdraws the proposals of the invoices it is on, in the same request; its name alone does nothing', async () => {
    const onInv1 = await proposal(inv1, `past_due_no_touch:${inv1}:1_30`);
    const onInv2 = await proposal(inv2, `past_due_no_touch:${inv2}:1_30`);
    const tag = (await api('POST', '/labels', { name: 'Disputed', color: '#d64545' })).body;
    expect(tag.meaning).toBeNull();
    expect((await api('PATCH', `/invoices/${inv1}`, { label_ids: [tag.id] })).status).toBe(200);
    expect((await action(onInv1)).status).toBe('proposed');

    // Bad input changes nothing.
    const bad = await api('PATCH', `/labels/${tag.id}`, { meaning: 'maybe' });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/problem\+json/);
    expect((await api('GET', `/labels/${tag.id}`)).body.meaning).toBeNull();

    // Marking the label applies to the invoice that already carries it.
    const marked = await api('PATCH', `/labels/${tag.id}`, { meaning: 'dispute' });
    expect(marked.body).toMatchObject({ id: tag.id, meaning: 'dispute' });
    expect(await action(onInv1)).toMatchObject({ status: 'cancelled', approval_log: [expect.objectContaining({ operation: 'cancel', reason: 'superseded: labelled "Disputed" on November 23, 2026' })] });
    expect((await action(onInv2)).status).toBe('proposed');
    // And a marked label put on another invoice withdraws its proposals in that request.
    const promise = (await api('POST', '/labels', { name: 'Cheque in the post', meaning: 'promise' })).body;
    expect(promise.meaning).toBe('promise');
    await api('PATCH', `/invoices/${inv2}`, { label_ids: [promise.id] });
    expect((await action(onInv2)).approval_log.at(-1)).toMatchObject({ reason: 'superseded: labelled "Cheque in the post" on November 23, 2026' });
    expect((await api('GET', '/labels')).body.data.map((l: { name: string; meaning: string | null }) => [l.name, l.meaning])).toEqual([
      ['Cheque in the post', 'promise'],
      ['Disputed', 'dispute'],
    ]);
  });

  it('approving one option cancels its siblings with "another option was chosen"; other triggers stay', async () => {
    const email = await proposal(inv1, `past_due_no_touch:${inv1}:1_30`);
    const call = await proposal(inv1, `past_due_no_touch:${inv1}:1_30:alt:call`, 'call');
    const otherTrigger = await proposal(inv2, `past_due_no_touch:${inv2}:1_30`);
    const approved = await api('POST', `/actions/${call}/approve`);
    expect(approved.body.status).toBe('processing');
    expect(await action(email)).toMatchObject({ status: 'cancelled', approval_log: [expect.objectContaining({ operation: 'cancel', reason: 'another option was chosen' })] });
    expect((await action(otherTrigger)).status).toBe('proposed');
  });

  it('proposals without a trigger (the demo’s) are siblings when they are on the same invoice', async () => {
    const a = await addAction(engine, company, { customer_id: customer, invoice_id: inv1, action_type: 'call' });
    const b = await addAction(engine, company, { customer_id: customer, invoice_id: inv1, action_type: 'email' });
    const c = await addAction(engine, company, { customer_id: customer, invoice_id: inv2, action_type: 'email' });
    await api('POST', `/actions/${a}/send`);
    expect((await action(b)).status).toBe('cancelled');
    expect((await action(c)).status).toBe('proposed');
  });

  it('logging an approved call with a promise completes it and withdraws the invoice’s other proposals', async () => {
    const call = await proposal(inv1, `broken_promise:${inv1}:2026-11-10`, 'call');
    const late = await addAction(engine, company, { customer_id: customer, invoice_id: inv1, action_type: 'email', trigger_key: `signal:${customer}:x`, is_action_required: 1 });
    await api('POST', `/actions/${call}/approve`);
    expect((await action(late)).status).toBe('proposed');
    const logged = await api('POST', `/actions/${call}/log`, { outcome: 'promised_to_pay', promise_date: '2026-12-04' });
    expect(logged.body.status).toBe('completed');
    expect((await action(late)).approval_log.at(-1)).toMatchObject({ reason: 'superseded: promise to pay on record for December 4, 2026' });
  });

  it('one row per decision: include_alternatives=false leaves out the alternatives, of an invoice’s decision or of one on the customer as a whole', async () => {
    const rec = await addAction(engine, company, { customer_id: customer, invoice_id: inv1, trigger_key: 'k', top_recommendation: 'recommended', is_action_required: 1 });
    const alt = await addAction(engine, company, { customer_id: customer, invoice_id: inv1, trigger_key: 'k:alt:call', top_recommendation: 'alternative', is_action_required: 1 });
    const customerRec = await addAction(engine, company, { customer_id: customer, trigger_key: 'r', top_recommendation: 'recommended', is_action_required: 1 });
    const customerAlt = await addAction(engine, company, { customer_id: customer, trigger_key: 'r:alt:call', top_recommendation: 'alternative', is_action_required: 1 });
    const ids = async (q: string) => new Set((await api('GET', `/actions?category=needs_action${q}`)).body.data.map((a: { id: string }) => a.id));
    expect(await ids('')).toEqual(new Set([rec, alt, customerRec, customerAlt]));
    expect(await ids('&include_alternatives=false')).toEqual(new Set([rec, customerRec]));
    expect((await api('GET', '/actions?category=needs_action&include_alternatives=false')).body.count).toBe(2);
    expect((await api('GET', `/actions?category=alternatives&invoice_id=${inv1}`)).body.data.map((a: { id: string }) => a.id).sort()).toEqual([rec, alt].sort());
    // The customer-level decision's options, for its panel (extension: customer_id without invoice_id).
    expect((await api('GET', `/actions?category=alternatives&customer_id=${customer}`)).body.data.map((a: { id: string }) => a.id).sort()).toEqual([customerRec, customerAlt].sort());
    expect((await api('GET', '/actions?include_alternatives=maybe')).status).toBe(400);
  });
});
