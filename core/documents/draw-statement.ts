/**
 * Drawing a statement of account (on a document thread, render.ts): the figures as statement.ts
 * reads them, the aging subtotals and total due worked out from them, and the pages. Nothing here
 * reads the database, so a thread loads only this, the page kit and pdfkit.
 */
import { formatRf, statementRf } from '../rf';
import { AGING_BUCKET_LABELS, AGING_BUCKETS, type AgingBucket, agingBucketOfStatus, daysPastDue, openStatus } from '../invoices/status';
import { creditSourceWords } from '../payments/credit-words';
import { type CustomerCredits, netBalances } from '../payments/credits';
import type { DocumentDetailsWithLogo } from './details';
import { type Column, type DrawnDocument, drawHead, finish, formatsFor, heading, methodWords, paragraph, type Row, setRunningTitle, startDocument, table, textBlock, totals } from './pdf';

/** How far back "recent payments" reach before the statement date. */
export const RECENT_PAYMENT_DAYS = 90;
export interface StatementInvoice {
  invoice_number: string;
  invoice_date: string;
  due_date: string;
  currency: string;
  total_amount: number;
  /** Paid (or otherwise settled) by the statement date. */
  paid: number;
  open: number;
}

export interface StatementPayment {
  payment_date: string;
  invoice_number: string;
  payment_method: string;
  currency: string;
  amount: number;
}

export interface ActivityEntry {
  date: string;
  kind: 'invoice' | 'payment';
  reference: string;
  currency: string;
  /** Invoices add to what is owed, payments take from it (minor units, positive). */
  charge: number;
  payment: number;
}

export interface StatementData {
  customer: { id: string; name: string; address: string[] };
  as_of: string;
  invoices: StatementInvoice[];
  payments: StatementPayment[];
  activity: { from: string; to: string; entries: ActivityEntry[] } | null;
  /** Overpayments, unused credit notes and unapplied cash on the statement date (core/payments/credits.ts). */
  credits: CustomerCredits;
}

export interface AgingLine {
  bucket: AgingBucket;
  label: string;
  open: number;
  count: number;
}

export interface CurrencyTotals {
  currency: string;
  aging: AgingLine[];
  total_due: number;
  overdue: number;
}

/** Aging subtotals and total due per currency (a customer billed in two currencies owes two sums). */
export function statementTotals(invoices: StatementInvoice[], asOf: string): CurrencyTotals[] {
  const byCurrency = new Map<string, CurrencyTotals>();
  for (const invoice of invoices) {
    let totals = byCurrency.get(invoice.currency);
    if (!totals) {
      totals = { currency: invoice.currency, aging: AGING_BUCKETS.map((bucket) => ({ bucket, label: AGING_BUCKET_LABELS[bucket], open: 0, count: 0 })), total_due: 0, overdue: 0 };
      byCurrency.set(invoice.currency, totals);
    }
    const days = daysPastDue(invoice.due_date, asOf);
    const line = totals.aging[AGING_BUCKETS.indexOf(agingBucketOfStatus(openStatus(days)))];
    line.open += invoice.open;
    line.count += 1;
    totals.total_due += invoice.open;
    if (days > 0) totals.overdue += invoice.open;
  }
  return [...byCurrency.values()].sort((a, b) => a.currency.localeCompare(b.currency));
}


export function renderStatement(data: StatementData, details: DocumentDetailsWithLogo): Promise<DrawnDocument> {
  const f = formatsFor(details.locale);
  const title = 'Statement of account';
  const page = startDocument(details, `${title}: ${data.customer.name}`);
  const summary = statementTotals(data.invoices, data.as_of);
  const net = netBalances(summary.map((t) => ({ currency: t.currency, open: t.total_due })), data.credits.totals);
  const facts: Array<[string, string]> = [['Statement date', f.date(data.as_of)]];
  for (const t of summary) facts.push([summary.length > 1 ? `Total due (${t.currency})` : 'Total due', f.money(t.total_due, t.currency)]);
  // With credits on the account, what is to be paid is the total due less them.
  for (const n of data.credits.totals.length ? net : []) facts.push(amountDueLine(f, n, net.length > 1));
  let y = drawHead(page, details, title, facts);
  setRunningTitle(page, `${details.company_name} · ${title} · ${data.customer.name} · ${f.date(data.as_of)}`);

  y = heading(page, y, 'Account');
  y = textBlock(page.doc.font('bold'), data.customer.name, page.left, y, page.width);
  page.doc.font('regular');
  for (const line of data.customer.address) y = textBlock(page.doc, line, page.left, y, page.width);
  y += 12;

  y = heading(page, y, 'Open invoices');
  if (data.invoices.length === 0) {
    y = paragraph(page, y, `There are no open invoices on this account as of ${f.date(data.as_of)}. Nothing is due.`);
  } else {
    const columns: Column[] = [
      { label: 'Invoice', share: 0.15 },
      { label: 'Invoice date', share: 0.135 },
      { label: 'Due date', share: 0.135 },
      { label: 'Days past due', share: 0.145, align: 'right' },
      { label: 'Amount', share: 0.15, align: 'right' },
      { label: 'Paid', share: 0.135, align: 'right' },
      { label: 'Open', share: 0.15, align: 'right' },
    ];
    const rows: Row[] = data.invoices.map((i) => {
      const days = daysPastDue(i.due_date, data.as_of);
      return { cells: [i.invoice_number, f.date(i.invoice_date), f.date(i.due_date), days > 0 ? String(days) : '', f.money(i.total_amount, i.currency), f.money(i.paid, i.currency), f.money(i.open, i.currency)] };
    });
    y = table(page, y, columns, rows);
    for (const t of summary) {
      const suffix = summary.length > 1 ? ` (${t.currency})` : '';
      y = heading(page, y, `Aging${suffix}`, 6 * 14 + 40);
      y = totals(page, y, [
        ...t.aging.map((line) => ({ label: `${line.label} (${line.count})`, value: f.money(line.open, t.currency) })),
        { label: 'Overdue', value: f.money(t.overdue, t.currency) },
        { label: `Total due${suffix}`, value: f.money(t.total_due, t.currency), bold: true },
      ]);
    }
  }

  if (data.credits.items.length) {
    y = heading(page, y, 'Credits and unapplied cash');
    y = table(
      page,
      y,
      [
        { label: 'Date', share: 0.18 },
        { label: 'Credit', share: 0.57 },
        { label: 'Amount', share: 0.25, align: 'right' },
      ],
      data.credits.items.map((c) => ({ cells: [f.date(c.date), creditSourceWords(c), f.money(c.amount, c.currency)] })),
    );
    for (const n of net) {
      const suffix = net.length > 1 ? ` (${n.currency})` : '';
      const [label, value] = amountDueLine(f, n, net.length > 1);
      y = totals(page, y, [
        { label: `Total due${suffix}`, value: f.money(n.open, n.currency) },
        { label: `Credits${suffix}`, value: `-${f.money(n.credits, n.currency)}` },
        { label, value, bold: true },
      ]);
    }
  }

  if (data.activity) {
    const a = data.activity;
    y = heading(page, y, `Activity from ${f.date(a.from)} to ${f.date(a.to)}`);
    if (a.entries.length === 0) y = paragraph(page, y, 'No invoices were issued and no payments received in this period.');
    else
      y = table(
        page,
        y,
        [
          { label: 'Date', share: 0.18 },
          { label: 'Activity', share: 0.32 },
          { label: 'Invoiced', share: 0.25, align: 'right' },
          { label: 'Paid', share: 0.25, align: 'right' },
        ],
        a.entries.map((e) => ({
          cells: [f.date(e.date), e.kind === 'invoice' ? `Invoice ${e.reference}` : `Payment on ${e.reference}`, e.charge ? f.money(e.charge, e.currency) : '', e.payment ? f.money(e.payment, e.currency) : ''],
        })),
      );
  }

  y = heading(page, y, 'Recent payments');
  if (data.payments.length === 0) y = paragraph(page, y, `No payments received in the ${RECENT_PAYMENT_DAYS} days before ${f.date(data.as_of)}.`);
  else
    y = table(
      page,
      y,
      [
        { label: 'Date', share: 0.2 },
        { label: 'Invoice', share: 0.25 },
        { label: 'Method', share: 0.3 },
        { label: 'Amount', share: 0.25, align: 'right' },
      ],
      data.payments.map((p) => ({ cells: [f.date(p.payment_date), p.invoice_number, methodWords(p.payment_method), f.money(p.amount, p.currency)] })),
    );

  // The statement's reference names the customer: a transfer quoting it is matched to their account.
  const owed = data.invoices.some((i) => i.open > 0);
  if (details.payment_instructions || details.portal_link || owed) {
    y = heading(page, y, 'How to pay');
    if (details.payment_instructions) y = paragraph(page, y, details.payment_instructions);
    if (owed) y = paragraph(page, y, `Payment reference for a bank transfer: ${formatRf(statementRf(data.customer.id))}`);
    if (details.portal_link) y = paragraph(page, y, `Pay online: ${details.portal_link}`);
  }
  return finish(page, details);
}

/** The total due less the credits, or what the account holds in the customer's favour. */
function amountDueLine(f: ReturnType<typeof formatsFor>, n: { currency: string; net: number }, several: boolean): [string, string] {
  const suffix = several ? ` (${n.currency})` : '';
  return n.net >= 0 ? [`Amount due${suffix}`, f.money(n.net, n.currency)] : [`In your favour${suffix}`, f.money(-n.net, n.currency)];
}
