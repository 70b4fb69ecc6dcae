import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCommand, systemActor } from '../../core/engine';
import { invoiceTotals, recomputeInvoiceBalance } from '../../core/payments/balance';
import { addCompany } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { ledger } from '../support/ledger-fixtures';

describe('invoiceTotals (pure)', () => {
  it('leaves an unpaid invoice open with its whole total as balance', () => {
    expect(invoiceTotals(10_000, null, null, [])).toEqual({ paid_amount: 0, balance: 10_000, closing_reason: null, closed_date: null });
  });

  it('keeps a partly paid invoice open', () => {
    expect(invoiceTotals(10_000, null, null, [{ amount: 2_500, payment_date: '2026-11-01' }])).toEqual({
      paid_amount: 2_500,
      balance: 7_500,
      closing_reason: null,
      closed_date: null,
    });
  });

  it('closes as paid on the date of the last payment when the balance reaches zero', () => {
    const totals = invoiceTotals(10_000, null, null, [
      { amount: 6_000, payment_date: '2026-11-20' },
      { amount: 4_000, payment_date: '2026-11-05' },
    ]);
    expect(totals).toEqual({ paid_amount: 10_000, balance: 0, closing_reason: 'paid', closed_date: '2026-11-20' });
  });

  it('closes as overpaid when payments exceed the total', () => {
    expect(invoiceTotals(10_000, null, null, [{ amount: 10_001, payment_date: '2026-11-02' }])).toEqual({
      paid_amount: 10_001,
      balance: -1,
      closing_reason: 'overpaid',
      closed_date: '2026-11-02',
    });
  });

  it('reopens a paid invoice once its payments no longer cover it', () => {
    expect(invoiceTotals(10_000, 'paid', '2026-11-02', [])).toEqual({ paid_amount: 0, balance: 10_000, closing_reason: null, closed_date: null });
  });

  it('keeps a credit memo or write-off closing and its date whatever the payments', () => {
    for (const reason of ['credit_memo', 'written_off'] as const) {
      expect(invoiceTotals(10_000, reason, '2026-10-01', [{ amount: 1_000, payment_date: '2026-11-01' }])).toEqual({
        paid_amount: 1_000,
        balance: 9_000,
        closing_reason: reason,
        closed_date: '2026-10-01',
      });
    }
  });

  it('does not close a zero-total invoice that has no payments', () => {
    expect(invoiceTotals(0, null, null, []).closing_reason).toBeNull();
  });
});

describe('recomputeInvoiceBalance (real database)', () => {
  let engine: TestEngine;
  let companyId: string;

  beforeEach(async () => {
    engine = await testEngine('2026-11-23T12:00:00.000Z');
    companyId = await addCompany(engine, 'Acme Supply');
  });
  afterEach(() => engine.dispose());

  async function invoiceRow(id: string) {
    return engine.db.selectFrom('invoices').select(['paid_amount', 'balance', 'closing_reason', 'closed_date', 'updated_at']).where('id', '=', id).executeTakeFirstOrThrow();
  }

  it('counts only PAID and PARTIAL payments and stores the result with the command time', async () => {
    const l = ledger(engine, companyId);
    const customer = await l.customer({ name: 'Borealis' });
    const invoice = await l.invoice({ customer, number: 'INV-1', total: 100, dueDate: '2026-11-30' });
    await l.payment({ invoice, amount: 30, payment_date: '2026-11-10' });
    await l.payment({ invoice, amount: 50, payment_date: '2026-11-11', status: 'PENDING' });
    await l.payment({ invoice, amount: 20, payment_date: '2026-11-12', status: 'FAILED' });
    // Corrupt the stored totals, then recompute them from the payments.
    await engine.db.updateTable('invoices').set({ paid_amount: 0, balance: 10_000 }).where('id', '=', invoice).execute();
    engine.clock.set('2026-11-24T08:00:00.000Z');
    const totals = await runCommand(engine, 'test_recompute', { actor: systemActor, companyId }, (tx) => recomputeInvoiceBalance(tx.db, invoice, tx.now));
    expect(totals).toEqual({ paid_amount: 3_000, balance: 7_000, closing_reason: null, closed_date: null });
    expect(await invoiceRow(invoice)).toEqual({ ...totals, updated_at: '2026-11-24T08:00:00.000Z' });
  });

  it('keeps invoice_due_totals in step through its trigger', async () => {
    const l = ledger(engine, companyId);
    const customer = await l.customer({ name: 'Borealis' });
    const invoice = await l.invoice({ customer, number: 'INV-1', total: 100, dueDate: '2026-11-30' });
    await l.payment({ invoice, amount: 100, payment_date: '2026-11-10' });
    const rows = await engine.db.selectFrom('invoice_due_totals').selectAll().where('company_id', '=', companyId).execute();
    expect(rows).toEqual([{ company_id: companyId, due_date: '2026-11-30', state: 'paid', invoice_count: 1, nonzero_count: 0, total_amount: 10_000, balance: 0 }]);
  });
});
