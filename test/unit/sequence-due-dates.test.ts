import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays } from '../../core/dates';
import { dueOffsetWords, dueRowIds, invoiceOpen, invoiceSchedule, leavingRowIds, mergeAssignments } from '../../core/sequences/due-dates';
import { zonedToUtc } from '../../core/zones';

const ZONE = 'America/New_York';

describe('invoiceSchedule', () => {
  const steps = [
    { id: 'before', due_offset_days: -3, offset_time: '09:00' },
    { id: 'on', due_offset_days: 0, offset_time: '10:00' },
    { id: 'after', due_offset_days: 7, offset_time: '09:00' },
  ];

  it('times each step from the due date, in the zone', () => {
    expect(invoiceSchedule('2026-12-10', steps, ZONE, '2026-11-26')).toEqual([
      { step_id: 'before', scheduled_date: '2026-12-07', scheduled_at: '2026-12-07T14:00:00.000Z' },
      { step_id: 'on', scheduled_date: '2026-12-10', scheduled_at: '2026-12-10T15:00:00.000Z' },
      { step_id: 'after', scheduled_date: '2026-12-17', scheduled_at: '2026-12-17T14:00:00.000Z' },
    ]);
  });

  it('runs only the latest passed step on the join day, and none when a step of its own falls on that day', () => {
    expect(invoiceSchedule('2026-11-20', steps, ZONE, '2026-11-26')).toEqual([
      { step_id: 'on', scheduled_date: '2026-11-26', scheduled_at: '2026-11-26T15:00:00.000Z' },
      { step_id: 'after', scheduled_date: '2026-11-27', scheduled_at: '2026-11-27T14:00:00.000Z' },
    ]);
    expect(invoiceSchedule('2026-11-29', steps, ZONE, '2026-11-26').map((s) => [s.step_id, s.scheduled_date])).toEqual([
      ['before', '2026-11-26'],
      ['on', '2026-11-29'],
      ['after', '2026-12-06'],
    ]);
  });

  it('never schedules a step twice or before the join day, and keeps every future step at due date + offset', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -60, max: 60 }),
        fc.uniqueArray(fc.integer({ min: -30, max: 30 }), { minLength: 1, maxLength: 6 }),
        (dueShift, offsets) => {
          const join = '2026-11-26';
          const due = addDays(join, dueShift);
          const list = offsets.map((o, i) => ({ id: `s${i}`, due_offset_days: o, offset_time: '09:00' }));
          const plan = invoiceSchedule(due, list, ZONE, join);
          expect(new Set(plan.map((p) => p.step_id)).size).toBe(plan.length);
          for (const p of plan) expect(p.scheduled_date >= join).toBe(true);
          for (const s of list) {
            const day = addDays(due, s.due_offset_days);
            if (day >= join) expect(plan.find((p) => p.step_id === s.id)?.scheduled_date).toBe(day);
          }
          expect(plan.filter((p) => p.scheduled_date === join).length).toBeGreaterThanOrEqual(list.some((s) => addDays(due, s.due_offset_days) <= join) ? 1 : 0);
        },
      ),
    );
  });
});

describe('the small rules', () => {
  it('says the offset in words', () => {
    expect(dueOffsetWords(-3)).toBe('3 days before due');
    expect(dueOffsetWords(-1)).toBe('1 day before due');
    expect(dueOffsetWords(0)).toBe('on the due date');
    expect(dueOffsetWords(7)).toBe('7 days after due');
  });

  it('an invoice is open while it has no closing reason and a balance', () => {
    expect(invoiceOpen({ closing_reason: null, balance: 1 })).toBe(true);
    expect(invoiceOpen({ closing_reason: 'paid', balance: 0 })).toBe(false);
    expect(invoiceOpen({ closing_reason: 'written_off', balance: 500 })).toBe(false);
    expect(invoiceOpen({ closing_reason: null, balance: 0 })).toBe(false);
  });

  it('a day of one customer becomes ready together once its earliest row is due; a held row waits', () => {
    const row = (id: string, at: string, extra: Partial<Parameters<typeof dueRowIds>[0][number]> = {}) => ({
      id,
      enrollment_id: 'e1',
      scheduled_date: at.slice(0, 10),
      scheduled_at: at,
      step_type: 'reminder',
      held: false,
      ...extra,
    });
    const rows = [row('a', '2026-11-26T14:00:00.000Z'), row('b', '2026-11-26T19:00:00.000Z'), row('c', '2026-11-27T14:00:00.000Z'), row('d', '2026-11-26T19:00:00.000Z', { enrollment_id: 'e2' })];
    expect(dueRowIds(rows, '2026-11-26T13:59:59.000Z')).toEqual([]);
    expect(dueRowIds(rows, '2026-11-26T14:00:00.000Z')).toEqual(['a', 'b']);
    expect(dueRowIds([...rows.slice(0, 1).map((r) => ({ ...r, held: true })), ...rows.slice(1)], '2026-11-26T14:00:00.000Z')).toEqual([]);
  });

  it('a claimed row keeps its group; an edited row leads; else the step furthest past due', () => {
    const r = (id: string, offset: number, extra: Partial<Parameters<typeof mergeAssignments>[0][number]> = {}) => ({
      id,
      enrollment_id: 'e1',
      scheduled_date: '2026-11-26',
      step_type: 'reminder',
      due_offset_days: offset,
      merged_into: null,
      claimed: false,
      edited: false,
      ...extra,
    });
    expect(Object.fromEntries(mergeAssignments([r('a', -3), r('b', 7), r('c', 0)]))).toEqual({ a: 'b', b: null, c: 'b' });
    expect(Object.fromEntries(mergeAssignments([r('a', -3, { edited: true }), r('b', 7)]))).toEqual({ a: null, b: 'a' });
    expect(Object.fromEntries(mergeAssignments([r('a', -3, { claimed: true }), r('b', 7), r('c', 0, { merged_into: 'a' })]))).toEqual({ a: null, b: null, c: 'a' });
    expect(leavingRowIds([{ id: 'x', invoice_open: false, claimed: false }, { id: 'y', invoice_open: false, claimed: true }, { id: 'z', invoice_open: true, claimed: false }])).toEqual(['x']);
  });
});

/**
 * The rules run together over random books, days and collector habits, as the engine runs them on
 * every promotion (leave, join, promote, merge) with sends at random moments.
 */
describe('due-date chasing over random books', () => {
  interface Inv {
    id: string;
    customer: string;
    due: string;
    opensOn: number;
    closesOn: number | null;
  }
  interface Row {
    id: string;
    enrollment_id: string;
    invoice: string;
    step_id: string;
    step_type: string;
    due_offset_days: number;
    scheduled_date: string;
    scheduled_at: string;
    status: 'scheduled' | 'ready' | 'sent' | 'cancelled';
    merged_into: string | null;
  }
  const START = '2026-11-01';
  const DAYS = 45;

  const book = fc.record({
    steps: fc.uniqueArray(
      fc.record({ due_offset_days: fc.integer({ min: -7, max: 14 }), hour: fc.integer({ min: 6, max: 18 }), step_type: fc.constantFrom('reminder', 'reminder', 'call') }),
      { minLength: 1, maxLength: 5, selector: (s) => s.due_offset_days },
    ),
    invoices: fc.array(
      fc.record({ customer: fc.constantFrom('c1', 'c2', 'c3'), dueDay: fc.integer({ min: -10, max: 40 }), opensOn: fc.integer({ min: 0, max: 30 }), closesAfter: fc.option(fc.integer({ min: 0, max: 30 })) }),
      { minLength: 1, maxLength: 12 },
    ),
    // Hours of the day at which the engine runs (a queue read or a send) and whether the collector sends then.
    runs: fc.array(fc.record({ hour: fc.integer({ min: 0, max: 23 }), send: fc.boolean() }), { minLength: 1, maxLength: 4 }),
  });

  it('never sends a step twice, never for a closed invoice, and one email per customer, day and step type', () => {
    fc.assert(
      fc.property(book, ({ steps: stepSpecs, invoices: invSpecs, runs }) => {
        const steps = stepSpecs.map((s, i) => ({ id: `s${i}`, due_offset_days: s.due_offset_days, offset_time: `${String(s.hour).padStart(2, '0')}:00`, step_type: s.step_type }));
        const invoices: Inv[] = invSpecs.map((v, i) => ({
          id: `i${i}`,
          customer: v.customer,
          due: addDays(START, v.dueDay),
          opensOn: v.opensOn,
          closesOn: v.closesAfter === null ? null : v.opensOn + v.closesAfter,
        }));
        const rows: Row[] = [];
        const emails: Array<{ run: number; customer: string; day: string; step_type: string; invoices: string[]; leader: Row; members: Row[] }> = [];
        let next = 0;
        let runNo = 0;
        const sortedRuns = [...runs].sort((a, b) => a.hour - b.hour);
        for (let d = 0; d < DAYS; d++) {
          const day = addDays(START, d);
          const open = (inv: Inv) => inv.opensOn <= d && (inv.closesOn === null || inv.closesOn > d);
          for (const run of sortedRuns) {
            runNo += 1;
            const now = zonedToUtc(day, `${String(run.hour).padStart(2, '0')}:30`, ZONE);
            // Leave.
            const byInv = new Map(invoices.map((i) => [i.id, i]));
            const pending = rows.filter((r) => r.status === 'scheduled' || r.status === 'ready');
            for (const id of leavingRowIds(pending.map((r) => ({ id: r.id, invoice_open: open(byInv.get(r.invoice)!), claimed: false })))) {
              const r = rows.find((x) => x.id === id)!;
              r.status = 'cancelled';
              r.merged_into = null;
            }
            // Join.
            for (const inv of invoices.filter((i) => open(i) && !rows.some((r) => r.invoice === i.id))) {
              for (const p of invoiceSchedule(inv.due, steps, ZONE, day)) {
                const step = steps.find((s) => s.id === p.step_id)!;
                rows.push({ id: `r${String(next++).padStart(5, '0')}`, enrollment_id: inv.customer, invoice: inv.id, step_type: step.step_type, due_offset_days: step.due_offset_days, ...p, status: 'scheduled', merged_into: null });
              }
            }
            // Promote.
            const scheduled = rows.filter((r) => r.status === 'scheduled');
            for (const id of dueRowIds(scheduled.map((r) => ({ ...r, held: false })), now)) rows.find((r) => r.id === id)!.status = 'ready';
            // Merge.
            const ready = rows.filter((r) => r.status === 'ready');
            const assigned = mergeAssignments(ready.map((r) => ({ ...r, claimed: false, edited: false })));
            for (const r of ready) r.merged_into = assigned.get(r.id) ?? null;
            // Send every leader (members share its email).
            if (!run.send) continue;
            for (const leader of ready.filter((r) => r.merged_into === null)) {
              const members = ready.filter((r) => r.merged_into === leader.id);
              for (const r of [leader, ...members]) r.status = 'sent';
              emails.push({ run: runNo, customer: leader.enrollment_id, day, step_type: leader.step_type, invoices: [leader, ...members].map((r) => r.invoice), leader, members });
              for (const inv of [leader, ...members].map((r) => byInv.get(r.invoice)!)) expect(open(inv), `${inv.id} closed on day ${inv.closesOn} was sent on day ${d}`).toBe(true);
            }
          }
        }
        const sent = emails.flatMap((e) => [e.leader, ...e.members].map((r) => `${r.invoice}|${r.step_id}`));
        expect(new Set(sent).size).toBe(sent.length);
        // Only the invoices' own rows: each sent row is one planned (invoice, step) of a schedule.
        expect(rows.filter((r) => r.status === 'sent').length).toBe(sent.length);
        // Steps that fall on the same day for one customer go out in one email: every (customer, step type, day) is in exactly one.
        const emailsOf = new Map<string, Set<number>>();
        emails.forEach((e, n) => {
          for (const r of [e.leader, ...e.members]) {
            const key = `${r.enrollment_id}|${r.step_type}|${r.scheduled_date}`;
            emailsOf.set(key, (emailsOf.get(key) ?? new Set()).add(n));
          }
        });
        for (const [key, set] of emailsOf) expect(set.size, `${key} went out in ${set.size} emails`).toBe(1);
        // And whatever is ready for a customer goes out as one email of each step type.
        const perSend = emails.map((e) => `${e.run}|${e.customer}|${e.step_type}`);
        expect(new Set(perSend).size).toBe(perSend.length);
      }),
      { numRuns: 200 },
    );
  });
});
