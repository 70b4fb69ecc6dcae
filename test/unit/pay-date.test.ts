import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays } from '../../core/dates';
import { backtest, replay, replayConditional } from '../../core/intelligence/backtest';
import type { HistoryInvoice } from '../../core/intelligence/facts';
import { type CensoredAge, conditionalPrediction, portfolioSurvival, reachedAge } from '../../core/intelligence/conditional';
import { censoredEffect, PayDateModel, withinDeviation } from '../../core/intelligence/pay-date';

const obs = (customerId: string, dueDate: string, daysLate: number, disputed = false, method: string | null = null, billChannel: string | null = null) => ({
  customerId,
  dueDate,
  settledDate: addDays(dueDate, daysLate),
  disputed,
  method,
  billChannel,
});

describe('the pay-date model', () => {
  it('predicts nothing before anything was settled', () => {
    expect(new PayDateModel().predict({ customerId: 'a', dueDate: '2026-01-31', disputed: false, asOf: '2026-01-01' })).toBeNull();
  });

  it('gives a new customer the portfolio, and a customer with history mostly its own behaviour', () => {
    const model = new PayDateModel();
    for (let i = 0; i < 20; i++) model.observe(obs('slow', addDays('2025-01-31', i * 7), 20));
    for (let i = 0; i < 20; i++) model.observe(obs('fast', addDays('2025-01-31', i * 7), -5));
    const q = (customerId: string) => model.predict({ customerId, dueDate: '2025-08-31', disputed: false, asOf: '2025-08-01' })!;
    expect(q('slow').predicted_date).toBe('2025-09-20');
    expect(q('fast').predicted_date).toBe('2025-08-26');
    expect(q('slow').customer_observations).toBe(20);
    const fresh = q('new');
    expect(fresh.customer_observations).toBe(0);
    expect(['2025-08-26', '2025-09-20']).toContain(fresh.predicted_date);
    expect(fresh.interval).toEqual({ low: '2025-08-26', high: '2025-09-20' });
  });

  it('weights recent behaviour: of two customers with the same settlements, the one that turned slow is predicted later', () => {
    const model = new PayDateModel();
    for (let c = 0; c < 4; c++) for (let i = 0; i < 10; i++) model.observe(obs(`steady${c}`, addDays('2024-01-31', i * 50), c * 10));
    // Six settlements in 2023 and six in 2025, the same values the other way round.
    const dueOf = (i: number) => (i < 6 ? addDays('2023-01-31', i * 30) : addDays('2025-01-31', (i - 6) * 30));
    for (let i = 0; i < 12; i++) model.observe(obs('slowed', dueOf(i), i < 6 ? 0 : 20));
    for (let i = 0; i < 12; i++) model.observe(obs('sped-up', dueOf(i), i < 6 ? 20 : 0));
    const q = (customerId: string) => model.predict({ customerId, dueDate: '2025-09-30', disputed: false, asOf: '2025-08-15' })!.days_late;
    expect(q('slowed')).toBeGreaterThanOrEqual(12);
    expect(q('sped-up')).toBeLessThanOrEqual(6);
  });

  it("forgetting a customer and learning its history again leaves the model as it was (the incremental refresh's path)", () => {
    const model = new PayDateModel();
    const history = (customerId: string) =>
      Array.from({ length: 13 }, (_, i) => obs(customerId, addDays('2025-01-31', i * 9), (i * 7) % 19 - 4, i % 5 === 0, i % 2 ? 'CHECK' : 'ACH', i % 3 ? 'paper' : null));
    for (const c of ['a', 'b', 'c']) for (const o of history(c)) model.observe(o);
    const query = { customerId: 'b', dueDate: '2025-07-31', disputed: false, billChannel: 'paper', asOf: '2025-07-01' };
    const before = { prediction: model.predict(query), daysLate: model.daysLateOf('b') };
    const settled = history('b').sort((x, y) => x.settledDate.localeCompare(y.settledDate));
    expect(before.daysLate.map((d) => [d.daysLate, d.disputed])).toEqual(settled.map((o) => [(Date.parse(o.settledDate) - Date.parse(o.dueDate)) / 86_400_000, o.disputed]));
    model.forget('b');
    expect(model.customerObservationCount('b')).toBe(0);
    expect(model.predict(query)!.customer_observations).toBe(0);
    for (const o of history('b')) model.observe(o);
    expect({ prediction: model.predict(query), daysLate: model.daysLateOf('b') }).toEqual(before);
  });

  it('adds the portfolio dispute shift to a disputed invoice', () => {
    const model = new PayDateModel();
    for (let i = 0; i < 30; i++) model.observe(obs(`p${i % 3}`, addDays('2025-01-31', i), 0));
    for (let i = 0; i < 15; i++) model.observe(obs(`p${i % 3}`, addDays('2025-01-31', i), 12, true));
    const plain = model.predict({ customerId: 'p0', dueDate: '2025-06-30', disputed: false, asOf: '2025-06-01' })!;
    const disputed = model.predict({ customerId: 'p0', dueDate: '2025-06-30', disputed: true, asOf: '2025-06-01' })!;
    expect(plain.dispute_shift_days).toBe(12);
    expect(plain.days_late).toBe(0);
    expect(disputed.days_late).toBe(12);
  });

  it('learns no shift from how settled invoices were paid: the method is known only once paid', () => {
    const model = new PayDateModel();
    for (let i = 0; i < 20; i++) model.observe(obs(`x${i % 4}`, addDays('2025-01-31', i), 10, false, 'CHECK'));
    for (let i = 0; i < 20; i++) model.observe(obs(`y${i % 4}`, addDays('2025-01-31', i), 0, false, 'ELECTRONIC'));
    for (let i = 0; i < 6; i++) model.observe(obs('switcher', addDays('2025-01-31', i * 20), 10, false, 'CHECK'));
    model.observe(obs('switcher', '2025-06-01', 0, false, 'ELECTRONIC'));
    const p = model.predict({ customerId: 'switcher', dueDate: '2025-07-31', disputed: false, asOf: '2025-07-01' })!;
    expect(p.channel_shift_days).toBe(0);
    // Its own history (six settlements 10 days late, one on time) speaks, not its last method.
    expect(p.days_late).toBeGreaterThanOrEqual(7);
  });

  it("moves an invoice by the shift of how its own bill was sent, whatever the customer paid with last", () => {
    const model = new PayDateModel();
    for (let i = 0; i < 40; i++) model.observe(obs(`p${i % 8}`, addDays('2025-01-31', i), 12, false, 'CHECK', 'paper'));
    for (let i = 0; i < 40; i++) model.observe(obs(`e${i % 8}`, addDays('2025-01-31', i), -4, false, 'ELECTRONIC', 'electronic'));
    // A customer billed on paper for a year, then switched to electronic bills: its next invoices
    // are sent electronically although every payment it made so far settled a paper bill.
    for (let i = 0; i < 8; i++) model.observe(obs('switched', addDays('2025-01-31', i * 30), 12, false, 'CHECK', 'paper'));
    const query = { customerId: 'switched', dueDate: '2025-10-31', disputed: false, asOf: '2025-10-01' };
    const electronic = model.predict({ ...query, billChannel: 'electronic' })!;
    const paper = model.predict({ ...query, billChannel: 'paper' })!;
    expect(paper.channel_shift_days - electronic.channel_shift_days).toBeCloseTo(16, 5);
    expect(electronic.days_late).toBe(-4);
    expect(paper.days_late).toBe(12);
    // Without a bill channel, the invoice gets the shift of how the customer paid last.
    expect(model.predict(query)!.channel_shift_days).toBe(0);
  });

  it('shrinks a customer with little history toward the portfolio, by the measured within/between spread', () => {
    const model = new PayDateModel();
    // Twenty customers, each steady around its own level (-10 to +9 days), one day of noise.
    for (let c = 0; c < 20; c++) for (let i = 0; i < 10; i++) model.observe(obs(`c${c}`, addDays('2025-01-31', i * 10), c - 10 + (i % 2)));
    model.observe(obs('one', '2025-03-31', 30));
    const one = model.predict({ customerId: 'one', dueDate: '2025-06-30', disputed: false, asOf: '2025-06-01' })!;
    const steady = model.predict({ customerId: 'c19', dueDate: '2025-06-30', disputed: false, asOf: '2025-06-01' })!;
    // Customers differ far more than an invoice varies around its customer: one settlement is
    // already most of the evidence, and ten leave almost nothing to the portfolio.
    expect(one.customer_weight_share).toBeGreaterThan(0.9);
    expect(one.days_late).toBeGreaterThan(25);
    expect(steady.customer_weight_share).toBeGreaterThan(0.99);
    expect(Math.abs(steady.days_late - 9)).toBeLessThanOrEqual(1);
  });

  it("counts a customer's invoices open past due at the moment as at least that late", () => {
    const model = new PayDateModel();
    for (let i = 0; i < 20; i++) model.observe(obs(`p${i % 4}`, addDays('2025-01-31', i), -2));
    model.observe(obs('c', '2025-05-31', -2));
    const query = { customerId: 'c', dueDate: '2025-07-31', disputed: false, asOf: '2025-07-01' };
    expect(model.predict(query)!.days_late).toBe(-2);
    // Two invoices still open, 25 and 15 days past due, and one not yet due (says nothing).
    const overdue = [
      { dueDate: '2025-06-06', disputed: false },
      { dueDate: '2025-06-16', disputed: false },
      { dueDate: '2025-07-20', disputed: false },
    ];
    const behind = model.predict({ ...query, overdue })!;
    // Predicted late, where its one settlement (2 days early) alone says early.
    expect(behind.days_late).toBeGreaterThanOrEqual(8);
    expect(behind.customer_observations).toBe(1);
  });

  it('reads an overdue invoice as a lower bound: it lifts a customer only when later than the customer itself', () => {
    // Three settlements at residual 40 (sum 120), k = 1: alone, 30.
    expect(censoredEffect(120, 3, 1, [])).toBeCloseTo(30, 9);
    // Open at 5 and 20 days past its habits: "at least 5", "at least 20" say nothing new.
    expect(censoredEffect(120, 3, 1, [5, 20])).toBeCloseTo(30, 9);
    // Counted as observations, they would have pulled it to 145 / 6.
    expect(censoredEffect(120, 3, 1, [5, 20])).toBeGreaterThan(145 / 6);
    // Open at 90: it counts at 90, the one at 5 at the effect: e = (120 + 90 + e) / 6, e = 42.
    expect(censoredEffect(120, 3, 1, [5, 90])).toBeCloseTo(42, 9);
    // No history and no shrinkage: the bounds alone (the largest, as every other counts at the effect).
    expect(censoredEffect(0, 0, 0, [12, 3])).toBeCloseTo(12, 9);
    expect(censoredEffect(0, 0, 0, [])).toBe(0);
  });

  it('the censored effect is the fixed point, and never falls when a bound rises (random cases)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -50, max: 50, noNaN: true }),
        fc.double({ min: 0, max: 20, noNaN: true }),
        fc.double({ min: 0.01, max: 5, noNaN: true }),
        fc.array(fc.double({ min: -100, max: 200, noNaN: true }), { maxLength: 12 }),
        fc.nat({ max: 11 }),
        (mean, weight, k, bounds, which) => {
          const sum = mean * weight;
          const e = censoredEffect(sum, weight, k, bounds);
          const rhs = (sum + bounds.reduce((s, b) => s + Math.max(b, e), 0)) / (weight + k + bounds.length);
          expect(e).toBeCloseTo(rhs, 6);
          if (bounds.length) {
            const raised = bounds.map((b, i) => (i === which % bounds.length ? b + 30 : b));
            expect(censoredEffect(sum, weight, k, raised)).toBeGreaterThanOrEqual(e - 1e-9);
          }
        },
      ),
    );
  });

  it("measures an invoice's noise around its own customer: a deviation is scaled for the mean that includes it, in half days", () => {
    // Three settlements 0, 3 and 9 days late (mean 4): deviations -4, -1, 5, times sqrt(3/2).
    expect(withinDeviation(0, 3, 12)).toBe(-5);
    expect(withinDeviation(3, 3, 12)).toBe(-1);
    expect(withinDeviation(9, 3, 12)).toBe(6);
    expect(withinDeviation(7, 10, 70)).toBe(0);
  });

  it("gives a customer with history the spread of an invoice around its own customer, not the mix of customers scaled down", () => {
    const model = new PayDateModel();
    // Eighteen customers pay around their due date, two 100 days late; every invoice within 3 days
    // of its customer's habit (-3 to 3). The portfolio's residuals, centred on their mean (+10),
    // have their 10th and 90th percentiles both below it: scaled down to one customer's spread,
    // they made an interval of a single day, 1 day early.
    for (let c = 0; c < 20; c++) for (let i = 0; i < 8; i++) model.observe(obs(`c${c}`, addDays('2025-01-31', i * 10 + c), (c < 2 ? 100 : 0) + ((i * 5) % 7) - 3));
    const dueDate = '2025-06-30';
    const daysOf = (date: string) => (Date.parse(date) - Date.parse(dueDate)) / 86_400_000;
    for (const [customerId, habit] of [['c5', 0], ['c0', 100]] as const) {
      const { interval } = model.predict({ customerId, dueDate, disputed: false, asOf: '2025-06-01' })!;
      // Its own invoices' range (habit - 3 to habit + 3), most of it inside, and no wider than twice it.
      expect(daysOf(interval.low)).toBeLessThanOrEqual(habit - 2);
      expect(daysOf(interval.high)).toBeGreaterThanOrEqual(habit + 2);
      expect(daysOf(interval.high) - daysOf(interval.low)).toBeLessThanOrEqual(12);
    }
  });

  it('scenarios come from the predictive distribution and sum to 1', () => {
    const model = new PayDateModel();
    [-3, 0, 2, 5, 9, 14, 30].forEach((d, i) => model.observe(obs('c', addDays('2025-01-31', i * 10), d)));
    const p = model.predict({ customerId: 'c', dueDate: '2025-06-30', disputed: false, asOf: '2025-06-01' })!;
    expect(p.scenarios.reduce((s, x) => s + x.probability, 0)).toBeCloseTo(1, 10);
    const dates = p.scenarios.map((s) => s.date);
    expect(dates).toEqual([...dates].sort());
    expect(p.interval.low <= p.predicted_date && p.predicted_date <= p.interval.high).toBe(true);
  });
});

const day = (n: number) => addDays('2024-01-01', n);

/** A random paid history: invoices over two years, settled between 20 days early and 60 late. */
const historyArb = fc
  .array(
    fc.record({
      customer: fc.integer({ min: 0, max: 6 }),
      issued: fc.integer({ min: 0, max: 700 }),
      terms: fc.constantFrom(0, 14, 30),
      late: fc.integer({ min: -20, max: 60 }),
      // Days after issue that a dispute became known (0: it came with the invoice), or never.
      disputedAfter: fc.option(fc.integer({ min: 0, max: 90 })),
      // How the bill was sent, when the source says.
      billChannel: fc.option(fc.constantFrom('paper', 'electronic')),
    }),
    { minLength: 1, maxLength: 60 },
  )
  .map((rows) =>
    rows.map((r, i): HistoryInvoice => {
      const dueDate = day(r.issued + r.terms);
      const settled = Math.max(r.issued, r.issued + r.terms + r.late);
      return {
        id: `inv-${String(i).padStart(3, '0')}`,
        customerId: `c${r.customer}`,
        invoiceDate: day(r.issued),
        dueDate,
        settledDate: day(settled),
        disputedSince: r.disputedAfter === null ? null : day(r.issued + r.disputedAfter),
        method: r.late > 10 ? 'CHECK' : 'ELECTRONIC',
        billChannel: r.billChannel,
      };
    }),
  );

describe('the backtest is honest in time', () => {
  it('never uses a payment dated on or after the prediction moment, nor a dispute known after it: rewriting the future leaves every prediction as it was', () => {
    fc.assert(
      fc.property(historyArb, fc.nat(), fc.array(fc.integer({ min: 0, max: 200 }), { minLength: 60, maxLength: 60 }), (history, pick, shifts) => {
        const target = history[pick % history.length];
        const moment = target.invoiceDate;
        // Every invoice settled on or after the moment gets another settlement date, still on or
        // after it (so it stays open, and overdue, as seen from the moment), and another payment
        // method; an invoice issued after the moment, another bill channel (the bill channel of one
        // issued before is known at the moment: it stays); a dispute that became known after the
        // moment moves later or goes away.
        const rewritten = history.map((h, i) => {
          const settled = h.settledDate >= moment ? { ...h, settledDate: addDays(h.settledDate, shifts[i]), method: shifts[i] % 2 ? 'WIRE' : h.method } : h;
          const future = settled.invoiceDate > moment ? { ...settled, billChannel: shifts[i] % 5 ? 'paper' : null } : settled;
          if (future.disputedSince === null || future.disputedSince <= moment) return future;
          return { ...future, disputedSince: shifts[i] % 3 ? addDays(future.disputedSince, shifts[i]) : null };
        });
        const before = replay(history).find((p) => p.invoiceId === target.id)!;
        const after = replay(rewritten).find((p) => p.invoiceId === target.id)!;
        expect({ ...after, actual: null }).toEqual({ ...before, actual: null });
      }),
      { numRuns: 300 },
    );
  });
});

describe('the time still to wait, given still unpaid (conditional model)', () => {
  /** Twenty settlements 0-9 days late (two of each), over four customers. */
  const settledModel = () => {
    const model = new PayDateModel();
    for (let i = 0; i < 20; i++) model.observe(obs(`p${i % 4}`, addDays('2025-01-31', i), i % 10));
    return model;
  };
  const open = (age: number, n: number): CensoredAge[] => Array.from({ length: n }, () => ({ age, shift: 0 }));

  it('censors an open invoice at its age: it stays at risk up to it, and past every payment it leaves the rest unknown', () => {
    const model = settledModel();
    expect(portfolioSurvival(model.residualSamples(), []).tail).toBeCloseTo(0, 10);
    // Twenty open invoices far past every payment: half the portfolio was never seen paid.
    const stale = portfolioSurvival(model.residualSamples(), open(400, 20));
    expect(stale.tail).toBeCloseTo(0.5, 10);
    // Censored at 5 days: they were seen unpaid up to day 5 only, so the payments after it carry
    // the whole remaining probability (Kaplan-Meier), not half of it.
    const early = portfolioSurvival(model.residualSamples(), open(5, 20));
    expect(early.tail).toBeCloseTo(0, 10);
    const massBelow5 = [...early.values].reduce((s, v, i) => s + (v < 5 ? early.masses[i] : 0), 0);
    expect(massBelow5).toBeCloseTo(10 / 40 + 0, 1);
    expect(reachedAge(stale, 5)).toBe(10 + 20);
    expect(reachedAge(stale, 401)).toBe(0);
  });

  it('dates an invoice still open past its customer\'s habits by the invoices that got as late, and says so when none did', () => {
    const model = settledModel();
    for (let i = 0; i < 30; i++) model.observe(obs(`slow${i % 3}`, addDays('2025-03-01', i), 40 + (i % 20)));
    const survival = portfolioSurvival(model.residualSamples(), []);
    const dist = model.distribution('p0', '2025-09-01')!;
    const at = (age: number) => conditionalPrediction(dist, survival, { dueDate: '2025-08-01', shift: 0 }, age);
    // Its customer pays 0-9 days late; at 30 days it is like the invoices that reached 30: 40-59.
    const p30 = at(30);
    expect(p30.predicted!.days_late).toBeGreaterThanOrEqual(40);
    expect(p30.predicted!.days_late).toBeLessThanOrEqual(59);
    expect(p30.portfolio_share).toBeGreaterThan(0.9);
    expect(p30.collectible_90d).toBe(1);
    // At 120 days nothing was ever paid that late: no date, and why.
    const p120 = at(120);
    expect(p120.predicted).toBeNull();
    expect(p120.collectible_90d).toBe(0);
    expect(p120.reason).toBe('No invoice of this company was ever paid this late; no reliable date');
    // With ten invoices open at 150 days (censored there), 120 days was reached, but never paid.
    const withOpen = conditionalPrediction(dist, portfolioSurvival(model.residualSamples(), open(150, 10)), { dueDate: '2025-08-01', shift: 0 }, 120);
    expect(withOpen.predicted).toBeNull();
    expect(withOpen.reached).toBe(10);
    expect(withOpen.reason).toBe('Invoices this late were paid within 90 days 0% of the time; no reliable date');
  });

  it('never dates a payment before the moment, keeps the interval around the date and collectible_90d a probability (random models and ages)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ c: fc.integer({ min: 0, max: 5 }), late: fc.integer({ min: -30, max: 200 }), disputed: fc.boolean() }), { minLength: 1, maxLength: 80 }),
        fc.array(fc.integer({ min: -30, max: 500 }), { maxLength: 30 }),
        fc.integer({ min: -40, max: 400 }),
        fc.integer({ min: 0, max: 5 }),
        (settled, openAges, age, customer) => {
          const model = new PayDateModel();
          settled.forEach((o, i) => model.observe(obs(`c${o.c}`, addDays('2024-01-01', i), o.late, o.disputed)));
          const survival = portfolioSurvival(model.residualSamples(), openAges.map((a) => ({ age: a, shift: 0 })));
          // The survival is a distribution: masses non-negative, falling survival, all of it accounted for.
          let total = survival.tail;
          for (let i = 0; i < survival.values.length; i++) {
            expect(survival.masses[i]).toBeGreaterThanOrEqual(0);
            if (i) expect(survival.values[i]).toBeGreaterThan(survival.values[i - 1]);
            total += survival.masses[i];
          }
          expect(total).toBeCloseTo(1, 9);
          const dueDate = '2025-06-01';
          const moment = addDays(dueDate, age);
          const p = conditionalPrediction(model.distribution(`c${customer}`, moment)!, survival, { dueDate, shift: 0 }, age);
          expect(p.collectible_90d).toBeGreaterThanOrEqual(0);
          expect(p.collectible_90d).toBeLessThanOrEqual(1);
          if (!p.predicted) {
            expect(p.reason).toMatch(/no reliable date/);
            return;
          }
          expect(p.predicted.date >= moment).toBe(true);
          expect(p.predicted.interval.low >= moment).toBe(true);
          expect(p.predicted.interval.low <= p.predicted.date && p.predicted.date <= p.predicted.interval.high).toBe(true);
          expect(p.predicted.scenarios.every((s) => s.date >= moment)).toBe(true);
          expect(p.predicted.scenarios.reduce((s, x) => s + x.probability, 0)).toBeCloseTo(1, 10);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('its survival never rises with age: the share still unpaid and the invoices that reached an age only fall', () => {
    const model = settledModel();
    for (let i = 0; i < 30; i++) model.observe(obs(`slow${i % 3}`, addDays('2025-03-01', i), 40 + (i % 20)));
    const survival = portfolioSurvival(model.residualSamples(), [...open(30, 10), ...open(70, 5)]);
    let unpaid = 1;
    let reached = Infinity;
    for (let a = -5; a < 90; a++) {
      const still = survival.tail + [...survival.values].reduce((s, v, i) => s + (v >= a ? survival.masses[i] : 0), 0);
      expect(still).toBeLessThanOrEqual(unpaid + 1e-12);
      expect(reachedAge(survival, a)).toBeLessThanOrEqual(reached);
      unpaid = still;
      reached = reachedAge(survival, a);
    }
    // Five invoices open at 70 days, never seen paid: their share stays unknown past the last payment (59).
    expect(survival.tail).toBeGreaterThan(0);
  });

  it('rewriting the future at random changes no prediction made before it (the conditional backtest)', () => {
    fc.assert(
      fc.property(historyArb, fc.integer({ min: 0, max: 760 }), fc.constantFrom(0, 30), fc.array(fc.integer({ min: 0, max: 200 }), { minLength: 60, maxLength: 60 }), (history, cut, age, shifts) => {
        const moment = day(cut);
        // Settlements on or after the cut move later (still on or after it), with another method;
        // invoices issued after it get another bill channel; disputes known after it move or go.
        const rewritten = history.map((h, i) => {
          const settled = h.settledDate >= moment ? { ...h, settledDate: addDays(h.settledDate, shifts[i]), method: shifts[i] % 2 ? 'WIRE' : h.method } : h;
          const future = settled.invoiceDate > moment ? { ...settled, billChannel: shifts[i] % 5 ? 'paper' : null } : settled;
          if (future.disputedSince === null || future.disputedSince <= moment) return future;
          return { ...future, disputedSince: shifts[i] % 3 ? addDays(future.disputedSince, shifts[i]) : null };
        });
        const made = (h: HistoryInvoice[]) =>
          replayConditional(h, age)
            .filter((p) => p.asOf < moment)
            .map((p) => ({ ...p, actual: null }));
        expect(made(rewritten)).toEqual(made(history));
      }),
      { numRuns: 200 },
    );
  });
});

describe('the backtest at scale', () => {
  it('handles thousands of customers with a single invoice each, and beats the due date', () => {
    const history: HistoryInvoice[] = [];
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let i = 0; i < 5000; i++) {
      const issued = Math.floor(rand() * 700);
      const late = Math.round(8 + 10 * (rand() - 0.5) + (rand() < 0.2 ? 25 : 0));
      history.push({ id: `i${i}`, customerId: `single-${i}`, invoiceDate: day(issued), dueDate: day(issued + 30), settledDate: day(issued + 30 + late), disputedSince: null, method: null, billChannel: null });
    }
    const report = backtest(history);
    expect(report.invoices).toBe(5000);
    expect(report.mae_days).toBeLessThan(report.baselines.due_date.mae_days);
    expect(report.late_accuracy).toBeGreaterThan(report.baselines.due_date.late_accuracy);
    expect(report.mae_days).toBeLessThanOrEqual(report.baselines.customer_mean.mae_days);
  });
});
