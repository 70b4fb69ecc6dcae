import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DailyRow, heldForTheDay, sameLocalDay } from '../../core/sequences/daily-limit';
import { holdReason } from '../../core/sequences/queue';

const NY = 'America/New_York';
const TOKYO = 'Asia/Tokyo';
// 10:00 in New York on Nov 26 (15:00 UTC); already Nov 27 in Tokyo (00:00).
const NOW = '2026-11-26T15:00:00.000Z';

const row = (id: string, over: Partial<DailyRow> = {}): DailyRow => ({ id, customer_id: 'tri', step_type: 'reminder', timezone: NY, merged_into: null, ...over });

describe('sameLocalDay', () => {
  it("counts the sequence's day in its zone, not the UTC day", () => {
    // 01:00 UTC on Nov 26 is still Nov 25 in New York.
    expect(sameLocalDay('2026-11-26T01:00:00.000Z', NOW, NY)).toBe(false);
    expect(sameLocalDay('2026-11-26T05:00:00.000Z', NOW, NY)).toBe(true);
    expect(sameLocalDay('2026-11-26T14:59:00.000Z', NOW, TOKYO)).toBe(false);
  });
});

describe('heldForTheDay', () => {
  it('holds the email rows of a customer who already got an email today, whatever sent it', () => {
    const rows = [row('a'), row('b', { customer_id: 'green' }), row('c', { customer_id: 'acme' })];
    const sent = [
      { customer_id: 'tri', at: '2026-11-26T14:05:00.000Z' },
      // Yesterday in New York: tomorrow's limit only.
      { customer_id: 'green', at: '2026-11-26T02:00:00.000Z' },
    ];
    expect([...heldForTheDay(rows, sent, NOW)]).toEqual(['a']);
  });

  it('leaves calls and tasks alone: the limit is on emails', () => {
    const sent = [{ customer_id: 'tri', at: '2026-11-26T14:05:00.000Z' }];
    expect(heldForTheDay([row('call', { step_type: 'call' }), row('task', { step_type: 'task' })], sent, NOW).size).toBe(0);
  });

  it('holds a merged row with its leader, and leaves a row merged into a claimed email (not among the rows) with that email', () => {
    const rows = [row('lead'), row('m1', { merged_into: 'lead' }), row('m2', { merged_into: 'claimed' })];
    expect([...heldForTheDay(rows, [{ customer_id: 'tri', at: '2026-11-26T13:00:00.000Z' }], NOW)].sort()).toEqual(['lead', 'm1']);
    expect(heldForTheDay(rows, [], NOW).size).toBe(0);
  });

  it('never lets a customer get a second email on a day: over any rows and sends, no unheld email row has a customer emailed that day', () => {
    const customers = ['tri', 'green', 'acme'];
    const zones = [NY, TOKYO, 'UTC'];
    const anyRow = fc.record({
      customer_id: fc.constantFrom(...customers),
      step_type: fc.constantFrom('reminder' as const, 'call' as const, 'task' as const),
      timezone: fc.constantFrom(...zones),
    });
    const anySend = fc.record({ customer_id: fc.constantFrom(...customers), at: fc.integer({ min: -48, max: 0 }).map((h) => new Date(Date.parse(NOW) + h * 3_600_000).toISOString()) });
    fc.assert(
      fc.property(fc.array(anyRow, { maxLength: 12 }), fc.array(anySend, { maxLength: 6 }), (specs, sent) => {
        const rows = specs.map((s, i) => ({ ...s, id: `r${i}`, merged_into: null }));
        const held = heldForTheDay(rows, sent, NOW);
        for (const r of rows) {
          const emailedToday = sent.some((e) => e.customer_id === r.customer_id && sameLocalDay(e.at, NOW, r.timezone));
          expect(held.has(r.id)).toBe(r.step_type === 'reminder' && emailedToday);
        }
      }),
    );
  });
});

describe('holdReason for a due email step kept scheduled', () => {
  const base = { step_type: 'reminder' as const, status: 'scheduled' as const, scheduled_at: '2026-11-26T14:00:00.000Z', stop_reason: null, paused_kind: null, cancel_reason: null, timezone: NY };

  it('says it waits for tomorrow when a sequence emailed the customer today, else that a manual contact holds it', () => {
    expect(holdReason({ ...base, last_step_email_at: '2026-11-26T14:05:00.000Z' }, NOW)).toBe('emailed_today');
    expect(holdReason({ ...base, last_step_email_at: '2026-11-25T14:05:00.000Z' }, NOW)).toBe('recent_contact');
    expect(holdReason({ ...base, last_step_email_at: null }, NOW)).toBe('recent_contact');
    // Not due yet: nothing holds it.
    expect(holdReason({ ...base, scheduled_at: '2026-11-27T14:00:00.000Z', last_step_email_at: '2026-11-26T14:05:00.000Z' }, NOW)).toBeNull();
  });
});
