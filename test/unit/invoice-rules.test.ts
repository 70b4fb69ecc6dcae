import { describe, expect, it } from 'vitest';
import { secretBox } from '../../core/secrets';
import { ValidationError } from '../../core/errors';
import { decodeCursor, encodeCursor, queryFingerprint } from '../../core/invoices/cursor';
import { addStatusClause, facetStatuses, likePattern, matchPhrase, rowStatuses, Where } from '../../core/invoices/filters';
import { amountProblems, defaultDueDate, dueDateProblems, generatedNumber, isPaymentLink, missingIds } from '../../core/invoices/rules';
import { parseSort } from '../../core/invoices/sort';

const TODAY = '2026-11-23';

describe('status sets from the filters', () => {
  it('facets ignore the status filter but follow aging bucket and overdue_only', () => {
    expect(facetStatuses({ status: ['current'] }).size).toBe(9);
    expect([...facetStatuses({ agingBucket: ['1_30', '91_over'] })]).toEqual(['past_due_1_30', 'past_due_90p']);
    expect([...facetStatuses({ overdueOnly: true })]).toEqual(['past_due_1_30', 'past_due_31_60', 'past_due_61_90', 'past_due_90p']);
  });

  it('rows keep the facet statuses the status filter chooses', () => {
    expect([...rowStatuses({ status: ['overdue', 'closed_paid'], agingBucket: ['31_60', 'current'] })]).toEqual(['past_due_31_60', 'closed_paid']);
    expect(rowStatuses({ status: ['closed_paid'], overdueOnly: true }).size).toBe(0);
  });
});

describe('status clause', () => {
  const clause = (statuses: Parameters<typeof addStatusClause>[2]) => {
    const where = new Where();
    addStatusClause(where, 'i', statuses, TODAY);
    return where;
  };

  it('adds nothing for every status and matches nothing for none', () => {
    expect(clause(new Set(['current', 'past_due_1_30', 'past_due_31_60', 'past_due_61_90', 'past_due_90p', 'closed_paid', 'closed_overpaid', 'closed_credit_memo', 'closed_written_off'])).text).toBe('1');
    expect(clause(new Set()).text).toBe('0');
  });

  it('turns adjacent open statuses into one due-date range the index can use', () => {
    const where = clause(new Set(['past_due_1_30', 'past_due_31_60']));
    expect(where.text).toBe('i.closing_reason IS NULL AND i.due_date >= ? AND i.due_date <= ?');
    expect(where.params).toEqual(['2026-09-24', '2026-11-22']);
  });

  it('bounds separate open ranges by their hull and keeps each range', () => {
    const where = clause(new Set(['current', 'past_due_61_90']));
    expect(where.text).toContain('i.due_date >= ?');
    expect(where.params).toEqual(['2026-08-25', '2026-08-25', '2026-09-23', '2026-11-23']);
  });

  it('mixes open ranges with closings', () => {
    const where = clause(new Set(['past_due_90p', 'closed_paid']));
    expect(where.text).toBe('((i.closing_reason IS NULL AND ((i.due_date <= ?))) OR i.closing_reason IN (?))');
    expect(where.params).toEqual(['2026-08-24', 'paid']);
  });
});

describe('search terms', () => {
  it('quotes a trigram phrase and escapes LIKE wildcards', () => {
    expect(matchPhrase('say "hi"')).toBe('"say ""hi"""');
    expect(likePattern('5%_a\\')).toBe('%5\\%\\_a\\\\%');
  });
});

describe('sort', () => {
  it('reads the suffix, else the order, else desc by due date', () => {
    expect(parseSort(undefined, undefined)).toEqual({ key: 'due_date', dir: 'desc' });
    expect(parseSort('balance_asc', 'desc')).toEqual({ key: 'balance', dir: 'asc' });
    expect(parseSort('customer_name', 'asc')).toEqual({ key: 'customer_name', dir: 'asc' });
    expect(parseSort('amount_desc', undefined)).toEqual({ key: 'amount', dir: 'desc' });
  });
});

describe('write rules', () => {
  it('accepts positive amounts with at most two decimals', () => {
    expect(amountProblems(10.25)).toEqual([]);
    expect(amountProblems(0)).toEqual(['must be greater than 0']);
    expect(amountProblems(-5)).toEqual(['must be greater than 0']);
    expect(amountProblems(1.005)).toEqual(['must have at most two decimals']);
    expect(amountProblems(Number.NaN)).toEqual(['must be a number']);
  });

  it('takes only absolute http(s) payment links', () => {
    expect(isPaymentLink('https://pay.example.com/x?y=1')).toBe(true);
    expect(isPaymentLink('http://localhost:8080/pay')).toBe(true);
    expect(isPaymentLink('javascript:alert(1)')).toBe(false);
    expect(isPaymentLink('pay.example.com')).toBe(false);
    expect(isPaymentLink(`https://e.com/${'a'.repeat(2100)}`)).toBe(false);
  });

  it('defaults the due date from the terms and refuses one before the invoice date', () => {
    expect(defaultDueDate('2026-11-23', 30)).toBe('2026-12-23');
    expect(dueDateProblems('2026-11-23', '2026-11-22')).toEqual(['must be on or after the invoice date']);
    expect(dueDateProblems('2026-11-23', '2026-11-23')).toEqual([]);
  });

  it('numbers and missing ids', () => {
    expect(generatedNumber(42)).toBe('INV-000042');
    expect(missingIds(['a', 'b', 'a', 'c'], ['b'])).toEqual(['a', 'c']);
  });
});

describe('cursor', () => {
  const box = secretBox(Buffer.alloc(32, 7));
  const company = '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a';
  const id = '0192f0c4-5f3e-7c4a-9a51-000000000001';
  const fp = queryFingerprint({ sort: 'balance' });
  const PLANS = ['sort', 'rows'];

  it('round-trips the position and is opaque', () => {
    const cursor = encodeCursor(box, company, fp, { key: 12345, id, plan: 'sort' });
    expect(cursor).not.toContain(id);
    expect(decodeCursor(box, company, fp, 'integer', PLANS, cursor)).toEqual({ key: 12345, id, plan: 'sort' });
  });

  it('rejects altered, foreign, other-query, wrong-type, wrong-plan and malformed cursors with invalid_cursor', () => {
    const cursor = encodeCursor(box, company, fp, { key: 12345, id, plan: 'sort' });
    // One character changed for another (the one before last: the last may carry only padding bits).
    const at = cursor.length - 2;
    const flipped = cursor.slice(0, at) + (cursor[at] === 'A' ? 'B' : 'A') + cursor.slice(at + 1);
    expect(flipped).not.toBe(cursor);
    const bad = [
      () => decodeCursor(box, company, fp, 'integer', PLANS, flipped),
      () => decodeCursor(box, '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6b', fp, 'integer', PLANS, cursor),
      () => decodeCursor(box, company, queryFingerprint({ sort: 'amount' }), 'integer', PLANS, cursor),
      () => decodeCursor(box, company, fp, 'string', PLANS, cursor),
      () => decodeCursor(box, company, fp, 'integer', ['groups'], cursor),
      () => decodeCursor(box, company, fp, 'integer', PLANS, 'not-a-cursor'),
      () => decodeCursor(secretBox(Buffer.alloc(32, 8)), company, fp, 'integer', PLANS, cursor),
    ];
    for (const attempt of bad) {
      expect(attempt).toThrow(ValidationError);
      try {
        attempt();
      } catch (err) {
        expect((err as ValidationError).code).toBe('invalid_cursor');
      }
    }
  });
});
