import { describe, expect, it } from 'vitest';
import { collectionEffectiveness, countBackDso, dsoFigures, promiseKeptRate } from '../../core/analytics/metrics';

// Credit sales in minor units: March 2026 up to the 15th, February and January in full.
const SALES = new Map([
  ['2026-03', 30_000],
  ['2026-02', 56_000],
  ['2026-01', 31_000],
]);

describe('count-back DSO', () => {
  it('counts the month of as_of up to as_of, then whole months back, then the fraction of the month the rest falls in', () => {
    // 15 March days take 30,000; the other 40,000 is 40/56 of February's 28 days = 20.
    expect(countBackDso(70_000, '2026-03-15', SALES)).toBe(35);
    // 15 + 28 days take 86,000; 14,000 of January's 31,000 is 14 days.
    expect(countBackDso(100_000, '2026-03-15', SALES)).toBe(57);
    // Within the month of as_of: 20,000 of 30,000 over 15 days.
    expect(countBackDso(20_000, '2026-03-15', SALES)).toBe(10);
    expect(countBackDso(10_000, '2026-03-15', SALES)).toBe(5);
  });

  it('counts a month without sales in full', () => {
    expect(countBackDso(14_000, '2026-03-15', new Map([['2026-02', 28_000]]))).toBe(29);
  });

  it('is 0 when nothing is owed, and null before any sale or when receivables exceed every recorded sale', () => {
    expect(countBackDso(0, '2026-03-15', SALES)).toBe(0);
    expect(countBackDso(5_000, '2026-03-15', new Map())).toBeNull();
    expect(countBackDso(5_000, '2025-12-31', SALES)).toBeNull();
    expect(countBackDso(200_000, '2026-03-15', SALES)).toBeNull();
  });

  it('gives best possible DSO from current receivables and average days delinquent as the difference', () => {
    expect(dsoFigures(70_000, 20_000, '2026-03-15', SALES)).toEqual({ dso: 35, best_possible_dso: 10, average_days_delinquent: 25 });
    expect(dsoFigures(0, 0, '2026-03-15', new Map())).toEqual({ dso: null, best_possible_dso: null, average_days_delinquent: null });
  });
});

describe('collection effectiveness index', () => {
  it('is collected over collectable, in percent', () => {
    // (1,000 + 500 - 600) / (1,000 + 500 - 300) = 900 / 1,200
    expect(collectionEffectiveness({ opening: 100_000, sales: 50_000, closingTotal: 60_000, closingCurrent: 30_000 })).toBe(75);
    // Everything collectable collected.
    expect(collectionEffectiveness({ opening: 10_000, sales: 31_000, closingTotal: 31_000, closingCurrent: 31_000 })).toBe(100);
    // Nothing collected: 2 / 3 of nothing.
    expect(collectionEffectiveness({ opening: 56_000, sales: 30_000, closingTotal: 86_000, closingCurrent: 30_000 })).toBe(0);
    expect(collectionEffectiveness({ opening: 20_000, sales: 10_000, closingTotal: 20_000, closingCurrent: 0 })).toBe(33.3);
  });

  it('is null when nothing was collectable', () => {
    expect(collectionEffectiveness({ opening: 0, sales: 0, closingTotal: 0, closingCurrent: 0 })).toBeNull();
    expect(collectionEffectiveness({ opening: 0, sales: 5_000, closingTotal: 5_000, closingCurrent: 5_000 })).toBeNull();
  });
});

describe('promise-to-pay kept rate', () => {
  it('is the share of promises that fell due which were kept, null when none fell due', () => {
    expect(promiseKeptRate([{ kept: true }, { kept: true }, { kept: false }])).toBe(66.7);
    expect(promiseKeptRate([{ kept: false }])).toBe(0);
    expect(promiseKeptRate([])).toBeNull();
  });
});
