/**
 * The closed-invoice balance rule as a property: over random ledgers with closed invoices of every
 * kind (paid, overpaid, credited, written off with a remainder), what the list returns as `balance`
 * is what it sorts by and what hide_zero_balance and overdue_only read, page by page.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClosingReason } from '../../core/db/schema';
import { call } from '../support/api';
import { addCustomer, addInvoice, invoiceWorld, pastDue } from '../support/invoice-fixtures';

interface Spec {
  customer: number;
  daysPastDue: number;
  /** Cents. */
  total: number;
  /** Share of the total paid, in percent (above 100 for overpaid). */
  paidPercent: number;
  closing: ClosingReason | null;
}

const spec: fc.Arbitrary<Spec> = fc
  .record({
    customer: fc.integer({ min: 0, max: 2 }),
    daysPastDue: fc.integer({ min: -40, max: 200 }),
    // Few distinct totals: ties between open and closed balances are the interesting case.
    total: fc.oneof(fc.constantFrom(10_000, 50_000), fc.integer({ min: 100, max: 5_000_000 })),
    paidPercent: fc.integer({ min: 0, max: 99 }),
    closing: fc.constantFrom<ClosingReason | null>(null, null, 'paid', 'overpaid', 'credit_memo', 'written_off'),
  })
  .map((s) => ({ ...s, paidPercent: s.closing === 'paid' ? 100 : s.closing === 'overpaid' ? 100 + s.paidPercent + 1 : s.paidPercent }));

interface Item {
  invoice_number: string;
  balance: number;
  open_balance: number;
  balance_at_closing: number | null;
  status: string;
}

describe('the closed-invoice balance rule, over random ledgers', () => {
  it('sort=balance_desc and balance_asc are monotonic on the returned balance, every invoice once; the filters read the same number', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(spec, { minLength: 1, maxLength: 24 }), fc.integer({ min: 1, max: 7 }), async (specs, limit) => {
        const w = await invoiceWorld();
        try {
          const customers = await Promise.all(['Globex', 'Initech', 'Jane Doe'].map((name) => addCustomer(w.engine, w.company, { name })));
          for (const [n, s] of specs.entries()) {
            await addInvoice(w.engine, w.company, customers[s.customer], {
              number: `P-${n}`,
              dueDate: pastDue(s.daysPastDue),
              total: s.total / 100,
              paid: Math.round((s.total * s.paidPercent) / 100) / 100,
              closing: s.closing,
            });
          }
          const walk = async (query: string): Promise<Item[]> => {
            const items: Item[] = [];
            let cursor: string | null = null;
            do {
              const res = await call(w.app, 'GET', `/api/companies/${w.company}/invoices?${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token: w.token });
              expect(res.status).toBe(200);
              items.push(...res.body.items);
              cursor = res.body.next_cursor;
            } while (cursor);
            return items;
          };

          for (const [sort, ordered] of [
            ['balance_desc', (a: number, b: number) => a >= b],
            ['balance_asc', (a: number, b: number) => a <= b],
          ] as const) {
            const items = await walk(`sort=${sort}`);
            expect(items.map((i) => i.invoice_number).sort()).toEqual(specs.map((_, n) => `P-${n}`).sort());
            for (let n = 1; n < items.length; n++) expect(ordered(items[n - 1].balance, items[n].balance), `${sort}: ${items[n - 1].balance} then ${items[n].balance}`).toBe(true);
            for (const item of items) {
              const closed = item.status.startsWith('closed_');
              expect(item.open_balance).toBe(item.balance);
              if (closed) expect(item.balance).toBe(0);
              expect(item.balance_at_closing === null).toBe(!closed);
            }
          }

          const all = await walk('sort=balance_desc');
          const nonzero = await walk('sort=balance_desc&hide_zero_balance=true');
          expect(nonzero.map((i) => i.invoice_number).sort()).toEqual(all.filter((i) => i.balance !== 0).map((i) => i.invoice_number).sort());
          const overdue = await walk('sort=balance_desc&overdue_only=true');
          expect(overdue.every((i) => i.balance > 0 && i.status.startsWith('past_due_'))).toBe(true);
        } finally {
          await w.dispose();
        }
      }),
      { numRuns: 8 },
    );
  }, 120_000);
});
