/**
 * Reading every data row through the compiled mapping into typed customer, invoice and payment
 * parts, collecting each problem as a row error (row, column, message) instead of stopping.
 */
import type { PaymentStatus } from '../db/schema';
import { BILL_CHANNELS, type BillChannel } from '../db/schema';
import { isEmail, MAX_PAYMENT_TERMS_DAYS } from '../customers/rules';
import { MAX_PAYMENT_MINOR, normalizeCode } from '../payments/rules';
import { isTypeableText } from '../text';
import { fieldWords } from './fields';
import { type CompiledMapping, FIELDS, type FieldDef, type Formats, type Getter, type Section } from './mapping';
import { DOCUMENT_TYPES, documentTypeOf, IMPORT_STATUSES, importedStatus, INVOICE_STATUSES, type InvoiceStatus, invoiceStatusOf } from './statuses';
import { type Cell, cellText, type Table } from './table';
import { parseAmount, parseBoolean, parseDate, type Parsed, parseWholeNumber } from './values';

export interface RowError {
  row: number;
  /** The file's column, when the problem is in one cell. */
  column: string | null;
  message: string;
}

/** A customer's values from one row, flat: the location and billing contact fields are in here too. */
export interface CustomerFields {
  remote_id?: string;
  name?: string;
  is_person?: 0 | 1;
  currency?: string;
  payment_terms_days?: number;
  notes?: string;
  location_name?: string;
  address_line1?: string;
  city?: string;
  region?: string;
  postal_code?: string;
  country?: string;
  contact_name?: string;
  contact_email?: string;
  contact_phone?: string;
}

export interface InvoiceFields {
  invoice_number: string;
  remote_id?: string;
  customer_remote_id?: string;
  customer_name?: string;
  invoice_date: string;
  due_date?: string;
  total_amount: number;
  currency?: string;
  payment_link?: string;
  bill_channel?: BillChannel;
  /** The source system's status, in our words. */
  status?: InvoiceStatus;
  /** A credit note: its total and open amount are negative, a credit to the customer. */
  credit?: boolean;
  /** What the source system still has open (negative for a credit note). */
  open_amount?: number;
  /** When the source system says the invoice was paid in full. */
  paid_date?: string;
  /** Each mapped label and whether this row says the invoice has it. */
  labels: Array<{ label: string; on: boolean }>;
}

export interface PaymentFields {
  remote_id?: string;
  invoice_number?: string;
  invoice_remote_id?: string;
  amount: number;
  payment_date: string;
  payment_method?: string;
  payment_type?: string;
  status?: PaymentStatus;
  transaction_id?: string;
  notes?: string;
}

/** Why a row of the file is not imported: a voided or draft invoice, or no invoice at all (a payment line of an aging report). */
export type SkipReason = 'void' | 'draft' | 'not_invoice';

export interface ParsedRow {
  row: number;
  skipped?: SkipReason;
  customer?: CustomerFields;
  invoice?: InvoiceFields;
  payment?: PaymentFields;
}

/** The largest invoice total accepted, the same ceiling as a payment's. */
const MAX_AMOUNT_MINOR = MAX_PAYMENT_MINOR;

type Value = string | number | boolean;

function convert(cell: Cell, def: FieldDef, formats: Formats): Parsed<Value> {
  switch (def.kind) {
    case 'date':
      return parseDate(cell, formats.date);
    case 'amount':
      return parseAmount(cell, formats.decimal);
    case 'boolean':
      return parseBoolean(cell, formats.booleans);
    case 'days':
      return parseWholeNumber(cell, MAX_PAYMENT_TERMS_DAYS);
    default:
      break;
  }
  const text = cellText(cell);
  if (def.max !== undefined && text.length > def.max) return { ok: false, message: `is longer than ${def.max} characters` };
  switch (def.kind) {
    case 'currency':
      return /^[A-Za-z]{3}$/.test(text) ? { ok: true, value: text.toUpperCase() } : { ok: false, message: `"${text}" is not a three-letter currency code` };
    case 'email':
      return isEmail(text) ? { ok: true, value: text } : { ok: false, message: `"${text}" is not an email address` };
    case 'url':
      return /^https?:\/\/[^\s]+$/i.test(text) && URL.canParse(text) ? { ok: true, value: text } : { ok: false, message: `"${text}" is not an http(s) URL` };
    case 'code':
      return { ok: true, value: normalizeCode(text) };
    case 'bill_channel': {
      const channel = text.toLowerCase();
      return (BILL_CHANNELS as readonly string[]).includes(channel) ? { ok: true, value: channel } : { ok: false, message: `"${text}" is not one of ${BILL_CHANNELS.join(', ')}` };
    }
    case 'status': {
      const status = importedStatus(text);
      return status ? { ok: true, value: status } : { ok: false, message: `"${text}" is not a payment status: one of ${IMPORT_STATUSES.join(', ')} (refunded and reversed read as VOIDED)` };
    }
    case 'invoice_status': {
      const status = invoiceStatusOf(text);
      return status ? { ok: true, value: status } : { ok: false, message: `"${text}" is not an invoice status: map it to one of ${INVOICE_STATUSES.join(', ')}` };
    }
    case 'document_type': {
      const type = documentTypeOf(text);
      return type ? { ok: true, value: type } : { ok: false, message: `"${text}" is not a document type: map it to one of ${DOCUMENT_TYPES.join(', ')}` };
    }
    default:
      return { ok: true, value: text };
  }
}

/** One section's values for a row: absent (undefined) when the cell is empty. */
class SectionReader {
  constructor(
    private readonly section: Section,
    private readonly getters: Partial<Record<string, Getter>>,
    private readonly formats: Formats,
    private readonly cells: Cell[],
    private readonly row: number,
    private readonly errors: RowError[],
  ) {}

  has(field: string): boolean {
    return this.getters[field] !== undefined;
  }

  errorCount(): number {
    return this.errors.length;
  }

  get(field: string): Value | undefined {
    const getter = this.getters[field];
    if (!getter) return undefined;
    const raw = getter.read(this.cells);
    if (!raw.ok) return this.fail(field, raw.message);
    if (typeof raw.value === 'string' && !isTypeableText(raw.value)) return this.fail(field, 'contains a NUL character or an unpaired surrogate');
    if (raw.value === null || cellText(raw.value) === '') return undefined;
    const value = convert(raw.value, (FIELDS[this.section] as Record<string, FieldDef>)[field], this.formats);
    return value.ok ? value.value : this.fail(field, value.message);
  }

  fail(field: string, message: string): undefined {
    this.errors.push({ row: this.row, column: this.getters[field]?.column ?? null, message: `${fieldWords(this.section, field)}: ${message}` });
    return undefined;
  }

  require(field: string): Value | undefined {
    const before = this.errors.length;
    const value = this.get(field);
    if (value === undefined && this.errors.length === before) this.fail(field, 'is required');
    return value;
  }
}

function reader(mapping: CompiledMapping, section: Section, cells: Cell[], row: number, errors: RowError[]): SectionReader {
  return new SectionReader(section, mapping[section] ?? {}, mapping.formats, cells, row, errors);
}

function pick<T extends object>(r: SectionReader, fields: string[]): Partial<T> {
  const out: Record<string, Value> = {};
  for (const f of fields) {
    const v = r.get(f);
    if (v !== undefined) out[f] = v;
  }
  return out as Partial<T>;
}

const CUSTOMER_TEXT_FIELDS = [
  'remote_id',
  'name',
  'currency',
  'payment_terms_days',
  'notes',
  'location_name',
  'address_line1',
  'city',
  'region',
  'postal_code',
  'country',
  'contact_name',
  'contact_email',
  'contact_phone',
];

function readCustomer(r: SectionReader): CustomerFields {
  const customer = pick<CustomerFields>(r, CUSTOMER_TEXT_FIELDS);
  const isPerson = r.get('is_person');
  if (isPerson !== undefined) customer.is_person = isPerson ? 1 : 0;
  if (customer.contact_phone !== undefined && customer.contact_name === undefined && customer.contact_email === undefined) {
    r.fail('contact_phone', 'needs a contact name or contact email on the same row');
  }
  if (customer.remote_id === undefined && customer.name === undefined) r.fail(r.has('remote_id') ? 'remote_id' : 'name', 'is required to identify the customer');
  return customer;
}

/** Why the row is not imported, read before anything else of it: a skipped row may lack an invoice's fields. */
function skipReason(r: SectionReader): SkipReason | undefined {
  const type = r.get('document_type');
  if (type === 'skip') return 'not_invoice';
  const status = r.get('status');
  if (status === 'void' || status === 'draft') return status;
  return undefined;
}

function readInvoice(r: SectionReader, mapping: CompiledMapping, cells: Cell[], row: number, errors: RowError[]): InvoiceFields | undefined {
  const invoice_number = r.require('invoice_number') as string | undefined;
  const invoice_date = r.require('invoice_date') as string | undefined;
  let total_amount = r.require('total_amount') as number | undefined;
  const rest = pick<InvoiceFields>(r, ['remote_id', 'customer_remote_id', 'customer_name', 'due_date', 'currency', 'payment_link', 'bill_channel', 'status', 'open_amount', 'paid_date']);
  // A credit note is said so by its type or status, or by a negative total where the layout says that is how the file writes one.
  const negative = total_amount !== undefined && total_amount < 0;
  const credit = r.get('document_type') === 'credit_note' || rest.status === 'credit' || (negative && mapping.negativeIsCredit);
  if (negative && !credit) r.fail('total_amount', 'must not be negative');
  if (credit) {
    if (total_amount !== undefined) total_amount = -Math.abs(total_amount);
    if (rest.open_amount !== undefined) rest.open_amount = -Math.abs(rest.open_amount);
    rest.credit = true;
  } else if (rest.open_amount !== undefined && total_amount !== undefined && (rest.open_amount < 0 || rest.open_amount > total_amount)) {
    r.fail('open_amount', `${(rest.open_amount / 100).toFixed(2)} is not between 0 and the total ${(total_amount / 100).toFixed(2)}`);
  }
  if (total_amount !== undefined && Math.abs(total_amount) > MAX_AMOUNT_MINOR) r.fail('total_amount', 'is larger than any invoice this ledger accepts');
  if (invoice_date && rest.due_date && rest.due_date < invoice_date) r.fail('due_date', `${rest.due_date} is before the invoice date ${invoice_date}`);
  if (mapping.entity === 'invoices' && rest.customer_remote_id === undefined && rest.customer_name === undefined) {
    r.fail(r.has('customer_remote_id') ? 'customer_remote_id' : 'customer_name', 'is required to find the customer');
  }
  const labels: InvoiceFields['labels'] = [];
  for (const rule of mapping.labels) {
    const cell = cells[rule.index] ?? null;
    const text = cellText(cell);
    if (rule.equals !== undefined) {
      labels.push({ label: rule.label, on: text.toLowerCase() === rule.equals.trim().toLowerCase() });
      continue;
    }
    if (text === '') {
      labels.push({ label: rule.label, on: false });
      continue;
    }
    const flag = parseBoolean(cell, mapping.formats.booleans);
    if (flag.ok) labels.push({ label: rule.label, on: flag.value });
    else errors.push({ row, column: rule.column, message: `label ${rule.label}: ${flag.message}` });
  }
  if (invoice_number === undefined || invoice_date === undefined || total_amount === undefined) return undefined;
  return { invoice_number, invoice_date, total_amount, ...rest, labels };
}

function readPayment(r: SectionReader, mapping: CompiledMapping, today: string): PaymentFields | undefined {
  if (mapping.entity === 'ar-rows') {
    // In a combined row the payment is optional: a row without a payment date has none.
    const before = r.errorCount();
    if (r.get('payment_date') === undefined && r.errorCount() === before) return undefined;
  }
  const amount = r.require('amount') as number | undefined;
  const payment_date = r.require('payment_date') as string | undefined;
  const rest = pick<PaymentFields>(r, ['remote_id', 'invoice_number', 'invoice_remote_id', 'payment_method', 'payment_type', 'status', 'transaction_id', 'notes']);
  if (amount !== undefined && amount <= 0) r.fail('amount', 'must be greater than zero');
  if (amount !== undefined && amount > MAX_PAYMENT_MINOR) r.fail('amount', 'is larger than any payment this ledger accepts');
  if (payment_date !== undefined && payment_date > today) r.fail('payment_date', `${payment_date} is in the future`);
  if (mapping.entity === 'payments' && rest.invoice_number === undefined && rest.invoice_remote_id === undefined) {
    r.fail(r.has('invoice_remote_id') ? 'invoice_remote_id' : 'invoice_number', 'is required to find the invoice');
  }
  if (amount === undefined || payment_date === undefined) return undefined;
  return { amount, payment_date, ...rest };
}

/**
 * Reads every row. A row with any error yields no parts (so nothing of it is planned), but all of
 * its errors are reported.
 */
export function readRows(table: Table, mapping: CompiledMapping, today: string): { rows: ParsedRow[]; errors: RowError[] } {
  const rows: ParsedRow[] = [];
  const errors: RowError[] = [];
  for (const { row, cells } of table.rows) {
    const before = errors.length;
    const extra = cells.slice(mapping.columnCount).filter((c) => cellText(c) !== '').length;
    if (extra) errors.push({ row, column: null, message: `has ${extra} filled cell(s) beyond the ${mapping.columnCount} columns of the header` });
    const parsed: ParsedRow = { row };
    // Read apart from the row's errors: a cell that names no status is reported once, with the invoice.
    const skipped = mapping.invoices ? skipReason(reader(mapping, 'invoices', cells, row, [])) : undefined;
    if (skipped) {
      if (errors.length === before) rows.push({ row, skipped });
      continue;
    }
    if (mapping.customers) parsed.customer = readCustomer(reader(mapping, 'customers', cells, row, errors));
    if (mapping.invoices) parsed.invoice = readInvoice(reader(mapping, 'invoices', cells, row, errors), mapping, cells, row, errors);
    if (mapping.payments) parsed.payment = readPayment(reader(mapping, 'payments', cells, row, errors), mapping, today);
    if (errors.length === before) rows.push(parsed);
  }
  return { rows, errors };
}
