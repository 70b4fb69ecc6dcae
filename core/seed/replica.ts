/**
 * The bulk path's stand-in for the per-row insert triggers it sets aside: the same upserts, summed
 * per key over the generated rows and applied once per key.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { toEpochDay } from '../dates';
import { NOT_WRITTEN_OFF } from '../db/migrations/0098_metrics_inputs';
import type { CustomerInvoiceTotalsTable, InvoiceDueTotalsTable } from '../db/schema';
import type { InvoiceRow, PaymentRow } from './ledger';

/**
 * The insert triggers the bulk path replaces (migrations 0001, 0003, 0004, 0050, 0097, 0098, 0470). Each one's upsert is
 * replayed below with the same key and the same merge, once per key with the summed values. A
 * trigger not named here stays in place and fires as usual: slower, never wrong.
 */
export const REPLACED_TRIGGERS = [
  'invoices_totals_insert',
  'invoices_fts_insert',
  'invoices_customer_totals_insert',
  'invoices_open_totals_insert',
  'payments_totals_insert',
  'invoices_paid_lateness_insert',
  'invoices_issue_totals_insert',
  'payments_issue_totals_insert',
  'invoices_team_book_insert',
  'payments_team_book_insert',
] as const;
export type ReplacedTrigger = (typeof REPLACED_TRIGGERS)[number];

type DueTotal = Omit<InvoiceDueTotalsTable, 'company_id'>;

type CustomerTotal = Omit<CustomerInvoiceTotalsTable, 'company_id'>;

interface PaymentTotal {
  payment_date: string;
  status: string;
  payment_method: string;
  payment_count: number;
  amount: number;
}

/**
 * What the replaced triggers accumulate: plain maps, so the state crosses from a generating worker
 * thread to the writing one as a structured clone. Composite keys are numbers built from the codes
 * of their parts (dates, states): no key string is built per row.
 */
export interface ReplicaState {
  /** The strings behind the codes, by code. */
  names: string[];
  codes: Map<string, number>;
  due: Map<number, DueTotal>;
  customers: Map<string, CustomerTotal>;
  payments: Map<number, PaymentTotal>;
  /** Per customer, the balance of its open invoices with a balance (0050's insert trigger). */
  openBalances: Map<string, number>;
  /** Per customer, its paid invoices and their days paid late (0097). */
  lateness: Map<string, { paid_count: number; late_days: number }>;
  /** Invoice totals and settled payments by the dates that decide when they count (0098), keyed (issued, due, written_off[, paid]). */
  issueTotals: Map<number, number>;
  paymentIssueTotals: Map<number, number>;
  /** The last invoice and its issue key: the ledger writes each invoice's payments right after it. */
  lastInvoiceId: string | null;
  lastIssueKey: number;
  /** Per customer, the code of its AR owner ('' for none): the team books (0470) are per owner. */
  owners: Map<string, number>;
  /** The team books: per (owner, day) key [sales, collected, receivable]; per (due date, owner, day) key the receivable. */
  teamDays: Map<number, [number, number, number]>;
  teamDues: Map<number, number>;
  /** The last invoice as its payments count in the team books: its owner and due date codes, its date, whether its receivable is kept. */
  lastTeam: { owner: number; due: number; invoiceDate: string; regular: boolean };
}

/** Codes stay below this, so a key of four codes stays an exact integer (4 x 12 bits). */
const CODE_SPACE = 4096;

function emptyReplicaState(): ReplicaState {
  return {
    names: [],
    codes: new Map(),
    due: new Map(),
    customers: new Map(),
    payments: new Map(),
    openBalances: new Map(),
    lateness: new Map(),
    issueTotals: new Map(),
    paymentIssueTotals: new Map(),
    lastInvoiceId: null,
    lastIssueKey: 0,
    owners: new Map(),
    teamDays: new Map(),
    teamDues: new Map(),
    lastTeam: { owner: 0, due: 0, invoiceDate: '', regular: false },
  };
}

/** The parts of a composite key, most significant first. */
function keyParts(key: number, parts: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < parts; i++) {
    const code = key % CODE_SPACE;
    out.unshift(code);
    key = (key - code) / CODE_SPACE;
  }
  return out;
}

/** What the replaced triggers would have accumulated, row by row, for one company's new rows. */
export class TriggerReplica {
  private readonly epochDays = new Map<string, number>();

  constructor(readonly state: ReplicaState = emptyReplicaState()) {}

  private code(name: string): number {
    let code = this.state.codes.get(name);
    if (code === undefined) {
      code = this.state.names.length;
      if (code === CODE_SPACE) throw new Error('bulk load: too many distinct dates for the trigger replica');
      this.state.names.push(name);
      this.state.codes.set(name, code);
    }
    return code;
  }

  private epochDay(date: string): number {
    let day = this.epochDays.get(date);
    if (day === undefined) this.epochDays.set(date, (day = toEpochDay(date)));
    return day;
  }

  /** A customer's AR owner, for its invoices' team book. */
  customer(r: { id: string; ar_owner_id: string | null }): void {
    this.state.owners.set(r.id, this.code(r.ar_owner_id ?? ''));
  }

  private teamDay(owner: number, day: string, sales: number, collected: number, receivable: number): void {
    const key = owner * CODE_SPACE + this.code(day);
    const row = this.state.teamDays.get(key);
    if (row) {
      row[0] += sales;
      row[1] += collected;
      row[2] += receivable;
    } else {
      this.state.teamDays.set(key, [sales, collected, receivable]);
    }
  }

  private teamDue(due: number, owner: number, day: string, receivable: number): void {
    const key = (due * CODE_SPACE + owner) * CODE_SPACE + this.code(day);
    this.state.teamDues.set(key, (this.state.teamDues.get(key) ?? 0) + receivable);
  }

  invoice(r: InvoiceRow): void {
    const { state: s } = this;
    // The team book (0470): its total as sales, and as receivable as regular() and closedUnpaid() there say.
    const owner = s.owners.get(r.customer_id);
    if (owner === undefined) throw new Error(`bulk load: invoice ${r.id} comes before its customer`);
    const regular = r.total_amount > 0 && (r.closing_reason === null || r.closing_reason === 'paid');
    const closedUnpaid = r.total_amount > 0 && (r.closing_reason === 'credit_memo' || r.closing_reason === 'written_off') && r.paid_amount === 0 && r.closed_date !== null;
    this.teamDay(owner, r.invoice_date, r.total_amount, 0, regular || closedUnpaid ? r.total_amount : 0);
    if (regular || closedUnpaid) this.teamDue(this.code(r.due_date), owner, r.invoice_date, r.total_amount);
    if (closedUnpaid && r.closed_date !== null) {
      const closing = r.closed_date > r.invoice_date ? r.closed_date : r.invoice_date;
      this.teamDay(owner, closing, 0, 0, -r.total_amount);
      this.teamDue(this.code(r.due_date), owner, closing, -r.total_amount);
    }
    s.lastTeam = { owner, due: this.code(r.due_date), invoiceDate: r.invoice_date, regular };
    const state = r.closing_reason ?? 'open';
    const due = this.code(r.due_date);
    const dueKey = due * CODE_SPACE + this.code(state);
    const d = s.due.get(dueKey);
    if (d) {
      d.invoice_count++;
      d.nonzero_count += r.balance !== 0 ? 1 : 0;
      d.total_amount += r.total_amount;
      d.balance += r.balance;
    } else {
      s.due.set(dueKey, { due_date: r.due_date, state, invoice_count: 1, nonzero_count: r.balance !== 0 ? 1 : 0, total_amount: r.total_amount, balance: r.balance });
    }
    if (r.closing_reason === null && r.balance !== 0) s.openBalances.set(r.customer_id, (s.openBalances.get(r.customer_id) ?? 0) + r.balance);
    if (r.closing_reason === 'paid' && r.closed_date !== null) {
      const late = s.lateness.get(r.customer_id) ?? { paid_count: 0, late_days: 0 };
      late.paid_count++;
      late.late_days += Math.max(this.epochDay(r.closed_date) - this.epochDay(r.due_date), 0);
      s.lateness.set(r.customer_id, late);
    }
    const writtenOff = r.closing_reason === 'credit_memo' || r.closing_reason === 'written_off' ? (r.closed_date ?? '') : NOT_WRITTEN_OFF;
    const issueKey = (this.code(r.invoice_date) * CODE_SPACE + due) * CODE_SPACE + this.code(writtenOff);
    s.issueTotals.set(issueKey, (s.issueTotals.get(issueKey) ?? 0) + r.total_amount);
    s.lastInvoiceId = r.id;
    s.lastIssueKey = issueKey;
    const openDue = r.closing_reason === null && r.balance > 0 ? r.due_date : null;
    const c = s.customers.get(r.customer_id);
    if (c) {
      c.customer_name = r.customer_name;
      c.invoice_count++;
      c.total_amount += r.total_amount;
      c.balance += r.balance;
      if (r.due_date < c.oldest_due_date) c.oldest_due_date = r.due_date;
      if (openDue !== null && (c.oldest_open_due_date === null || openDue < c.oldest_open_due_date)) c.oldest_open_due_date = openDue;
    } else {
      s.customers.set(r.customer_id, {
        customer_id: r.customer_id,
        customer_name: r.customer_name,
        invoice_count: 1,
        total_amount: r.total_amount,
        balance: r.balance,
        oldest_due_date: r.due_date,
        oldest_open_due_date: openDue,
      });
    }
  }

  payment(r: PaymentRow): void {
    const { state: s } = this;
    const date = this.code(r.payment_date);
    if (r.status === 'PAID' || r.status === 'PARTIAL') {
      if (r.invoice_id !== s.lastInvoiceId) throw new Error(`bulk load: payment ${r.id} does not follow its invoice`);
      const key = s.lastIssueKey * CODE_SPACE + date;
      s.paymentIssueTotals.set(key, (s.paymentIssueTotals.get(key) ?? 0) + r.amount);
      const t = s.lastTeam;
      this.teamDay(t.owner, r.payment_date, 0, r.amount, 0);
      if (t.regular) {
        const day = r.payment_date > t.invoiceDate ? r.payment_date : t.invoiceDate;
        this.teamDay(t.owner, day, 0, 0, -r.amount);
        this.teamDue(t.due, t.owner, day, -r.amount);
      }
    }
    const key = (date * CODE_SPACE + this.code(r.status)) * CODE_SPACE + this.code(r.payment_method);
    const p = s.payments.get(key);
    if (p) {
      p.payment_count++;
      p.amount += r.amount;
    } else {
      s.payments.set(key, { payment_date: r.payment_date, status: r.status, payment_method: r.payment_method, payment_count: 1, amount: r.amount });
    }
  }

  /** Applies the accumulated upserts of the given (dropped) triggers. */
  write(sqlite: BetterSqlite3.Database, companyId: string, triggers: Set<ReplacedTrigger>): void {
    if (triggers.has('invoices_totals_insert')) {
      const upsert = sqlite.prepare(
        `INSERT INTO invoice_due_totals (company_id, due_date, state, invoice_count, nonzero_count, total_amount, balance) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (company_id, due_date, state) DO UPDATE SET
           invoice_count = invoice_count + excluded.invoice_count,
           nonzero_count = nonzero_count + excluded.nonzero_count,
           total_amount = total_amount + excluded.total_amount,
           balance = balance + excluded.balance`,
      );
      for (const d of this.state.due.values()) upsert.run(companyId, d.due_date, d.state, d.invoice_count, d.nonzero_count, d.total_amount, d.balance);
    }
    if (triggers.has('invoices_customer_totals_insert')) {
      const upsert = sqlite.prepare(
        `INSERT INTO customer_invoice_totals (company_id, customer_id, customer_name, invoice_count, total_amount, balance, oldest_due_date, oldest_open_due_date)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (company_id, customer_id) DO UPDATE SET
           customer_name = excluded.customer_name,
           invoice_count = invoice_count + excluded.invoice_count,
           total_amount = total_amount + excluded.total_amount,
           balance = balance + excluded.balance,
           oldest_due_date = min(oldest_due_date, excluded.oldest_due_date),
           oldest_open_due_date = coalesce(min(oldest_open_due_date, excluded.oldest_open_due_date), oldest_open_due_date, excluded.oldest_open_due_date)`,
      );
      for (const c of this.state.customers.values()) {
        upsert.run(companyId, c.customer_id, c.customer_name, c.invoice_count, c.total_amount, c.balance, c.oldest_due_date, c.oldest_open_due_date);
      }
    }
    if (triggers.has('invoices_open_totals_insert')) {
      const upsert = sqlite.prepare(
        `INSERT INTO customer_open_totals (company_id, customer_id, open_balance) VALUES (?, ?, ?)
         ON CONFLICT (company_id, customer_id) DO UPDATE SET open_balance = open_balance + excluded.open_balance`,
      );
      for (const [customerId, balance] of this.state.openBalances) upsert.run(companyId, customerId, balance);
    }
    if (triggers.has('payments_totals_insert')) {
      const upsert = sqlite.prepare(
        `INSERT INTO payment_day_totals (company_id, payment_date, status, payment_method, payment_count, amount) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (company_id, payment_date, status, payment_method) DO UPDATE SET
           payment_count = payment_count + excluded.payment_count,
           amount = amount + excluded.amount`,
      );
      for (const p of this.state.payments.values()) upsert.run(companyId, p.payment_date, p.status, p.payment_method, p.payment_count, p.amount);
    }
    if (triggers.has('invoices_paid_lateness_insert')) {
      const upsert = sqlite.prepare(
        `INSERT INTO customer_paid_lateness (company_id, customer_id, paid_count, late_days) VALUES (?, ?, ?, ?)
         ON CONFLICT (company_id, customer_id) DO UPDATE SET paid_count = paid_count + excluded.paid_count, late_days = late_days + excluded.late_days`,
      );
      for (const [customerId, l] of this.state.lateness) upsert.run(companyId, customerId, l.paid_count, l.late_days);
    }
    if (triggers.has('invoices_issue_totals_insert')) {
      const upsert = sqlite.prepare(
        `INSERT INTO invoice_issue_totals (company_id, invoice_date, due_date, written_off, total_amount) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (company_id, invoice_date, due_date, written_off) DO UPDATE SET total_amount = total_amount + excluded.total_amount`,
      );
      for (const [key, amount] of this.state.issueTotals) upsert.run(companyId, ...keyParts(key, 3).map((c) => this.state.names[c]), amount);
    }
    if (triggers.has('payments_issue_totals_insert')) {
      const upsert = sqlite.prepare(
        `INSERT INTO payment_issue_totals (company_id, invoice_date, due_date, written_off, payment_date, amount) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (company_id, invoice_date, due_date, written_off, payment_date) DO UPDATE SET amount = amount + excluded.amount`,
      );
      for (const [key, amount] of this.state.paymentIssueTotals) upsert.run(companyId, ...keyParts(key, 4).map((c) => this.state.names[c]), amount);
    }
    // The two team book triggers are set aside together (both exist from 0470 on).
    if (triggers.has('invoices_team_book_insert') && triggers.has('payments_team_book_insert')) {
      const day = sqlite.prepare(
        `INSERT INTO team_book_days (company_id, owner_id, day, sales, collected, receivable) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (company_id, owner_id, day) DO UPDATE SET sales = sales + excluded.sales, collected = collected + excluded.collected, receivable = receivable + excluded.receivable`,
      );
      for (const [key, [sales, collected, receivable]] of this.state.teamDays) day.run(companyId, ...keyParts(key, 2).map((c) => this.state.names[c]), sales, collected, receivable);
      const due = sqlite.prepare(
        `INSERT INTO team_book_dues (company_id, due_date, owner_id, day, receivable) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (company_id, due_date, owner_id, day) DO UPDATE SET receivable = receivable + excluded.receivable`,
      );
      for (const [key, receivable] of this.state.teamDues) due.run(companyId, ...keyParts(key, 3).map((c) => this.state.names[c]), receivable);
    }
    if (triggers.has('invoices_fts_insert')) {
      // The full-text rows are keyed by invoices.seq, known only once the rows are in.
      sqlite.prepare(`INSERT INTO invoice_number_fts (rowid, invoice_number) SELECT seq, invoice_number FROM invoices WHERE company_id = ? ORDER BY seq`).run(companyId);
    }
  }
}
