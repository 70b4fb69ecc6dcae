import { describe, expect, it } from 'vitest';
import { addDays } from '../../core/dates';
import { customerRisk, RISK_BALANCE, RISK_LATE_DAYS, type RiskInput, WATCH_LATE_DAYS } from '../../core/customers/risk';

const TODAY = '2026-11-26';
const risk = (fields: Partial<RiskInput>) => customerRisk({ overdue: 0, oldestOpenDueDate: null, currency: 'USD', today: TODAY, signal: null, ...fields });
const late = (days: number) => addDays(TODAY, -days);

describe("the Customers list's risk: lateness and balance past due first, then behaviour, with the reason in words", () => {
  it('a large balance 97 days late is high risk without any signal, and says why', () => {
    expect(risk({ overdue: 1_801_274, oldestOpenDueDate: late(97) })).toEqual({ level: 'high', reason: '$18,012.74 past due, the oldest 97 days late' });
  });

  it('grades by days past due at the bucket edges, one level lower for a small balance', () => {
    const level = (days: number, overdue = RISK_BALANCE) => risk({ overdue, oldestOpenDueDate: late(days) }).level;
    expect([1, WATCH_LATE_DAYS, WATCH_LATE_DAYS + 1, RISK_LATE_DAYS, RISK_LATE_DAYS + 1].map((d) => level(d))).toEqual(['low', 'low', 'medium', 'medium', 'high']);
    expect([1, WATCH_LATE_DAYS + 1, RISK_LATE_DAYS + 1].map((d) => level(d, RISK_BALANCE - 1))).toEqual(['low', 'low', 'medium']);
    expect(risk({ overdue: 800, oldestOpenDueDate: late(1) }).reason).toBe('$8.00 past due, the oldest 1 day late');
  });

  it('behaviour raises the level and adds its reason; it never lowers what lateness says', () => {
    const broken = { severity: 'high' as const, title: 'Promise to pay broken' };
    expect(risk({ overdue: 50_000, oldestOpenDueDate: late(10), signal: broken })).toEqual({ level: 'high', reason: '$500.00 past due, the oldest 10 days late; Promise to pay broken' });
    expect(risk({ overdue: 1_801_274, oldestOpenDueDate: late(97), signal: { severity: 'low', title: 'Paying later than usual' } })).toEqual({
      level: 'high',
      reason: '$18,012.74 past due, the oldest 97 days late; Paying later than usual',
    });
    expect(risk({ signal: { severity: 'medium', title: 'Open balance jumped' } })).toEqual({ level: 'medium', reason: 'Open balance jumped' });
  });

  it('nothing past due and no signal: no level, and it says so; an open invoice not yet due is not late', () => {
    expect(risk({})).toEqual({ level: null, reason: 'Nothing past due' });
    expect(risk({ overdue: 0, oldestOpenDueDate: addDays(TODAY, 5) })).toEqual({ level: null, reason: 'Nothing past due' });
    expect(risk({ overdue: 0, oldestOpenDueDate: late(40) })).toEqual({ level: null, reason: 'Nothing past due' });
  });
});
