import { describe, expect, it } from 'vitest';
import { validatePaymentInput } from '../../core/payments/commands';
import { acceptsPayments, normalizeCode, operationChanges, settledStatus } from '../../core/payments/rules';
import { InvalidStateError } from '../../core/errors';

const INVOICE = '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a';
const TODAY = '2026-11-23';

describe('normalizeCode', () => {
  it('upper-cases and turns spaces and dashes into underscores', () => {
    expect(normalizeCode(' credit card ')).toBe('CREDIT_CARD');
    expect(normalizeCode('Credit-Card')).toBe('CREDIT_CARD');
    expect(normalizeCode('ach')).toBe('ACH');
    expect(normalizeCode('wire  -  transfer')).toBe('WIRE_TRANSFER');
  });
});

describe('settledStatus', () => {
  it('is PAID when the amount covers the open balance, PARTIAL when it does not', () => {
    expect(settledStatus(10_000, 10_000)).toBe('PAID');
    expect(settledStatus(12_000, 10_000)).toBe('PAID');
    expect(settledStatus(9_999, 10_000)).toBe('PARTIAL');
    expect(settledStatus(100, 0)).toBe('PAID');
  });
});

describe('acceptsPayments', () => {
  it('refuses invoices closed by a credit memo or written off, accepts open and paid ones', () => {
    expect(acceptsPayments(null)).toBe(true);
    expect(acceptsPayments('paid')).toBe(true);
    expect(acceptsPayments('overpaid')).toBe(true);
    expect(acceptsPayments('credit_memo')).toBe(false);
    expect(acceptsPayments('written_off')).toBe(false);
  });
});

describe('operationChanges (payment state machine)', () => {
  it('voids anything not yet voided; voiding a voided payment is a no-op', () => {
    for (const s of ['PAID', 'PARTIAL', 'PENDING', 'FAILED'] as const) expect(operationChanges(s, 'void')).toBe(true);
    expect(operationChanges('VOIDED', 'void')).toBe(false);
  });

  it('settles and fails only PENDING payments; repeating a done operation is a no-op', () => {
    expect(operationChanges('PENDING', 'settle')).toBe(true);
    expect(operationChanges('PENDING', 'fail')).toBe(true);
    expect(operationChanges('PAID', 'settle')).toBe(false);
    expect(operationChanges('PARTIAL', 'settle')).toBe(false);
    expect(operationChanges('FAILED', 'fail')).toBe(false);
  });

  it('refuses every other move with an invalid_payment_transition error', () => {
    const refused: Array<[Parameters<typeof operationChanges>[0], 'settle' | 'fail']> = [
      ['FAILED', 'settle'],
      ['VOIDED', 'settle'],
      ['PAID', 'fail'],
      ['PARTIAL', 'fail'],
      ['VOIDED', 'fail'],
    ];
    for (const [status, op] of refused) {
      expect(() => operationChanges(status, op)).toThrow(InvalidStateError);
    }
  });
});

describe('validatePaymentInput', () => {
  it('accepts a minimal payment', () => {
    expect(validatePaymentInput({ invoice: INVOICE, amount: 12.5 }, TODAY)).toEqual({});
  });

  it('rejects non-positive amounts, more than two decimals and absurd sizes', () => {
    expect(validatePaymentInput({ invoice: INVOICE, amount: 0 }, TODAY).amount).toBeDefined();
    expect(validatePaymentInput({ invoice: INVOICE, amount: -5 }, TODAY).amount).toBeDefined();
    expect(validatePaymentInput({ invoice: INVOICE, amount: 1.005 }, TODAY).amount).toEqual(['Use at most two decimals']);
    expect(validatePaymentInput({ invoice: INVOICE, amount: Number.NaN }, TODAY).amount).toBeDefined();
    expect(validatePaymentInput({ invoice: INVOICE, amount: 1e13 }, TODAY).amount).toBeDefined();
    expect(validatePaymentInput({ invoice: INVOICE, amount: 0.1 + 0.2 }, TODAY)).toEqual({});
    // Positive but below a cent: within the float tolerance of "two decimals", yet zero in the ledger.
    expect(validatePaymentInput({ invoice: INVOICE, amount: 1e-9 }, TODAY).amount).toBeDefined();
    expect(validatePaymentInput({ invoice: INVOICE, amount: 5e-324 }, TODAY).amount).toBeDefined();
    expect(validatePaymentInput({ invoice: INVOICE, amount: 0.01 }, TODAY)).toEqual({});
  });

  it('rejects impossible and future dates, a malformed invoice id, VOIDED and over-long text', () => {
    const errors = validatePaymentInput(
      { invoice: 'nope', amount: 1, payment_date: '2026-02-30', status: 'VOIDED', notes: 'x'.repeat(5001), payment_method: '  ' },
      TODAY,
    );
    expect(Object.keys(errors).sort()).toEqual(['invoice', 'notes', 'payment_date', 'payment_method', 'status']);
    expect(validatePaymentInput({ invoice: INVOICE, amount: 1, payment_date: '2026-11-24' }, TODAY).payment_date).toEqual(['Cannot be in the future']);
    expect(validatePaymentInput({ invoice: INVOICE, amount: 1, payment_date: TODAY }, TODAY)).toEqual({});
  });
});
