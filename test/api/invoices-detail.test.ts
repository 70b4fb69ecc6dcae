import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../core/ids';
import { call } from '../support/api';
import { addCustomer, addInvoice, addLabel, addTeamMember, type InvoiceWorld, invoiceWorld, pastDue, TODAY } from '../support/invoice-fixtures';

describe('invoice detail and summary', () => {
  let w: InvoiceWorld;
  let base: string;
  let globex: string;
  let initech: string;
  let parent: string;
  let progress: string;
  let plain: string;

  beforeAll(async () => {
    w = await invoiceWorld();
    base = `/api/companies/${w.company}/invoices`;
    const alice = await addTeamMember(w.engine, w.company, 'Alice Archer');
    globex = await addCustomer(w.engine, w.company, { name: 'Globex', arOwnerId: alice });
    initech = await addCustomer(w.engine, w.company, { name: 'Initech' });
    const label = await addLabel(w.engine, w.company, 'Disputed');
    parent = await addInvoice(w.engine, w.company, globex, { number: 'CONTRACT-1', dueDate: pastDue(-60), total: 10000 });
    progress = await addInvoice(w.engine, w.company, globex, { number: 'PB-1', dueDate: pastDue(45), total: 2500, paid: 500, labels: [label] });
    plain = await addInvoice(w.engine, w.company, initech, { number: 'I-1', dueDate: pastDue(95), total: 300 });
    await addInvoice(w.engine, w.company, initech, { number: 'I-2', dueDate: pastDue(20), total: 200, paid: 200, closing: 'paid' });
    await addInvoice(w.engine, w.company, initech, { number: 'I-3', dueDate: pastDue(200), total: 80, closing: 'written_off' });

    const s = w.engine.database.sqlite;
    const now = `${TODAY}T12:00:00.000Z`;
    const location = newId();
    s.prepare('INSERT INTO customer_locations (id, company_id, customer_id, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run(location, w.company, globex, 'Plant 2', now, now);
    s.prepare('UPDATE invoices SET parent_invoice_id = ?, progress_percentage = 25, transaction_type = ?, customer_location_id = ? WHERE id = ?').run(parent, 'progress_billing', location, progress);
    // A call logged against the invoice becomes its last touch.
    s.prepare(
      `INSERT INTO communications (id, company_id, customer_id, invoice_id, kind, direction, subject, occurred_at, author_name, created_at)
       VALUES (?, ?, ?, ?, 'call', 'outbound', 'Chased', ?, 'Alice Archer', ?)`,
    ).run(newId(), w.company, globex, progress, '2026-11-20T15:00:00.000Z', now);
    // Signals: an active one with a change, an expired one, one of another kind; on I-1 one without a change.
    const insight = s.prepare(
      `INSERT INTO insights (id, company_id, target_type, target_id, customer_id, invoice_id, insight_type, payload_json, valid_from, valid_to, created_at)
       VALUES (?, ?, 'invoice', ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    insight.run(newId(), w.company, progress, globex, progress, 'invoice_signal', JSON.stringify({ entity: {}, signal: { kind: 'promise_broken', severity: 'high' } }), '2026-11-22T08:00:00.000Z', null, now);
    insight.run(newId(), w.company, plain, initech, plain, 'invoice_signal', JSON.stringify({ entity: {}, signal: null, reason: 'nothing new' }), '2026-11-22T09:00:00.000Z', null, now);
    insight.run(newId(), w.company, progress, globex, progress, 'invoice_signal', JSON.stringify({ entity: {}, signal: { kind: 'old' } }), '2026-11-01T08:00:00.000Z', '2026-11-10T08:00:00.000Z', now);
    insight.run(newId(), w.company, progress, globex, progress, 'invoice_pay_date_prediction', JSON.stringify({ predicted_date: '2026-12-01', signal: { kind: 'not a signal insight' } }), '2026-11-22T08:00:00.000Z', null, now);
    // Pay-date predictions: the superseded one is not shown; one that could not predict is null.
    insight.run(newId(), w.company, progress, globex, progress, 'invoice_pay_date_prediction', JSON.stringify({ predicted_date: '2026-11-25' }), '2026-11-01T08:00:00.000Z', '2026-11-22T08:00:00.000Z', now);
    insight.run(newId(), w.company, plain, initech, plain, 'invoice_pay_date_prediction', JSON.stringify({ predicted_date: null, reason: 'No invoice of this company has been settled yet' }), '2026-11-22T08:00:00.000Z', null, now);
    // An active program on Globex: two steps for the customer, one for this invoice, one for another invoice.
    const sequence = newId();
    const enrollment = newId();
    s.prepare(`INSERT INTO sequences (id, company_id, name, status, created_at, updated_at) VALUES (?, ?, 'Standard', 'active', ?, ?)`).run(sequence, w.company, now, now);
    const steps = [newId(), newId(), newId()];
    const step = s.prepare(
      `INSERT INTO sequence_steps (id, company_id, sequence_id, position, step_type, label, offset_days, offset_time, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, '09:00', ?, ?)`,
    );
    step.run(steps[0], w.company, sequence, 1, 'reminder', 'Friendly reminder', 0, now, now);
    step.run(steps[1], w.company, sequence, 2, 'call', 'Call', 7, now, now);
    step.run(steps[2], w.company, sequence, 3, 'task', 'Escalate', 14, now, now);
    s.prepare(`INSERT INTO sequence_enrollments (id, company_id, sequence_id, customer_id, status, start_date, created_at, updated_at) VALUES (?, ?, ?, ?, 'active', ?, ?, ?)`).run(
      enrollment,
      w.company,
      sequence,
      globex,
      '2026-11-16',
      now,
      now,
    );
    const scheduled = s.prepare(
      `INSERT INTO scheduled_steps (id, company_id, enrollment_id, sequence_id, step_id, customer_id, invoice_id, scheduled_date, scheduled_at, status, sent_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    scheduled.run(newId(), w.company, enrollment, sequence, steps[0], globex, null, '2026-11-16', '2026-11-16T09:00:00.000Z', 'sent', '2026-11-16T09:00:05.000Z', now, now);
    scheduled.run(newId(), w.company, enrollment, sequence, steps[1], globex, progress, '2026-11-23', '2026-11-23T09:00:00.000Z', 'ready', null, now, now);
    scheduled.run(newId(), w.company, enrollment, sequence, steps[2], globex, parent, '2026-11-30', '2026-11-30T09:00:00.000Z', 'scheduled', null, now, now);
  });
  afterAll(() => w.dispose());

  const get = (path: string) => call(w.app, 'GET', `${base}${path}`, { token: w.token });

  it('adds progress billing, classification, location and the active dunning plan to the list item', async () => {
    const res = await get(`/${progress}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: progress,
      invoice_number: 'PB-1',
      status: 'past_due_31_60',
      balance: 2000,
      ar_owner: 'Alice Archer',
      last_touch_date: '2026-11-20T15:00:00.000Z',
      last_touched_by: 'Alice Archer',
      is_progress_invoice: true,
      parent_invoice: parent,
      progress_percentage: 25,
      transaction_type: 'progress_billing',
      closing_reason: null,
    });
    expect(typeof res.body.customer_location).toBe('string');
    expect(res.body.signals).toEqual([{ insight_id: expect.any(String), insight_type: 'invoice_signal', signal: { kind: 'promise_broken', severity: 'high' }, detected_at: '2026-11-22T08:00:00.000Z' }]);
    expect(res.body.dunning_plan).toEqual([
      { step: 1, step_id: expect.any(String), scheduled_step_id: expect.any(String), label: 'Friendly reminder', scheduled_date: '2026-11-16', channel: 'email', status: 'sent', sent_at: '2026-11-16T09:00:05.000Z', held_reason: null },
      { step: 2, step_id: expect.any(String), scheduled_step_id: expect.any(String), label: 'Call', scheduled_date: '2026-11-23', channel: 'call', status: 'ready', sent_at: null, held_reason: null },
    ]);
  });

  it('shows the same signals and last touch in the list', async () => {
    const res = await get('?search=PB-1');
    expect(res.body.items[0].signals).toHaveLength(1);
    expect(res.body.items[0].last_touched_by).toBe('Alice Archer');
  });

  it('gives each listed invoice the date of its active pay-date prediction, null without one', async () => {
    const res = await get('?limit=50');
    const predicted = Object.fromEntries(res.body.items.map((i: { id: string; predicted_pay_date: string | null }) => [i.id, i.predicted_pay_date]));
    expect(predicted[progress]).toBe('2026-12-01');
    expect(predicted[plain]).toBeNull();
    expect(Object.values(predicted).filter((d) => d !== null)).toEqual(['2026-12-01']);
    expect((await get(`/${progress}`)).body.predicted_pay_date).toBe('2026-12-01');
  });

  it('leaves dunning_plan out without an active program, and shows closed invoices’ closing', async () => {
    const res = await get(`/${plain}`);
    expect(res.body).not.toHaveProperty('dunning_plan');
    expect(res.body).toMatchObject({ is_progress_invoice: false, parent_invoice: null, progress_percentage: null, customer_location: null, status: 'past_due_90p', aging_bucket: '91_over', signals: [] });
    w.engine.database.sqlite.prepare(`UPDATE sequence_enrollments SET status = 'completed' WHERE customer_id = ?`).run(globex);
    expect((await get(`/${progress}`)).body).not.toHaveProperty('dunning_plan');
    w.engine.database.sqlite.prepare(`UPDATE sequence_enrollments SET status = 'active' WHERE customer_id = ?`).run(globex);
  });

  it('summarises the company’s AR from the kept aggregates', async () => {
    const res = await get('/summary');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      company_id: w.company,
      as_of: TODAY,
      currency: 'USD',
      invoice_count: 5,
      open_invoice_count: 3,
      closed_invoice_count: 2,
      total_amount: 13080,
      total_open_balance: 12300,
      current_balance: 10000,
      overdue_balance: 2300,
      overdue_invoice_count: 2,
      average_days_past_due: 70,
      customer_count: 2,
      customers_with_open_balance: 2,
      customers_with_overdue: 2,
      status_counts: {
        current: 1,
        overdue: 2,
        past_due_1_30: 0,
        past_due_31_60: 1,
        past_due_61_90: 0,
        past_due_90p: 1,
        closed_paid: 1,
        closed_overpaid: 0,
        closed_credit_memo: 0,
        closed_written_off: 1,
      },
      status_balances: {
        current: 10000,
        overdue: 2300,
        past_due_1_30: 0,
        past_due_31_60: 2000,
        past_due_61_90: 0,
        past_due_90p: 300,
        closed_paid: 0,
        closed_overpaid: 0,
        closed_credit_memo: 0,
        closed_written_off: 0,
      },
      aging: {
        current: { invoice_count: 1, balance: 10000 },
        '1_30': { invoice_count: 0, balance: 0 },
        '31_60': { invoice_count: 1, balance: 2000 },
        '61_90': { invoice_count: 0, balance: 0 },
        '91_over': { invoice_count: 1, balance: 300 },
      },
    });
  });

  it('moves the summary with the clock, with no write in between', async () => {
    w.engine.clock.set('2026-12-13T12:00:00.000Z');
    try {
      const res = await get('/summary');
      expect(res.body).toMatchObject({ as_of: '2026-12-13', current_balance: 10000, overdue_balance: 2300, average_days_past_due: 90 });
      expect(res.body.aging).toMatchObject({ '31_60': { balance: 0 }, '61_90': { invoice_count: 1, balance: 2000 } });
      expect((await get(`/${progress}`)).body).toMatchObject({ status: 'past_due_61_90', aging_bucket: '61_90' });
    } finally {
      w.engine.clock.set(`${TODAY}T12:00:00.000Z`);
    }
  });

  it('gives another company’s summary only its own invoices', async () => {
    const res = await call(w.app, 'GET', `/api/companies/${w.other}/invoices/summary`, { token: w.token });
    expect(res.body).toMatchObject({ invoice_count: 0, total_open_balance: 0, customers_with_overdue: 0 });
  });
});
