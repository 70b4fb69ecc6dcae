import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rejectAction } from '../../core/actions/commands';
import { listActions } from '../../core/actions/queries';
import { logCommunication } from '../../core/communications/log';
import { addDays } from '../../core/dates';
import { runCommand, systemActor } from '../../core/engine';
import { importFile, resolveMapping } from '../../core/import/import';
import { applyLabelChanges } from '../../core/invoices/labels';
import { submitFeedback } from '../../core/insights/commands';
import { watchChanges } from '../../core/intelligence/jobs';
import { REFRESH_COMMAND, refreshIntelligence } from '../../core/intelligence/runner';
import { writeProposals } from '../../core/intelligence/writer';
import { addCompany, addUser } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { ledger } from '../support/ledger-fixtures';
import { addSmtpConnection } from '../support/reminders-fixtures';
import { addMember, fixture, insertCommunicationRow } from '../support/rows';

const TODAY = '2026-11-23';

/** A customer who settled six invoices about 5 days late, and has one open invoice 23 days past due. */
async function world(engine: TestEngine, name: string) {
  const company = await addCompany(engine, name);
  const l = ledger(engine, company);
  // Reachable by phone and email, with a connection to send from: calls and emails can be proposed.
  const customer = await l.customer({ name: `${name} customer`, contacts: [{ name: 'Pat Payables', email: 'ap@customer.test', phone: '+1 555 0100', is_billing: true }] });
  await addSmtpConnection(engine, company, { host: '127.0.0.1', port: 25 });
  for (let i = 0; i < 6; i++) {
    const due = addDays('2026-03-01', i * 30);
    const inv = await l.invoice({ customer, number: `P-${i}`, total: 100, dueDate: due });
    await l.payment({ invoice: inv, amount: 100, payment_date: addDays(due, 5) });
  }
  const open = await l.invoice({ customer, number: 'OPEN-1', total: 250, dueDate: '2026-10-31' });
  return { company, customer, open, l };
}

const active = (engine: TestEngine, companyId: string) =>
  engine.database.sqlite.prepare(`SELECT * FROM insights WHERE company_id = ? AND valid_to IS NULL ORDER BY insight_type, target_id`).all(companyId) as Array<Record<string, string>>;
const changeCount = (engine: TestEngine) => (engine.database.sqlite.prepare('SELECT count(*) AS n FROM changes').get() as { n: number }).n;

describe('the intelligence runner on a real database', () => {
  let engine: TestEngine;
  beforeEach(async () => {
    engine = await testEngine(`${TODAY}T12:00:00.000Z`);
  });
  afterEach(() => engine.dispose());

  it('writes every model’s insight, each with evidence, and proposals with their trigger', async () => {
    const { company, open, customer } = await world(engine, 'Acme');
    const report = await refreshIntelligence(engine, company);
    expect(report).toMatchObject({ customers: 1, insights_closed: 0, insights_unchanged: 0 });
    const rows = active(engine, company);
    expect(rows.map((r) => r.insight_type)).toEqual([
      'customer_conversation_summary',
      'customer_signal',
      'customer_strategy_plan',
      'invoice_pay_date_prediction',
      'invoice_signal',
      'portfolio_forecast_accuracy',
      'portfolio_lessons',
      'portfolio_signal',
    ]);
    const prediction = JSON.parse(rows.find((r) => r.insight_type === 'invoice_pay_date_prediction')!.payload_json);
    // Six invoices paid 5 days late, and this one 23 days past due: no invoice of the company was
    // ever that late, so no date (not "today", as the distribution cut at today said), and why.
    expect(prediction).toMatchObject({
      basis: 'historical',
      predicted_date: null,
      evidence_sources: ['payment_history'],
      alternative_scenarios: [],
      reason: 'Invoices this late were paid within 90 days 0% of the time; no reliable date',
      collectible_90d: 0,
    });
    for (const r of rows) expect(JSON.parse(r.evidence).length, r.insight_type).toBeGreaterThan(0);
    const evidence = JSON.parse(rows.find((r) => r.insight_type === 'invoice_pay_date_prediction')!.evidence);
    expect(evidence).toContainEqual({ fact: "Customer's settled invoices learnt from", value: 6, source: 'payment_history', ref: { type: 'customer', id: customer } });
    expect(JSON.parse(rows.find((r) => r.insight_type === 'invoice_signal')!.payload_json).signal).toMatchObject({ type: 'newly_past_due', detected_at: '2026-11-01' });
    const actions = engine.database.sqlite.prepare('SELECT * FROM actions WHERE company_id = ? ORDER BY trigger_key').all(company) as Array<Record<string, string | number>>;
    expect(actions.map((a) => [a.action_type, a.trigger_key, a.is_ai_recommended, a.status])).toEqual([
      ['email', `past_due_no_touch:${open}:1_30`, 1, 'proposed'],
      ['call', `past_due_no_touch:${open}:1_30:alt:call`, 1, 'proposed'],
    ]);
    expect(JSON.parse(actions[0].evidence as string)[0]).toMatchObject({ fact: 'Due date', value: '2026-10-31', ref: { type: 'invoice', id: open } });
  });

  it('a dispute that came with an import of history is not dated today (no "Invoice disputed" signal); one labelled later is dated that day', async () => {
    const company = await addCompany(engine, 'History');
    const header = 'countryCode,customerID,PaperlessDate,invoiceNumber,InvoiceDate,DueDate,InvoiceAmount,Disputed,SettledDate,PaperlessBill,DaysToSettle,DaysLate';
    const rows = [
      ...Array.from({ length: 6 }, (_, i) => `391,0379-NEVHP,,00000${i},${3 + i}/2/2026,${4 + i}/1/2026,55.94,No,${4 + i}/3/2026,Paper,30,2`),
      '391,0379-NEVHP,,000010,10/1/2026,10/31/2026,80.00,Yes,,Paper,,',
      '391,0379-NEVHP,,000011,10/5/2026,11/4/2026,90.00,No,,Paper,,',
    ];
    const report = await importFile(engine, { companyId: company, actor: systemActor, bytes: new TextEncoder().encode([header, ...rows].join('\n')), mapping: resolveMapping({ preset: 'ibm-ar' }), dryRun: false });
    expect(report.errors).toEqual([]);
    const invoiceId = (number: string) => (engine.database.sqlite.prepare('SELECT id FROM invoices WHERE company_id = ? AND invoice_number = ?').get(company, number) as { id: string }).id;
    const signalOf = (id: string) => JSON.parse(active(engine, company).find((r) => r.insight_type === 'invoice_signal' && r.target_id === id)!.payload_json).signal;
    await refreshIntelligence(engine, company);
    expect(signalOf(invoiceId('000010'))).not.toMatchObject({ type: 'dispute_opened' });
    // Still disputed for the model: the evidence names the dispute.
    const evidence = JSON.parse(active(engine, company).find((r) => r.insight_type === 'invoice_pay_date_prediction' && r.target_id === invoiceId('000010'))!.evidence);
    expect(evidence.map((e: { fact: string }) => e.fact)).toContain('Disputed: extra days late a dispute brings');
    // The other open invoice is labelled disputed by hand two days later: that is a change, dated.
    engine.clock.set('2026-11-25T09:00:00.000Z');
    const label = (engine.database.sqlite.prepare("SELECT id FROM labels WHERE company_id = ? AND name = 'Disputed'").get(company) as { id: string }).id;
    await runCommand(engine, 'label_invoice', { actor: systemActor, companyId: company }, (tx) => applyLabelChanges(tx, company, [[invoiceId('000011'), label]], []));
    await refreshIntelligence(engine, company);
    expect(signalOf(invoiceId('000011'))).toMatchObject({ type: 'dispute_opened', detected_at: '2026-11-25' });
    expect(signalOf(invoiceId('000010'))).not.toMatchObject({ type: 'dispute_opened' });
  });

  it("reads how an open invoice's bill was sent (an issue-time fact) into its prediction's evidence", async () => {
    const { company, open } = await world(engine, 'Acme');
    engine.database.sqlite.prepare("UPDATE invoices SET bill_channel = 'paper' WHERE id = ?").run(open);
    await refreshIntelligence(engine, company);
    const evidence = JSON.parse(active(engine, company).find((r) => r.insight_type === 'invoice_pay_date_prediction')!.evidence);
    // No settled invoice says how its bill was sent: the channel is shown, and moves nothing yet.
    expect(evidence).toContainEqual({ fact: 'Bill sent on paper: days late it brings (vs the portfolio)', value: 0, source: 'invoice', ref: { type: 'invoice', id: open } });
  });

  it('an unchanged result writes nothing; a change closes the old version and opens a new one, and feedback stays with the old', async () => {
    const { company, customer, open } = await world(engine, 'Acme');
    const userId = await addUser(engine, 'ana', []);
    await addMember(engine, company, userId, 'collector');
    await refreshIntelligence(engine, company);
    const before = changeCount(engine);
    const again = await refreshIntelligence(engine, company);
    expect(again).toMatchObject({ insights_opened: 0, insights_closed: 0, actions_proposed: 0, actions_cancelled: 0 });
    expect(changeCount(engine)).toBe(before);

    const summaryBefore = active(engine, company).find((r) => r.insight_type === 'customer_conversation_summary')!;
    await submitFeedback(engine, { companyId: company, actor: systemActor, userId }, summaryBefore.id, { rating: 'up' });
    await fixture(engine, company, (tx) =>
      insertCommunicationRow(tx, company, { customer_id: customer, invoice_id: open, kind: 'email', direction: 'inbound', occurred_at: '2026-11-20T09:00:00.000Z', subject: 'OPEN-1', body: 'We will pay the invoice on November 30.' }),
    );
    const changed = await refreshIntelligence(engine, company, { customerIds: [customer] });
    expect(changed.insights_opened).toBeGreaterThan(0);
    const summaryAfter = active(engine, company).find((r) => r.insight_type === 'customer_conversation_summary')!;
    expect(summaryAfter.id).not.toBe(summaryBefore.id);
    expect(JSON.parse(summaryAfter.payload_json)).toMatchObject({ commitment_date: '2026-11-30', active_court: 'Customer' });
    const old = engine.database.sqlite.prepare('SELECT valid_to FROM insights WHERE id = ?').get(summaryBefore.id) as { valid_to: string };
    expect(old.valid_to).toBe(`${TODAY}T12:00:00.000Z`);
    const feedback = engine.database.sqlite.prepare('SELECT insight_id FROM insight_feedback').all() as { insight_id: string }[];
    expect(feedback).toEqual([{ insight_id: summaryBefore.id }]);
    const prediction = JSON.parse(active(engine, company).find((r) => r.insight_type === 'invoice_pay_date_prediction')!.payload_json);
    expect(prediction).toMatchObject({ predicted_date: '2026-11-30', basis: 'promise', evidence_sources: ['communication_thread', 'payment_history'] });
    // The reminder proposal lost its trigger (a promise now stands): withdrawn; waiting on the customer instead.
    const actions = engine.database.sqlite.prepare('SELECT status, trigger_key, top_recommendation FROM actions WHERE company_id = ? ORDER BY created_at, trigger_key').all(company);
    expect(actions).toEqual([
      { status: 'cancelled', trigger_key: `past_due_no_touch:${open}:1_30`, top_recommendation: 'recommended' },
      { status: 'cancelled', trigger_key: `past_due_no_touch:${open}:1_30:alt:call`, top_recommendation: 'alternative' },
      { status: 'proposed', trigger_key: `promise_pending:${open}:2026-11-30`, top_recommendation: 'wait_for_customer' },
      { status: 'proposed', trigger_key: expect.stringMatching(/^reply_received:/), top_recommendation: 'recommended' },
      { status: 'proposed', trigger_key: expect.stringMatching(/^reply_received:.*:alt:call$/), top_recommendation: 'alternative' },
    ]);
  });

  it('a promise logged with a call is the prediction, waits as awaiting_customer, and once its date passes unpaid is a broken promise', async () => {
    const { company, customer, open } = await world(engine, 'Acme');
    // The note says nothing a parser could read as a promise: only the logged fields carry it.
    const call = await logCommunication(engine, { companyId: company, actor: systemActor }, {
      customer_id: customer,
      invoice_id: open,
      kind: 'call',
      outcome: 'promised_to_pay',
      body: 'Spoke to Dana in accounts payable.',
      promise_date: '2026-11-27',
      promise_amount: 150,
    });
    await refreshIntelligence(engine, company);
    const rows = active(engine, company);
    const prediction = rows.find((r) => r.insight_type === 'invoice_pay_date_prediction')!;
    expect(JSON.parse(prediction.payload_json)).toMatchObject({ basis: 'promise', predicted_date: '2026-11-27', evidence_sources: ['communication_thread', 'payment_history'] });
    const ref = { type: 'communication', id: call.id };
    expect(JSON.parse(prediction.evidence)).toEqual(
      expect.arrayContaining([
        { fact: 'Promise to pay on', value: '2026-11-27', source: 'communication', ref },
        { fact: 'Promise logged with the call', value: 'Spoke to Dana in accounts payable.', source: 'communication', ref },
        expect.objectContaining({ fact: 'Promised amount', value: expect.stringContaining('150.00'), ref }),
      ]),
    );
    expect(JSON.parse(rows.find((r) => r.insight_type === 'customer_strategy_plan')!.payload_json).strategy_plan.strategy).toBe('hold_for_promise');
    const waiting = engine.database.sqlite
      .prepare(`SELECT trigger_key, top_recommendation, is_action_required, status FROM actions WHERE company_id = ? ORDER BY trigger_key`)
      .all(company);
    expect(waiting).toEqual([{ trigger_key: `promise_pending:${open}:2026-11-27`, top_recommendation: 'wait_for_customer', is_action_required: 0, status: 'proposed' }]);

    engine.clock.set('2026-11-30T12:00:00.000Z');
    await refreshIntelligence(engine, company);
    const after = active(engine, company);
    expect(JSON.parse(after.find((r) => r.insight_type === 'invoice_signal')!.payload_json).signal).toMatchObject({ type: 'broken_promise', severity: 'high', detected_at: '2026-11-28' });
    expect(JSON.parse(after.find((r) => r.insight_type === 'customer_signal')!.payload_json).signal).toMatchObject({ type: 'broken_promise' });
    expect(JSON.parse(after.find((r) => r.insight_type === 'invoice_pay_date_prediction')!.payload_json).basis).not.toBe('promise');
    const proposed = engine.database.sqlite
      .prepare(`SELECT trigger_key, action_type, status FROM actions WHERE company_id = ? AND status = 'proposed' ORDER BY trigger_key`)
      .all(company);
    expect(proposed).toEqual([
      { trigger_key: `broken_promise:${open}:2026-11-27`, action_type: 'call', status: 'proposed' },
      { trigger_key: `broken_promise:${open}:2026-11-27:alt:email`, action_type: 'email', status: 'proposed' },
    ]);
  });

  it("lists a trigger's recommendation above its alternatives (newest first, as every action list is)", async () => {
    const { company, open } = await world(engine, 'Acme');
    await refreshIntelligence(engine, company);
    const page = await listActions(engine.db, company, {
      category: null, statuses: ['proposed'], invoiceId: open, customerId: null, actionTypes: null, arOwners: null, search: null,
      includeDeleted: false, includeAlternatives: true, executedFrom: null, executedUntil: null, sort: 'created', descending: true, page: 1, pageSize: 10,
    }, TODAY);
    expect(page.data.map((a) => a.top_recommendation)).toEqual(['recommended', 'alternative']);
  });

  it('a rejected proposal is not proposed again for the same trigger', async () => {
    const { company, open } = await world(engine, 'Acme');
    await refreshIntelligence(engine, company);
    const top = engine.database.sqlite.prepare(`SELECT id FROM actions WHERE trigger_key = ?`).get(`past_due_no_touch:${open}:1_30`) as { id: string };
    await rejectAction(engine, { companyId: company, actor: systemActor }, top.id, { reason: 'Not now' });
    engine.clock.set(`${TODAY}T15:00:00.000Z`);
    const again = await refreshIntelligence(engine, company);
    expect(again.actions_proposed).toBe(0);
    expect((engine.database.sqlite.prepare(`SELECT count(*) AS n FROM actions WHERE trigger_key = ?`).get(`past_due_no_touch:${open}:1_30`) as { n: number }).n).toBe(1);
  });

  it('a proposal the collector rejected after the facts were read is not cancelled over their decision', async () => {
    const { company, open } = await world(engine, 'Acme');
    await refreshIntelligence(engine, company);
    const top = engine.database.sqlite.prepare(`SELECT id FROM actions WHERE trigger_key = ?`).get(`past_due_no_touch:${open}:1_30`) as { id: string };
    await rejectAction(engine, { companyId: company, actor: systemActor }, top.id, { reason: 'Not now' });
    const changesBefore = changeCount(engine);
    // The refresh had read it as proposed and its trigger as gone.
    const report = await runCommand(engine, REFRESH_COMMAND, { actor: systemActor, companyId: company }, (tx) =>
      writeProposals(tx, engine.database.sqlite, company, [], [{ id: top.id, reason: 'No longer needed: what triggered it has changed' }]),
    );
    expect(report).toEqual({ proposed: 0, cancelled: 0 });
    const row = engine.database.sqlite.prepare('SELECT status FROM actions WHERE id = ?').get(top.id);
    expect(row).toEqual({ status: 'cancelled' }); // what a rejection leaves (spec: reject -> cancelled)
    const operations = engine.database.sqlite.prepare('SELECT operation FROM action_approvals WHERE action_id = ? ORDER BY created_at').all(top.id);
    expect(operations).toEqual([{ operation: 'reject' }]);
    expect(changeCount(engine)).toBe(changesBefore);
  });

  it('no insight or action crosses companies', async () => {
    const a = await world(engine, 'Acme');
    const b = await world(engine, 'Borealis');
    await refreshIntelligence(engine, a.company);
    expect(active(engine, b.company)).toEqual([]);
    await refreshIntelligence(engine, b.company);
    const crossed = engine.database.sqlite
      .prepare(
        `SELECT 'insight' AS kind, n.id FROM insights n JOIN customers c ON c.id = n.customer_id WHERE c.company_id != n.company_id
         UNION ALL SELECT 'insight', n.id FROM insights n JOIN invoices i ON i.id = n.invoice_id WHERE i.company_id != n.company_id
         UNION ALL SELECT 'action', a.id FROM actions a JOIN customers c ON c.id = a.customer_id WHERE c.company_id != a.company_id
         UNION ALL SELECT 'action', a.id FROM actions a JOIN invoices i ON i.id = a.invoice_id WHERE i.company_id != a.company_id`,
      )
      .all();
    expect(crossed).toEqual([]);
    const portfolio = active(engine, a.company).find((r) => r.insight_type === 'portfolio_signal')!;
    expect(portfolio.target_id).toBe(a.company);
    // Refreshing one company leaves the other's rows exactly as they were.
    const bRows = active(engine, b.company);
    await refreshIntelligence(engine, a.company);
    expect(active(engine, b.company)).toEqual(bRows);
  });

  it('a full refresh covers the changes made before it: the change watcher refreshes only what changed after', async () => {
    const { company, open, l } = await world(engine, 'Acme');
    await refreshIntelligence(engine, company);
    // Seeded or imported rows are read by the full refresh; refreshing their customers again would churn the proposals it just made.
    expect(await watchChanges(engine)).toEqual([]);
    await l.payment({ invoice: open, amount: 50, payment_date: TODAY });
    expect(await watchChanges(engine)).toEqual([company]);
  });
});
