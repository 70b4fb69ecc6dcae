import { describe, expect, it } from 'vitest';
import { addDays } from '../../core/dates';
import {
  agingBucket,
  AGING_BUCKETS,
  CONCRETE_STATUSES,
  daysOutstanding,
  dueRangeOfOpenStatus,
  expandStatus,
  invoiceStatus,
  openStatus,
  openStatusOfDue,
  STATUS_VALUES,
  statusDisplay,
  statusesOfBucket,
  statusThresholds,
} from '../../core/invoices/status';

const TODAY = '2026-11-23';
const open = (daysPastDue: number) => ({ due_date: addDays(TODAY, -daysPastDue), closing_reason: null });

describe('invoice status and aging (today fixed at 2026-11-23)', () => {
  it.each([
    [-10, 'current', 'current'],
    [0, 'current', 'current'],
    [1, 'past_due_1_30', '1_30'],
    [30, 'past_due_1_30', '1_30'],
    [31, 'past_due_31_60', '31_60'],
    [60, 'past_due_31_60', '31_60'],
    [61, 'past_due_61_90', '61_90'],
    [90, 'past_due_61_90', '61_90'],
    [91, 'past_due_90p', '91_over'],
    [400, 'past_due_90p', '91_over'],
  ] as const)('an open invoice %i days past due is %s in bucket %s', (days, status, bucket) => {
    expect(invoiceStatus(open(days), TODAY)).toBe(status);
    expect(agingBucket(open(days), TODAY)).toBe(bucket);
  });

  it('closed invoices take their status from the closing, whatever the due date, and age as current', () => {
    for (const [reason, status] of [
      ['paid', 'closed_paid'],
      ['overpaid', 'closed_overpaid'],
      ['credit_memo', 'closed_credit_memo'],
      ['written_off', 'closed_written_off'],
    ] as const) {
      const invoice = { due_date: addDays(TODAY, -200), closing_reason: reason };
      expect(invoiceStatus(invoice, TODAY)).toBe(status);
      expect(agingBucket(invoice, TODAY)).toBe('current');
    }
  });

  it('moves with the calendar: the same invoice turns past due the day after its due date', () => {
    const invoice = { due_date: '2026-11-23', closing_reason: null };
    expect(invoiceStatus(invoice, '2026-11-23')).toBe('current');
    expect(invoiceStatus(invoice, '2026-11-24')).toBe('past_due_1_30');
    expect(invoiceStatus(invoice, '2026-12-24')).toBe('past_due_31_60');
  });

  it('counts days outstanding to today, or to the closing date once closed, never below zero', () => {
    expect(daysOutstanding({ invoice_date: '2026-10-24', closing_reason: null, closed_date: null }, TODAY)).toBe(30);
    expect(daysOutstanding({ invoice_date: '2026-10-24', closing_reason: 'paid', closed_date: '2026-11-03' }, TODAY)).toBe(10);
    expect(daysOutstanding({ invoice_date: '2026-12-01', closing_reason: null, closed_date: null }, TODAY)).toBe(0);
  });

  it('compares due dates with thresholds exactly as it counts days past due', () => {
    const t = statusThresholds(TODAY);
    for (let days = -5; days <= 120; days++) expect(openStatusOfDue(addDays(TODAY, -days), t)).toBe(openStatus(days));
  });

  it('gives each open status the due-date range that produces it', () => {
    for (let days = -5; days <= 120; days++) {
      const due = addDays(TODAY, -days);
      const status = openStatus(days);
      const range = dueRangeOfOpenStatus(status, TODAY);
      expect(range.from === null || due >= range.from).toBe(true);
      expect(range.to === null || due <= range.to).toBe(true);
    }
  });

  it('expands overdue to every past-due status, and maps buckets back to statuses', () => {
    expect(expandStatus('overdue')).toEqual(['past_due_1_30', 'past_due_31_60', 'past_due_61_90', 'past_due_90p']);
    expect(expandStatus('closed_paid')).toEqual(['closed_paid']);
    expect(statusesOfBucket('31_60')).toEqual(['past_due_31_60']);
    expect(statusesOfBucket('current')).toEqual(['current', 'closed_paid', 'closed_overpaid', 'closed_credit_memo', 'closed_written_off']);
    expect(AGING_BUCKETS.flatMap(statusesOfBucket).sort()).toEqual([...CONCRETE_STATUSES].sort());
  });

  it('has a human label for every status value', () => {
    expect(statusDisplay('past_due_31_60')).toBe('Past due 31-60');
    expect(statusDisplay('closed_written_off')).toBe('Written off');
    expect(new Set(STATUS_VALUES.map(statusDisplay)).size).toBe(STATUS_VALUES.length);
  });
});
