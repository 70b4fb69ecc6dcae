import { describe, expect, it } from 'vitest';
import { isUuid } from '../../core/ids';
import { invoiceTotals, SETTLED_STATUSES } from '../../core/payments/balance';
import { addDays } from '../../core/dates';
import { Calendar, zonedTimeToUtc } from '../../core/seed/calendar';
import { forcedPositions, labelsFor } from '../../core/seed/ledger';
import { businessName, CATERING_CUSTOMERS, domainOf, personName, SUPPLY_CUSTOMERS } from '../../core/seed/names';
import { FORCED, type ForcedOutcome, PAYERS, planInvoice } from '../../core/seed/plan';
import { createRng, idFactory } from '../../core/seed/random';

describe('seeded randomness', () => {
  it('gives the same stream for the same seed and stream, and another for another', () => {
    const draw = (seed: number, stream: number) => {
      const rng = createRng(seed, stream);
      return Array.from({ length: 20 }, () => rng.uint32());
    };
    expect(draw(7, 1)).toEqual(draw(7, 1));
    expect(draw(7, 1)).not.toEqual(draw(8, 1));
    expect(draw(7, 1)).not.toEqual(draw(7, 2));
  });

  it('keeps int() within its bounds, both included, and spreads over them', () => {
    const rng = createRng(3);
    const seen = new Set<number>();
    for (let i = 0; i < 5000; i++) {
      const v = rng.int(-3, 4);
      expect(v).toBeGreaterThanOrEqual(-3);
      expect(v).toBeLessThanOrEqual(4);
      seen.add(v);
    }
    expect(seen.size).toBe(8);
  });

  it('picks by weight', () => {
    const rng = createRng(5);
    const counts = [0, 0, 0];
    for (let i = 0; i < 10_000; i++) counts[rng.weighted([0.7, 0.3, 0])]++;
    expect(counts[2]).toBe(0);
    expect(counts[0] / 10_000).toBeGreaterThan(0.66);
    expect(counts[0] / 10_000).toBeLessThan(0.74);
  });
});

describe('deterministic ids', () => {
  const base = Date.UTC(2025, 0, 1);

  it('are UUIDv7-shaped, unique, in creation order, and repeat for the same seed', () => {
    const a = idFactory(42, base);
    const ids = Array.from({ length: 10_000 }, () => a());
    for (const id of ids.slice(0, 50)) {
      expect(isUuid(id)).toBe(true);
      expect(id[14]).toBe('7');
      expect('89ab').toContain(id[19]);
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    const b = idFactory(42, base);
    expect(Array.from({ length: 10_000 }, () => b())).toEqual(ids);
    expect(idFactory(43, base)()).not.toBe(ids[0]);
  });

  it('resume at a position, so a worker and the caller share one sequence', () => {
    const whole = idFactory(42, base);
    const ids = Array.from({ length: 9_000 }, () => whole());
    const here = idFactory(42, base);
    const first = Array.from({ length: 5_000 }, () => here());
    const there = idFactory(42, base, here.drawn);
    const middle = Array.from({ length: 3_000 }, () => there());
    here.skip(there.drawn - first.length);
    expect([...first, ...middle, ...Array.from({ length: 1_000 }, () => here())]).toEqual(ids);
    expect(here.drawn).toBe(9_000);
  });

  it('carry the base time as their UUIDv7 timestamp', () => {
    const id = idFactory(1, base)();
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(base);
  });
});

describe('invoice plans', () => {
  const payer = (profile: keyof typeof PAYERS) => ({ lateMean: (PAYERS[profile].late[0] + PAYERS[profile].late[1]) / 2, defaultP: PAYERS[profile].defaultP });

  it('never dates a payment before the invoice or after today, and closes consistently with the balance rule', () => {
    const rng = createRng(11);
    const seen = new Set<string>();
    for (let n = 0; n < 20_000; n++) {
      const invoiceDay = -rng.int(1, 450);
      const dueDay = invoiceDay + (rng.chance(0.5) ? 30 : 45);
      const total = rng.int(18_000, 4_800_000);
      const profile = (['prompt', 'slow', 'late', 'problem'] as const)[n % 4];
      const plan = planInvoice(rng, { invoiceDay, dueDay, total, ...payer(profile) });
      for (const p of plan.payments) {
        expect(p.day).toBeGreaterThanOrEqual(invoiceDay);
        expect(p.day).toBeLessThanOrEqual(0);
        expect(p.amount).toBeGreaterThan(0);
        if (p.voidedDay !== null) expect(p.status).toBe('VOIDED');
      }
      const settled = plan.payments.filter((p) => SETTLED_STATUSES.includes(p.status));
      const paid = settled.reduce((s, p) => s + p.amount, 0);
      const totals = invoiceTotals(total, plan.closing, plan.closedDay === null ? null : String(plan.closedDay), settled.map((p) => ({ amount: p.amount, payment_date: addDays('2026-01-01', p.day) })));
      const state = totals.closing_reason ?? 'open';
      seen.add(state);
      if (plan.closing) {
        expect(plan.closedDay).toBeLessThanOrEqual(0);
        for (const p of settled) expect(p.day).toBeLessThanOrEqual(plan.closedDay!);
        expect(paid).toBeLessThan(total);
      }
      if (state === 'open') expect(paid).toBeLessThan(total);
      if (state === 'paid') expect(plan.payments.at(-1)!.status).toBe('PAID');
      if (plan.disputed || plan.promisedDay !== null || plan.escalate) expect(state).toBe('open');
      if (plan.promisedDay !== null) {
        expect(plan.promisedDay).toBeGreaterThan(0);
        expect(dueDay).toBeLessThan(0);
      }
      if (plan.payments.some((x) => x.status === 'PENDING' || x.status === 'FAILED')) expect(state).toBe('open');
    }
    expect([...seen].sort()).toEqual(['credit_memo', 'open', 'overpaid', 'paid', 'written_off']);
  });

  it('produces each forced outcome, whatever the payer', () => {
    const expected: Record<ForcedOutcome, string> = {
      open: 'open',
      pending: 'open',
      partial_failed: 'open',
      paid: 'paid',
      overpaid: 'overpaid',
      credit_memo: 'credit_memo',
      written_off: 'written_off',
    };
    for (const f of FORCED) {
      const rng = createRng(1);
      const invoiceDay = f.dueDay - 30;
      const plan = planInvoice(rng, { invoiceDay, dueDay: f.dueDay, total: 100_000, ...payer('problem'), force: f.force });
      const settled = plan.payments.filter((p) => SETTLED_STATUSES.includes(p.status)).map((p) => ({ amount: p.amount, payment_date: addDays('2026-01-01', p.day) }));
      const totals = invoiceTotals(100_000, plan.closing, plan.closing ? '2026-01-01' : null, settled);
      expect(totals.closing_reason ?? 'open').toBe(expected[f.force]);
      for (const p of plan.payments) {
        expect(p.day).toBeGreaterThanOrEqual(invoiceDay);
        expect(p.day).toBeLessThanOrEqual(0);
      }
    }
  });

  it('places the forced outcomes at distinct positions of a small ledger, and none in a tiny one', () => {
    const positions = forcedPositions(40, 450);
    expect(positions.size).toBe(FORCED.length);
    for (const at of positions.keys()) expect(at).toBeGreaterThanOrEqual(0);
    expect(Math.max(...positions.keys())).toBeLessThan(40);
    expect(forcedPositions(10, 450).size).toBe(0);
  });

  it('labels only open invoices, each by its story', () => {
    const rng = createRng(2);
    const base = { payments: [], closing: null, closedDay: null, disputed: false, promisedDay: null, escalate: false };
    expect(labelsFor(rng, { ...base, disputed: true }, false, -10, true)).toEqual([]);
    expect(labelsFor(rng, { ...base, disputed: true }, true, -10, false)).toEqual(['disputed']);
    expect(labelsFor(rng, { ...base, promisedDay: 4 }, true, -10, true)).toEqual(['promise', 'vip']);
  });
});

describe('names', () => {
  it('composes distinct business names for tens of thousands of customers', () => {
    const names = new Set(Array.from({ length: 50_000 }, (_, i) => businessName(i).name));
    expect(names.size).toBe(50_000);
    expect(businessName(3).name).toMatch(/^[A-Z][A-Za-z' &.-]+$/);
    const people = new Set(Array.from({ length: 5_000 }, (_, i) => `${personName(i).first} ${personName(i).last}`));
    expect(people.size).toBe(5_000);
  });

  it('keeps every email domain under example.com', () => {
    expect(domainOf('Hartwell & Finch LLP')).toBe('hartwell-and-finch-llp.example.com');
    expect(domainOf('Cascade Builders Inc.')).toBe('cascade-builders.example.com');
  });

  it('has demo customers enough for the first company, companies and persons both', () => {
    expect(SUPPLY_CUSTOMERS.length).toBeGreaterThanOrEqual(40);
    expect(new Set(SUPPLY_CUSTOMERS.map((c) => c.name)).size).toBe(SUPPLY_CUSTOMERS.length);
    expect(SUPPLY_CUSTOMERS.some((c) => c.kind === 'person')).toBe(true);
    expect(CATERING_CUSTOMERS).toHaveLength(8);
  });
});

describe('calendar', () => {
  it('turns day numbers into dates and timestamps relative to today', () => {
    const cal = new Calendar('2026-03-01');
    expect(cal.date(0)).toBe('2026-03-01');
    expect(cal.date(-1)).toBe('2026-02-28');
    expect(cal.stamp(2, 9 * 60 + 5)).toBe('2026-03-03T09:05:00.000Z');
    expect(() => cal.date(5000)).toThrow(RangeError);
  });

  it('converts a New York wall-clock time to UTC across daylight saving time', () => {
    expect(zonedTimeToUtc('2026-01-15', '09:00', 'America/New_York')).toBe('2026-01-15T14:00:00.000Z');
    expect(zonedTimeToUtc('2026-07-15', '09:00', 'America/New_York')).toBe('2026-07-15T13:00:00.000Z');
    expect(zonedTimeToUtc('2026-07-15', '10:30', 'UTC')).toBe('2026-07-15T10:30:00.000Z');
  });
});
