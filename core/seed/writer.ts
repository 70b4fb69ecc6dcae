/**
 * Writes generated ledger rows into SQLite through prepared statements on the raw handle, inside
 * the caller's transaction. In bulk mode it sets aside the known per-row insert triggers and the
 * secondary indexes of invoices and payments, does the triggers' work itself (the same upserts,
 * summed per key instead of applied per row), and re-creates the indexes and triggers from their
 * own SQL text in sqlite_master: the rows left behind are exactly those of the normal path.
 */
import { availableParallelism } from 'node:os';
import type BetterSqlite3 from 'better-sqlite3';
import { daysBetween } from '../dates';
import { NOT_WRITTEN_OFF } from '../db/migrations/0098_metrics_inputs';
import type { InvoiceRow, LedgerSink, PaymentRow } from './ledger';

/** Rows per multi-row INSERT: the statement's fixed cost is paid once per batch, far below the bound-parameter limit. */
const BATCH_ROWS = 32;

/**
 * One table's rows, inserted BATCH_ROWS at a time in the order given (so row ids are those of
 * one-by-one inserts). `before` flushes first: the rows this table's rows refer to.
 */
function batchedInsert(sqlite: BetterSqlite3.Database, table: string, columns: readonly string[], before: () => void = () => {}) {
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const statements = new Map<number, BetterSqlite3.Statement>();
  const insert = (n: number) => {
    let statement = statements.get(n);
    if (!statement) {
      statement = sqlite.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${Array.from({ length: n }, () => tuple).join(', ')}`);
      statements.set(n, statement);
    }
    return statement;
  };
  const pending: unknown[] = [];
  let rows = 0;
  const flush = () => {
    if (rows === 0) return;
    before();
    insert(rows).run(pending);
    pending.length = 0;
    rows = 0;
  };
  return {
    add(values: unknown[]) {
      for (const v of values) pending.push(v);
      if (++rows === BATCH_ROWS) flush();
    },
    flush,
  };
}

const INVOICE_COLUMNS = [
  'id', 'company_id', 'customer_id', 'customer_name', 'customer_location_id', 'invoice_number', 'invoice_date', 'due_date', 'currency',
  'total_amount', 'paid_amount', 'balance', 'closing_reason', 'closed_date', 'payment_link', 'next_follow_up_date', 'remote_id', 'transaction_type',
  'parent_invoice_id', 'progress_percentage', 'last_touch_at', 'last_touched_by', 'created_at', 'updated_at',
] as const satisfies ReadonlyArray<keyof InvoiceRow>;

const PAYMENT_COLUMNS = [
  'id', 'company_id', 'invoice_id', 'amount', 'payment_date', 'payment_method', 'payment_type', 'status', 'transaction_id', 'remote_id', 'notes',
  'voided_at', 'created_at', 'updated_at',
] as const satisfies ReadonlyArray<keyof PaymentRow>;

/** The generator's rows into SQLite. Invoices and payments go in batches: call flush() when done. */
export function sqliteSink(sqlite: BetterSqlite3.Database): LedgerSink & { flush(): void } {
  const customer = sqlite.prepare(
    `INSERT INTO customers (id, company_id, name, is_person, ar_owner_id, sales_owner_id, remote_id, currency, payment_terms_days, notes, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const contact = sqlite.prepare(
    `INSERT INTO customer_contacts (id, company_id, customer_id, name, email, phone, title, is_billing, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const location = sqlite.prepare(
    `INSERT INTO customer_locations (id, company_id, customer_id, name, address_line1, city, region, postal_code, country, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // Payments and labels refer to invoices: the invoices still pending go in first.
  const invoices = batchedInsert(sqlite, 'invoices', INVOICE_COLUMNS);
  const payments = batchedInsert(sqlite, 'payments', PAYMENT_COLUMNS, invoices.flush);
  const label = sqlite.prepare(`INSERT INTO invoice_labels (company_id, invoice_id, label_id, created_at) VALUES (?, ?, ?, ?)`);
  const snapshot = sqlite.prepare(
    `INSERT INTO aging_snapshots (id, company_id, snapshot_date, current_amount, d1_30_amount, d31_60_amount, d61_90_amount, d91_over_amount, total_amount, invoice_count, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  return {
    customer: (r) =>
      customer.run(r.id, r.company_id, r.name, r.is_person, r.ar_owner_id, r.sales_owner_id, r.remote_id, r.currency, r.payment_terms_days, r.notes, r.created_at, r.updated_at),
    contact: (r) => contact.run(r.id, r.company_id, r.customer_id, r.name, r.email, r.phone, r.title, r.is_billing, r.created_at, r.updated_at),
    location: (r) => location.run(r.id, r.company_id, r.customer_id, r.name, r.address_line1, r.city, r.region, r.postal_code, r.country, r.created_at, r.updated_at),
    invoice: (r) => invoices.add(INVOICE_COLUMNS.map((c) => r[c])),
    payment: (r) => payments.add(PAYMENT_COLUMNS.map((c) => r[c])),
    invoiceLabel: (r) => {
      invoices.flush();
      label.run(r.company_id, r.invoice_id, r.label_id, r.created_at);
    },
    snapshot: (r) =>
      snapshot.run(r.id, r.company_id, r.snapshot_date, r.current_amount, r.d1_30_amount, r.d31_60_amount, r.d61_90_amount, r.d91_over_amount, r.total_amount, r.invoice_count, r.created_at),
    flush() {
      invoices.flush();
      payments.flush();
    },
  };
}

/**
 * The insert triggers the bulk path replaces (migrations 0001, 0003, 0004, 0050, 0097, 0098). Each one's upsert is
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
] as const;
type ReplacedTrigger = (typeof REPLACED_TRIGGERS)[number];
const INDEXED_TABLES = ['invoices', 'payments'];

interface DueTotal {
  due_date: string;
  state: string;
  invoice_count: number;
  nonzero_count: number;
  total_amount: number;
  balance: number;
}

interface CustomerTotal {
  customer_id: string;
  customer_name: string;
  invoice_count: number;
  total_amount: number;
  balance: number;
  oldest_due_date: string;
  oldest_open_due_date: string | null;
}

interface PaymentTotal {
  payment_date: string;
  status: string;
  payment_method: string;
  payment_count: number;
  amount: number;
}

/** What the replaced triggers would have accumulated, row by row, for one company's new rows. */
class TriggerReplica {
  private readonly due = new Map<string, DueTotal>();
  private readonly customers = new Map<string, CustomerTotal>();
  private readonly payments = new Map<string, PaymentTotal>();
  /** Per customer, the balance of its open invoices with a balance (0050's insert trigger). */
  private readonly openBalances = new Map<string, number>();
  /** Per customer, its paid invoices and their days paid late (0097). */
  private readonly lateness = new Map<string, { paid_count: number; late_days: number }>();
  /** Invoice totals and settled payments by the dates that decide when they count (0098), keyed 'issued|due|written_off[|paid]'. */
  private readonly issueTotals = new Map<string, number>();
  private readonly paymentIssueTotals = new Map<string, number>();
  /** The issue key of the last invoice: the ledger writes each invoice's payments right after it. */
  private lastInvoice: { id: string; key: string } | null = null;

  invoice(r: InvoiceRow): void {
    const state = r.closing_reason ?? 'open';
    const dueKey = `${r.due_date}|${state}`;
    const d = this.due.get(dueKey);
    if (d) {
      d.invoice_count++;
      d.nonzero_count += r.balance !== 0 ? 1 : 0;
      d.total_amount += r.total_amount;
      d.balance += r.balance;
    } else {
      this.due.set(dueKey, { due_date: r.due_date, state, invoice_count: 1, nonzero_count: r.balance !== 0 ? 1 : 0, total_amount: r.total_amount, balance: r.balance });
    }
    if (r.closing_reason === null && r.balance !== 0) this.openBalances.set(r.customer_id, (this.openBalances.get(r.customer_id) ?? 0) + r.balance);
    if (r.closing_reason === 'paid' && r.closed_date !== null) {
      const late = this.lateness.get(r.customer_id) ?? { paid_count: 0, late_days: 0 };
      late.paid_count++;
      late.late_days += Math.max(daysBetween(r.due_date, r.closed_date), 0);
      this.lateness.set(r.customer_id, late);
    }
    const writtenOff = r.closing_reason === 'credit_memo' || r.closing_reason === 'written_off' ? (r.closed_date ?? '') : NOT_WRITTEN_OFF;
    const issueKey = `${r.invoice_date}|${r.due_date}|${writtenOff}`;
    this.issueTotals.set(issueKey, (this.issueTotals.get(issueKey) ?? 0) + r.total_amount);
    this.lastInvoice = { id: r.id, key: issueKey };
    const openDue = r.closing_reason === null && r.balance > 0 ? r.due_date : null;
    const c = this.customers.get(r.customer_id);
    if (c) {
      c.customer_name = r.customer_name;
      c.invoice_count++;
      c.total_amount += r.total_amount;
      c.balance += r.balance;
      if (r.due_date < c.oldest_due_date) c.oldest_due_date = r.due_date;
      if (openDue !== null && (c.oldest_open_due_date === null || openDue < c.oldest_open_due_date)) c.oldest_open_due_date = openDue;
    } else {
      this.customers.set(r.customer_id, {
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
    if (r.status === 'PAID' || r.status === 'PARTIAL') {
      if (r.invoice_id !== this.lastInvoice?.id) throw new Error(`bulk load: payment ${r.id} does not follow its invoice`);
      const key = `${this.lastInvoice.key}|${r.payment_date}`;
      this.paymentIssueTotals.set(key, (this.paymentIssueTotals.get(key) ?? 0) + r.amount);
    }
    const key = `${r.payment_date}|${r.status}|${r.payment_method}`;
    const p = this.payments.get(key);
    if (p) {
      p.payment_count++;
      p.amount += r.amount;
    } else {
      this.payments.set(key, { payment_date: r.payment_date, status: r.status, payment_method: r.payment_method, payment_count: 1, amount: r.amount });
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
      for (const d of this.due.values()) upsert.run(companyId, d.due_date, d.state, d.invoice_count, d.nonzero_count, d.total_amount, d.balance);
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
      for (const c of this.customers.values()) {
        upsert.run(companyId, c.customer_id, c.customer_name, c.invoice_count, c.total_amount, c.balance, c.oldest_due_date, c.oldest_open_due_date);
      }
    }
    if (triggers.has('invoices_open_totals_insert')) {
      const upsert = sqlite.prepare(
        `INSERT INTO customer_open_totals (company_id, customer_id, open_balance) VALUES (?, ?, ?)
         ON CONFLICT (company_id, customer_id) DO UPDATE SET open_balance = open_balance + excluded.open_balance`,
      );
      for (const [customerId, balance] of this.openBalances) upsert.run(companyId, customerId, balance);
    }
    if (triggers.has('payments_totals_insert')) {
      const upsert = sqlite.prepare(
        `INSERT INTO payment_day_totals (company_id, payment_date, status, payment_method, payment_count, amount) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (company_id, payment_date, status, payment_method) DO UPDATE SET
           payment_count = payment_count + excluded.payment_count,
           amount = amount + excluded.amount`,
      );
      for (const p of this.payments.values()) upsert.run(companyId, p.payment_date, p.status, p.payment_method, p.payment_count, p.amount);
    }
    if (triggers.has('invoices_paid_lateness_insert')) {
      const upsert = sqlite.prepare(
        `INSERT INTO customer_paid_lateness (company_id, customer_id, paid_count, late_days) VALUES (?, ?, ?, ?)
         ON CONFLICT (company_id, customer_id) DO UPDATE SET paid_count = paid_count + excluded.paid_count, late_days = late_days + excluded.late_days`,
      );
      for (const [customerId, l] of this.lateness) upsert.run(companyId, customerId, l.paid_count, l.late_days);
    }
    if (triggers.has('invoices_issue_totals_insert')) {
      const upsert = sqlite.prepare(
        `INSERT INTO invoice_issue_totals (company_id, invoice_date, due_date, written_off, total_amount) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (company_id, invoice_date, due_date, written_off) DO UPDATE SET total_amount = total_amount + excluded.total_amount`,
      );
      for (const [key, amount] of this.issueTotals) upsert.run(companyId, ...key.split('|'), amount);
    }
    if (triggers.has('payments_issue_totals_insert')) {
      const upsert = sqlite.prepare(
        `INSERT INTO payment_issue_totals (company_id, invoice_date, due_date, written_off, payment_date, amount) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (company_id, invoice_date, due_date, written_off, payment_date) DO UPDATE SET amount = amount + excluded.amount`,
      );
      for (const [key, amount] of this.paymentIssueTotals) upsert.run(companyId, ...key.split('|'), amount);
    }
    if (triggers.has('invoices_fts_insert')) {
      // The full-text rows are keyed by invoices.seq, known only once the rows are in.
      sqlite.prepare(`INSERT INTO invoice_number_fts (rowid, invoice_number) SELECT seq, invoice_number FROM invoices WHERE company_id = ? ORDER BY seq`).run(companyId);
    }
  }
}

interface SchemaObject {
  type: 'index' | 'trigger';
  name: string;
  sql: string;
}

/**
 * Runs `load` (which writes one new company's ledger through the sink it is given) with the
 * replaced triggers and the secondary indexes of invoices and payments set aside, then restores
 * them. Must run inside a transaction: a failure anywhere rolls the schema back with the data.
 */
export function bulkLoad<T>(
  sqlite: BetterSqlite3.Database,
  companyId: string,
  sink: LedgerSink,
  load: (sink: LedgerSink) => T,
  onIndex?: (done: number, total: number) => void,
): T {
  if (!sqlite.inTransaction) throw new Error('bulkLoad must run inside a transaction');
  const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');
  const triggers = sqlite
    .prepare(`SELECT type, name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN (${placeholders(REPLACED_TRIGGERS.length)}) ORDER BY name`)
    .all(...REPLACED_TRIGGERS) as SchemaObject[];
  const indexes = sqlite
    .prepare(`SELECT type, name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (${placeholders(INDEXED_TABLES.length)}) ORDER BY name`)
    .all(...INDEXED_TABLES) as SchemaObject[];
  for (const t of triggers) sqlite.exec(`DROP TRIGGER "${t.name}"`);
  for (const i of indexes) sqlite.exec(`DROP INDEX "${i.name}"`);

  const replica = new TriggerReplica();
  const result = load({
    ...sink,
    invoice(row) {
      sink.invoice(row);
      replica.invoice(row);
    },
    payment(row) {
      sink.payment(row);
      replica.payment(row);
    },
  });

  replica.write(sqlite, companyId, new Set(triggers.map((t) => t.name as ReplacedTrigger)));
  // SQLite's sorter may use helper threads for CREATE INDEX; it uses none unless asked.
  const threads = sqlite.pragma('threads', { simple: true }) as number;
  sqlite.pragma(`threads = ${Math.min(4, availableParallelism())}`);
  try {
    indexes.forEach((index, n) => {
      sqlite.exec(index.sql);
      onIndex?.(n + 1, indexes.length);
    });
  } finally {
    sqlite.pragma(`threads = ${threads}`);
  }
  for (const t of triggers) sqlite.exec(t.sql);
  return result;
}
