import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../core/ids';
import { call } from '../support/api';
import { addCustomer, addInvoice, addTeamMember, type InvoiceWorld, invoiceWorld, pastDue, TODAY } from '../support/invoice-fixtures';

/**
 * My work (attention=true), ar_owner=me, follow-up windows, days past due and the closed-invoice
 * balance rule, over the real HTTP app and a real SQLite file. TODAY is Monday 2026-11-23.
 */
describe('the invoice worklist', () => {
  let w: InvoiceWorld;
  let base: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    w = await invoiceWorld();
    base = `/api/companies/${w.company}/invoices`;
    const s = w.engine.database.sqlite;
    const me = await addTeamMember(w.engine, w.company, 'Dana Demo');
    s.prepare(`UPDATE team_members SET user_id = (SELECT id FROM users WHERE username = 'demo') WHERE id = ?`).run(me);
    const other = await addTeamMember(w.engine, w.company, 'Olive Other');
    const globex = await addCustomer(w.engine, w.company, { name: 'Globex', arOwnerId: me });
    const initech = await addCustomer(w.engine, w.company, { name: 'Initech', arOwnerId: other });
    const add = async (key: string, customer: string, dueDays: number, total: number, extra: Record<string, unknown> = {}) => {
      ids[key] = await addInvoice(w.engine, w.company, customer, { number: key, dueDate: pastDue(dueDays), total, ...extra });
    };
    await add('G-PAST-BIG', globex, 40, 5000);
    await add('G-PAST-SMALL', globex, 10, 300);
    await add('G-FOLLOW', globex, -10, 200);
    await add('G-PROMISE', globex, -5, 100);
    await add('G-CURRENT', globex, -20, 900);
    await add('G-CLOSED', globex, 100, 80, { closing: 'written_off' });
    await add('G-ANSWERED', globex, 5, 150);
    await add('G-WEEK', globex, -30, 60);
    await add('I-PAST', initech, 20, 7000);
    await add('I-DUNNING', initech, 3, 50);
    const now = `${TODAY}T12:00:00.000Z`;
    s.prepare('UPDATE invoices SET next_follow_up_date = ? WHERE id = ?').run(pastDue(1), ids['G-FOLLOW']);
    s.prepare('UPDATE invoices SET next_follow_up_date = ? WHERE id = ?').run(pastDue(-4), ids['G-WEEK']);
    const message = s.prepare(
      `INSERT INTO communications (id, company_id, customer_id, invoice_id, kind, direction, subject, occurred_at, created_at) VALUES (?, ?, ?, ?, 'email', ?, 'x', ?, ?)`,
    );
    message.run(newId(), w.company, globex, ids['G-PAST-SMALL'], 'outbound', '2026-11-18T09:00:00.000Z', now);
    message.run(newId(), w.company, globex, ids['G-PAST-SMALL'], 'inbound', '2026-11-22T09:00:00.000Z', now);
    message.run(newId(), w.company, globex, ids['G-ANSWERED'], 'inbound', '2026-11-21T09:00:00.000Z', now);
    message.run(newId(), w.company, globex, ids['G-ANSWERED'], 'outbound', '2026-11-22T10:00:00.000Z', now);
    s.prepare(
      `INSERT INTO actions (id, company_id, invoice_id, customer_id, action_type, status, description, metadata, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'task', 'proposed', 'Wait for the promised payment', ?, ?, ?)`,
    ).run(newId(), w.company, ids['G-PROMISE'], globex, JSON.stringify({ commitment_date: pastDue(2) }), now, now);
    const sequence = newId();
    const step = newId();
    const enrollment = newId();
    s.prepare(`INSERT INTO sequences (id, company_id, name, timezone, status, created_at, updated_at) VALUES (?, ?, 'Dunning', 'UTC', 'active', ?, ?)`).run(sequence, w.company, now, now);
    s.prepare(
      `INSERT INTO sequence_steps (id, company_id, sequence_id, position, step_type, label, offset_days, offset_time, created_at, updated_at)
       VALUES (?, ?, ?, 1, 'reminder', 'Second notice', 0, '09:00', ?, ?)`,
    ).run(step, w.company, sequence, now, now);
    s.prepare(`INSERT INTO sequence_enrollments (id, company_id, sequence_id, customer_id, status, start_date, created_at, updated_at) VALUES (?, ?, ?, ?, 'active', ?, ?, ?)`).run(
      enrollment, w.company, sequence, initech, TODAY, now, now,
    );
    s.prepare(
      `INSERT INTO scheduled_steps (id, company_id, enrollment_id, sequence_id, step_id, customer_id, scheduled_date, scheduled_at, status, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'scheduled', ?, ?)`,
    ).run(newId(), w.company, enrollment, sequence, step, initech, TODAY, `${TODAY}T09:00:00.000Z`, now, now);
  });

  afterAll(() => w?.dispose());

  const get = (query: string) => call(w.app, 'GET', `${base}?${query}`, { token: w.token });
  type Item = { invoice_number: string; attention?: Array<{ reason: string; label: string }>; days_past_due: number; balance: number; open_balance: number };
  const numbers = (body: { items: Item[] }) => body.items.map((i) => i.invoice_number);

  /** Every page of a query, following next_cursor. */
  async function walk(query: string, limit: number): Promise<string[]> {
    const out: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(`${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      out.push(...numbers(res.body));
      cursor = res.body.next_cursor;
    } while (cursor);
    return out;
  }

  it("lists my open invoices that need work, a reply or promise first, then by balance, with each row's reasons", async () => {
    const res = await get('attention=true&ar_owner=me');
    expect(res.status).toBe(200);
    // A follow-up date is routine: G-FOLLOW ranks by its balance, below the larger G-PAST-BIG.
    expect(numbers(res.body)).toEqual(['G-PAST-SMALL', 'G-PROMISE', 'G-PAST-BIG', 'G-FOLLOW', 'G-ANSWERED']);
    expect(res.body.count).toBe(5);
    expect(res.body.applied_filters).toMatchObject({ attention: true, sort: 'attention' });
    const reasons = Object.fromEntries((res.body.items as Item[]).map((i) => [i.invoice_number, i.attention!.map((a) => a.label)]));
    expect(reasons).toEqual({
      'G-PAST-SMALL': ['Reply received, not answered yet', '10 days past due'],
      'G-FOLLOW': ['Follow-up 1 day overdue'],
      'G-PROMISE': ['Promise to pay broken (due 2 days ago)'],
      'G-PAST-BIG': ['40 days past due'],
      'G-ANSWERED': ['5 days past due'],
    });
    expect(res.body.facets).toMatchObject({ current: 2, past_due_1_30: 2, past_due_31_60: 1, overdue: 3, closed_written_off: 0 });
  });

  it('takes the whole company one parameter away, with a customer-wide ready dunning step on its past-due invoices', async () => {
    const res = await get('attention=true');
    // The step is the customer's, so both of Initech's past-due invoices carry it; a ready step is
    // routine, so they rank by balance with the rest.
    expect(numbers(res.body)).toEqual(['G-PAST-SMALL', 'G-PROMISE', 'I-PAST', 'G-PAST-BIG', 'G-FOLLOW', 'G-ANSWERED', 'I-DUNNING']);
    expect(res.body.count).toBe(7);
    const dunning = (res.body.items as Item[]).find((i) => i.invoice_number === 'I-DUNNING')!;
    expect(dunning.attention!.map((a) => a.reason)).toEqual(['dunning_ready', 'past_due']);
    expect(dunning.attention![0].label).toBe('Dunning step ready: Second notice');
  });

  it('pages the worklist across its two tiers without repeating or skipping a row', async () => {
    const all = numbers((await get('attention=true')).body);
    for (const limit of [1, 2, 3]) expect(await walk('attention=true', limit)).toEqual(all);
  });

  it('narrows the worklist with a status chip and sorts it by any column', async () => {
    const current = await get('attention=true&ar_owner=me&status=current');
    expect(numbers(current.body)).toEqual(['G-PROMISE', 'G-FOLLOW']);
    expect(current.body.count).toBe(2);
    const byDays = await get('attention=true&ar_owner=me&sort=days_past_due&order=desc');
    expect(numbers(byDays.body)).toEqual(['G-PAST-BIG', 'G-PAST-SMALL', 'G-ANSWERED', 'G-PROMISE', 'G-FOLLOW']);
  });

  it('sorts by days past due both ways, closed invoices (0 days) after every open one, and reports them on each row', async () => {
    const res = await get('ar_owner=me&sort=days_past_due&order=desc&limit=100');
    const rows = res.body.items as Item[];
    expect(rows.map((r) => r.invoice_number)).toEqual(['G-PAST-BIG', 'G-PAST-SMALL', 'G-ANSWERED', 'G-PROMISE', 'G-FOLLOW', 'G-CURRENT', 'G-WEEK', 'G-CLOSED']);
    expect(await walk('ar_owner=me&sort=days_past_due_desc', 3)).toEqual(rows.map((r) => r.invoice_number));
    expect(Object.fromEntries(rows.map((r) => [r.invoice_number, r.days_past_due]))).toMatchObject({ 'G-CLOSED': 0, 'G-PAST-BIG': 40, 'G-FOLLOW': 0 });
    const asc = await walk('ar_owner=me&sort=days_past_due_asc', 3);
    expect(asc).toEqual([...rows.map((r) => r.invoice_number)].reverse());
  });

  it('applies the closed-invoice balance rule: a written-off invoice owes nothing', async () => {
    const res = await get('ar_owner=me&status=closed_written_off');
    expect(res.body.items).toEqual([expect.objectContaining({ invoice_number: 'G-CLOSED', balance: 0, open_balance: 0, balance_at_closing: 80 })]);
    const summary = await call(w.app, 'GET', `${base}/summary`, { token: w.token });
    expect(summary.body.status_balances.closed_written_off).toBe(0);
  });

  it('filters follow-ups that are overdue, due today or due this week', async () => {
    const s = w.engine.database.sqlite;
    s.prepare('UPDATE invoices SET next_follow_up_date = ? WHERE id = ?').run(TODAY, ids['G-CURRENT']);
    try {
      expect(numbers((await get('follow_up=overdue')).body)).toEqual(['G-FOLLOW']);
      expect(numbers((await get('follow_up=today')).body)).toEqual(['G-CURRENT']);
      expect(numbers((await get('follow_up=this_week&sort=due_date_asc')).body)).toEqual(['G-CURRENT', 'G-WEEK']);
      const both = await get('follow_up=overdue,today');
      expect(numbers(both.body).sort()).toEqual(['G-CURRENT', 'G-FOLLOW']);
      expect(both.body.count).toBe(2);
      expect(both.body.applied_filters.follow_up).toEqual(['overdue', 'today']);
      // A follow-up due today brings the invoice into My work.
      const mine = await get('attention=true&ar_owner=me&status=current');
      expect(numbers(mine.body)).toContain('G-CURRENT');
    } finally {
      s.prepare('UPDATE invoices SET next_follow_up_date = NULL WHERE id = ?').run(ids['G-CURRENT']);
    }
  });

  it('refuses orders that do not fit the query, and unknown follow-up windows, with a 400', async () => {
    for (const query of ['sort=attention', 'attention=true&group_by=customer&sort=attention', 'sort=overdue_balance', 'follow_up=someday', 'ar_owner=you']) {
      const res = await get(query);
      expect(res.status, query).toBe(400);
      expect(res.body.errors, query).toBeDefined();
    }
  });

  it('groups customers by overdue balance, largest first', async () => {
    const res = await get('group_by=customer&sort=overdue_balance&order=desc');
    expect(res.status).toBe(200);
    expect((res.body.items as Array<{ customer_name: string; overdue_balance: number }>).map((g) => [g.customer_name, g.overdue_balance])).toEqual([
      ['Initech', 7050],
      ['Globex', 5450],
    ]);
  });

  it('owns nothing for a caller outside the team', async () => {
    const res = await call(w.app, 'GET', `${base}?attention=true&ar_owner=me`, { token: w.viewerToken });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(0);
  });
});
