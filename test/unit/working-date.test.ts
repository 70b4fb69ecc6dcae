/** Issue 40, item 4: the whole month a headline CEI covers. */
import { describe, expect, it } from 'vitest';
import { ceiHeadlineMonth, monthsApart } from '../../core/analytics/metrics';

describe('the headline CEI month', () => {
  it('is the last month complete on the date: the month before, or its own on its last day', () => {
    expect(ceiHeadlineMonth('2013-12-02')).toBe('2013-11');
    expect(ceiHeadlineMonth('2013-12-31')).toBe('2013-12');
    expect(ceiHeadlineMonth('2024-03-01')).toBe('2024-02');
    expect(ceiHeadlineMonth('2024-02-29')).toBe('2024-02');
    expect(ceiHeadlineMonth('2014-01-15')).toBe('2013-12');
  });

  it('is the month chosen when one is', () => {
    expect(ceiHeadlineMonth('2013-12-02', '2013-07')).toBe('2013-07');
  });

  it('counts whole months between two months', () => {
    expect([monthsApart('2013-11', '2013-12'), monthsApart('2013-12', '2013-12'), monthsApart('2012-12', '2013-12'), monthsApart('2014-01', '2013-12')]).toEqual([1, 0, 12, -1]);
  });
});
