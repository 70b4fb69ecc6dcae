/**
 * The generator's rows packed per table as flat value lists in column order: what the writer binds
 * to its multi-row INSERTs, and what crosses from a generating worker thread to the writing one
 * (a structured clone of primitives, far cheaper than one of row objects).
 */
import type { InvoiceLabelsTable } from '../db/schema';
import type { ContactRow, CustomerRow, InvoiceRow, LedgerSink, LocationRow, PaymentRow, SnapshotRow } from './ledger';

export const TABLE_COLUMNS = {
  customers: [
    'id', 'company_id', 'name', 'is_person', 'ar_owner_id', 'sales_owner_id', 'remote_id', 'currency', 'payment_terms_days', 'notes', 'created_at', 'updated_at',
  ] as const satisfies ReadonlyArray<keyof CustomerRow>,
  customer_contacts: ['id', 'company_id', 'customer_id', 'name', 'email', 'phone', 'title', 'is_billing', 'created_at', 'updated_at'] as const satisfies ReadonlyArray<keyof ContactRow>,
  customer_locations: [
    'id', 'company_id', 'customer_id', 'name', 'address_line1', 'city', 'region', 'postal_code', 'country', 'created_at', 'updated_at',
  ] as const satisfies ReadonlyArray<keyof LocationRow>,
  invoices: [
    'id', 'company_id', 'customer_id', 'customer_name', 'customer_location_id', 'invoice_number', 'invoice_date', 'due_date', 'currency',
    'total_amount', 'paid_amount', 'balance', 'closing_reason', 'closed_date', 'payment_link', 'next_follow_up_date', 'remote_id', 'transaction_type',
    'parent_invoice_id', 'progress_percentage', 'last_touch_at', 'last_touched_by', 'created_at', 'updated_at',
  ] as const satisfies ReadonlyArray<keyof InvoiceRow>,
  payments: [
    'id', 'company_id', 'invoice_id', 'amount', 'payment_date', 'payment_method', 'payment_type', 'status', 'transaction_id', 'remote_id', 'notes',
    'voided_at', 'created_at', 'updated_at',
  ] as const satisfies ReadonlyArray<keyof PaymentRow>,
  invoice_labels: ['company_id', 'invoice_id', 'label_id', 'created_at'] as const satisfies ReadonlyArray<keyof InvoiceLabelsTable>,
  aging_snapshots: [
    'id', 'company_id', 'snapshot_date', 'current_amount', 'd1_30_amount', 'd31_60_amount', 'd61_90_amount', 'd91_over_amount', 'total_amount', 'invoice_count', 'created_at',
  ] as const satisfies ReadonlyArray<keyof SnapshotRow>,
};

export type ChunkTable = keyof typeof TABLE_COLUMNS;

/** The order tables are written in: a row refers only to rows of earlier tables, or to earlier rows of its own. */
export const CHUNK_TABLES: readonly ChunkTable[] = ['customers', 'customer_contacts', 'customer_locations', 'invoices', 'payments', 'invoice_labels', 'aging_snapshots'];

export interface LedgerChunk {
  values: Record<ChunkTable, unknown[]>;
  /** Invoices in this chunk (progress is told in invoices). */
  invoices: number;
}

/** At most this many invoices (with their payments and labels), or customers (with contacts and locations), per chunk. */
const MAX_CHUNK_ROWS = 4096;

/** Rows per chunk for a ledger: at least a hundred chunks of invoices, so progress moves by the percent. */
export function chunkRowsFor(invoices: number): number {
  return Math.max(64, Math.min(MAX_CHUNK_ROWS, Math.ceil(invoices / 100)));
}

function emptyValues(): Record<ChunkTable, unknown[]> {
  return { customers: [], customer_contacts: [], customer_locations: [], invoices: [], payments: [], invoice_labels: [], aging_snapshots: [] };
}

/** A sink that packs rows into chunks and hands each one on when full; flush() hands on the rest. */
export class ChunkPacker implements LedgerSink {
  private values = emptyValues();
  private invoiceRows = 0;
  private customerRows = 0;

  constructor(
    private readonly full: (chunk: LedgerChunk) => void,
    private readonly rows: number,
  ) {}

  private pack<T extends ChunkTable>(table: T, row: Record<(typeof TABLE_COLUMNS)[T][number], unknown>): void {
    const into = this.values[table];
    for (const column of TABLE_COLUMNS[table] as ReadonlyArray<(typeof TABLE_COLUMNS)[T][number]>) into.push(row[column]);
  }

  customer(row: CustomerRow): void {
    this.pack('customers', row);
    if (++this.customerRows === this.rows) this.flush();
  }

  contact(row: ContactRow): void {
    this.pack('customer_contacts', row);
  }

  location(row: LocationRow): void {
    this.pack('customer_locations', row);
  }

  /** A full chunk goes before the next invoice, so an invoice's payments and labels share its chunk. */
  invoice(row: InvoiceRow): void {
    if (this.invoiceRows === this.rows) this.flush();
    this.pack('invoices', row);
    this.invoiceRows++;
  }

  payment(row: PaymentRow): void {
    this.pack('payments', row);
  }

  invoiceLabel(row: InvoiceLabelsTable): void {
    this.pack('invoice_labels', row);
  }

  snapshot(row: SnapshotRow): void {
    this.pack('aging_snapshots', row);
  }

  flush(): void {
    if (CHUNK_TABLES.every((t) => this.values[t].length === 0)) return;
    const chunk = { values: this.values, invoices: this.invoiceRows };
    this.values = emptyValues();
    this.invoiceRows = 0;
    this.customerRows = 0;
    this.full(chunk);
  }
}
