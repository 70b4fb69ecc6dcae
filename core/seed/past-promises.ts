/**
 * The demo's past promises: calls logged months ago on invoices the customer then paid, some by the
 * promised day (kept) and some well after it (broken), so the promise follow-up has judged promises
 * to count from the first start, and the kept rate reads a figure on the customer pages, Analytics
 * and the team view instead of "Not enough data". Chosen from the ledger by a fixed rule, not by
 * the seed's random stream, so every other seeded row stays as it was.
 */
import type { Insertable } from 'kysely';
import { chunks } from '../chunks';
import { longDate } from '../dates';
import type { CommunicationsTable } from '../db/schema';
import type { LedgerResult } from './ledger';
import type { CompanyFrame, SeedContext } from './workspace';

/** Old enough that a broken one is judged for the rates only, never an item in today's inbox. */
const NEWEST_PAYMENT_DAY = -30;
const OLDEST_PAYMENT_DAY = -180;
const AT_MOST = 24;

export interface PastPromise {
  invoiceId: string;
  customerIndex: number;
  number: string;
  callDay: number;
  promiseDay: number;
  kept: boolean;
}

/**
 * Every fourth invoice paid late in full within the window, by invoice number; of those, every
 * third was paid ten days after the day promised (broken), the others the day after (kept, within
 * any grace). The call comes a few days before the promised day, after the invoice was issued.
 */
export function pastPromises(ledger: Pick<LedgerResult, 'invoices'>): PastPromise[] {
  const paidLate = ledger.invoices
    .flatMap((invoice) => {
      const paid = invoice.payments.filter((p) => p.status === 'PAID');
      const last = paid.at(-1);
      if (invoice.closing !== 'paid' || paid.length !== 1 || !last) return [];
      if (last.day > NEWEST_PAYMENT_DAY || last.day < OLDEST_PAYMENT_DAY || last.day <= invoice.dueDay + 5) return [];
      return [{ invoice, payDay: last.day }];
    })
    .sort((a, b) => a.invoice.number.localeCompare(b.invoice.number));
  const out: PastPromise[] = [];
  paidLate.forEach(({ invoice, payDay }, i) => {
    if (i % 4 !== 0 || out.length >= AT_MOST) return;
    const kept = out.length % 3 !== 2;
    const promiseDay = kept ? payDay - 1 : payDay - 10;
    const callDay = promiseDay - 5;
    if (callDay <= invoice.invoiceDay) return;
    out.push({ invoiceId: invoice.id, customerIndex: invoice.customerIndex, number: invoice.number, callDay, promiseDay, kept });
  });
  return out;
}

/** Writes the calls with their promises; answers how many. */
export async function writePastPromises(ctx: SeedContext, company: CompanyFrame, ledger: LedgerResult): Promise<number> {
  const { cal, ids } = ctx;
  const promises = pastPromises(ledger);
  const rows: Array<Insertable<CommunicationsTable>> = promises.map((p) => {
    const customer = ledger.customers[p.customerIndex];
    const owner = company.team.find((m) => m.id === customer.arOwnerId) ?? company.team.find((m) => m.role === 'ar')!;
    const at = cal.stamp(p.callDay, 600 + (p.customerIndex % 300));
    const contact = customer.contact.name.split(' ')[0];
    return {
      id: ids(),
      company_id: company.id,
      customer_id: customer.id,
      invoice_id: p.invoiceId,
      kind: 'call',
      direction: 'outbound',
      subject: `Call with ${customer.contact.name}`,
      body: `Spoke with ${contact}. ${p.number} will be paid by ${longDate(cal.date(p.promiseDay))}.`,
      occurred_at: at,
      author_user_id: owner.userId,
      author_name: owner.name,
      promise_date: cal.date(p.promiseDay),
      created_at: at,
    };
  });
  for (const batch of chunks(rows, 200)) await ctx.trx.insertInto('communications').values(batch).execute();
  return rows.length;
}
