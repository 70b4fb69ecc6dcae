import { describe, expect, it } from 'vitest';
import { DEFAULT_BOOLEAN_WORDS, parseAmount, parseBoolean, parseDate, parseWholeNumber } from '../../core/import/values';

const value = <T>(p: { ok: true; value: T } | { ok: false; message: string }) => (p.ok ? p.value : `ERR ${p.message}`);

describe('parseDate', () => {
  it('reads each supported format', () => {
    expect(value(parseDate('2013-01-02', 'YYYY-MM-DD'))).toBe('2013-01-02');
    expect(value(parseDate('1/2/2013', 'M/D/YYYY'))).toBe('2013-01-02');
    expect(value(parseDate('01/02/2013', 'M/D/YYYY'))).toBe('2013-01-02');
    expect(value(parseDate('1/2/2013', 'D/M/YYYY'))).toBe('2013-02-01');
    expect(value(parseDate('31.12.2013', 'D/M/YYYY'))).toBe('2013-12-31');
    expect(value(parseDate('12-31-2013', 'M/D/YYYY'))).toBe('2013-12-31');
  });

  it('accepts an unambiguous ISO date, with or without a time, whatever the format', () => {
    expect(value(parseDate('2013-12-31', 'M/D/YYYY'))).toBe('2013-12-31');
    expect(value(parseDate('2013-12-31T00:00:00Z', 'D/M/YYYY'))).toBe('2013-12-31');
    expect(value(parseDate('2013-12-31 08:30', 'YYYY-MM-DD'))).toBe('2013-12-31');
  });

  it('rejects impossible dates and other formats', () => {
    expect(value(parseDate('2/30/2013', 'M/D/YYYY'))).toMatch(/^ERR "2\/30\/2013" is not a date in the format M\/D\/YYYY/);
    expect(value(parseDate('13/1/2013', 'M/D/YYYY'))).toMatch(/^ERR/);
    expect(value(parseDate('1/2/2013', 'YYYY-MM-DD'))).toMatch(/^ERR/);
    expect(value(parseDate('1/2/13', 'M/D/YYYY'))).toMatch(/^ERR/);
    expect(value(parseDate('2013-02-29', 'YYYY-MM-DD'))).toMatch(/^ERR/);
    expect(value(parseDate('2012-02-29', 'YYYY-MM-DD'))).toBe('2012-02-29');
  });

  it('reads workbook dates and Excel serial numbers', () => {
    expect(value(parseDate(new Date(Date.UTC(2013, 0, 2)), 'M/D/YYYY'))).toBe('2013-01-02');
    expect(value(parseDate(41276, 'M/D/YYYY'))).toBe('2013-01-02');
    expect(value(parseDate(-3, 'M/D/YYYY'))).toMatch(/^ERR/);
  });
});

describe('parseAmount', () => {
  it('reads amounts exactly into minor units', () => {
    expect(value(parseAmount('55.94', '.'))).toBe(5594);
    expect(value(parseAmount('0.1', '.'))).toBe(10);
    expect(value(parseAmount('1,234,567.89', '.'))).toBe(123456789);
    expect(value(parseAmount('$ 1,000', '.'))).toBe(100000);
    expect(value(parseAmount('9007199254740.99', '.'))).toBe(900719925474099);
  });

  it('reads a comma decimal separator with dots or spaces for thousands', () => {
    expect(value(parseAmount('1.234,5', ','))).toBe(123450);
    expect(value(parseAmount('1 234,50', ','))).toBe(123450);
    expect(value(parseAmount('€12', ','))).toBe(1200);
  });

  it('reads negatives written with a minus or in parentheses', () => {
    expect(value(parseAmount('-12.50', '.'))).toBe(-1250);
    expect(value(parseAmount('(12.50)', '.'))).toBe(-1250);
  });

  it('rejects more than two decimals, misplaced separators and text', () => {
    expect(value(parseAmount('1.234', '.'))).toMatch(/more than two decimals/);
    expect(value(parseAmount('12,5', '.'))).toMatch(/is not an amount/);
    expect(value(parseAmount('1,23,4', '.'))).toMatch(/is not an amount/);
    expect(value(parseAmount('abc', '.'))).toMatch(/is not an amount/);
    expect(value(parseAmount('99999999999999999999', '.'))).toMatch(/too large/);
  });

  it('reads workbook numbers, refusing float noise beyond cents', () => {
    expect(value(parseAmount(55.94, '.'))).toBe(5594);
    expect(value(parseAmount(0.1 + 0.2, '.'))).toBe(30);
    expect(value(parseAmount(1.005001, '.'))).toMatch(/more than two decimals/);
  });
});

describe('parseBoolean and parseWholeNumber', () => {
  it('reads yes/no words in any case, workbook booleans and 1/0', () => {
    expect(value(parseBoolean('Yes', DEFAULT_BOOLEAN_WORDS))).toBe(true);
    expect(value(parseBoolean('NO', DEFAULT_BOOLEAN_WORDS))).toBe(false);
    expect(value(parseBoolean(true, DEFAULT_BOOLEAN_WORDS))).toBe(true);
    expect(value(parseBoolean(0, DEFAULT_BOOLEAN_WORDS))).toBe(false);
    expect(value(parseBoolean('ja', { true: ['ja'], false: ['nein'] }))).toBe(true);
    expect(value(parseBoolean('maybe', DEFAULT_BOOLEAN_WORDS))).toMatch(/is not one of yes, y, true/);
  });

  it('reads whole numbers within a range', () => {
    expect(value(parseWholeNumber('30', 365))).toBe(30);
    expect(value(parseWholeNumber(45, 365))).toBe(45);
    expect(value(parseWholeNumber('400', 365))).toMatch(/from 0 to 365/);
    expect(value(parseWholeNumber('1.5', 365))).toMatch(/^ERR/);
  });
});
