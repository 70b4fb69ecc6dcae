import { describe, expect, it } from 'vitest';
import { defaultAttach } from '../../core/actions/envelope';
import { graceEnd, judgedThrough, judgePromise, keptRate } from '../../core/promises/rules';
import { caughtUpSteps } from '../../core/sequences/rules';

describe('one catch-up email for a back-dated enrollment', () => {
  const NOW = '2026-11-23T15:00:00.000Z';
  const step = (step_type: 'reminder' | 'call' | 'task', scheduled_date: string, time = '14:00:00.000Z') => ({ step_type, scheduled_date, scheduled_at: `${scheduled_date}T${time}` });

  it('keeps the latest due email and skips the emails of past days', () => {
    const rows = [step('reminder', '2026-11-13'), step('call', '2026-11-14'), step('reminder', '2026-11-16'), step('reminder', '2026-11-20'), step('reminder', '2026-12-10')];
    expect(caughtUpSteps(rows, NOW, '2026-11-23')).toEqual([0, 2]);
  });
  it('leaves emails of today alone (the daily limit spaces them), and a single missed email', () => {
    expect(caughtUpSteps([step('reminder', '2026-11-23', '09:00:00.000Z'), step('reminder', '2026-11-23', '10:00:00.000Z')], NOW, '2026-11-23')).toEqual([]);
    expect(caughtUpSteps([step('reminder', '2026-11-20'), step('reminder', '2026-11-23', '16:00:00.000Z')], NOW, '2026-11-23')).toEqual([]);
    // A missed day and a step due earlier today: the one of today is the catch-up.
    expect(caughtUpSteps([step('reminder', '2026-11-20'), step('reminder', '2026-11-23', '09:00:00.000Z')], NOW, '2026-11-23')).toEqual([0]);
  });
});

describe('promises judged after their date and grace', () => {
  it('is judged from the day after date + grace', () => {
    expect(graceEnd('2026-11-26', 3)).toBe('2026-11-29');
    // On Nov 30 the promises dated up to Nov 26 are judged (their three days of grace are over).
    expect(judgedThrough('2026-11-30', 3)).toBe('2026-11-26');
  });
  it('is kept when the amount said came, or nothing was owed; void when replaced', () => {
    expect(judgePromise({ promisedAmount: 60_000, paid: 60_000, owed: 40_000, superseded: false })).toBe('kept');
    expect(judgePromise({ promisedAmount: 60_000, paid: 25_000, owed: 75_000, superseded: false })).toBe('broken');
    expect(judgePromise({ promisedAmount: null, paid: 40_000, owed: 0, superseded: false })).toBe('kept');
    expect(judgePromise({ promisedAmount: null, paid: 40_000, owed: 1, superseded: false })).toBe('broken');
    expect(judgePromise({ promisedAmount: null, paid: 0, owed: 100, superseded: true })).toBe('void');
  });
  it('rates the judged promises, void ones aside', () => {
    expect(keptRate([])).toBeNull();
    expect(keptRate(['void'])).toBeNull();
    expect(keptRate(['kept', 'broken', 'void', 'kept'])).toBe(66.7);
  });
});

describe('the approve panel ticks the invoice PDF for an email about an invoice', () => {
  it('keeps a choice made, else the invoice PDF when there is an invoice', () => {
    expect(defaultAttach({}, 'inv-1')).toEqual(['invoice_pdf']);
    expect(defaultAttach({}, null)).toEqual([]);
    expect(defaultAttach({ attach: [] }, 'inv-1')).toEqual([]);
    expect(defaultAttach({ attach: ['statement', 'bogus'] }, 'inv-1')).toEqual(['statement']);
  });
});
