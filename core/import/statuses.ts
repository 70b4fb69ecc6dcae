/**
 * The payment statuses an import takes, and the words ledgers write for them. Pure and free of
 * Node, so the import wizard offers exactly these (renderer/src/settings/ImportWizard.tsx).
 */
import type { PaymentStatus } from '../db/schema';
import { PAYMENT_STATUSES } from '../payments/rules';

/**
 * Every status, VOIDED included: a file describes what already happened in the source system,
 * so a refunded or reversed payment arrives voided rather than through the void operation.
 */
export const IMPORT_STATUSES: readonly PaymentStatus[] = PAYMENT_STATUSES;

/**
 * Words (lower case) other ledgers use for a status. The spec has no refund: money that came in and
 * went back counts toward nothing, which is what VOIDED means (core/SPEC-DECISIONS.md, Import).
 */
export const STATUS_WORDS: Readonly<Record<string, PaymentStatus>> = {
  ...Object.fromEntries(PAYMENT_STATUSES.map((s) => [s.toLowerCase(), s])),
  void: 'VOIDED',
  refunded: 'VOIDED',
  refund: 'VOIDED',
  reversed: 'VOIDED',
  reversal: 'VOIDED',
  cancelled: 'VOIDED',
  canceled: 'VOIDED',
};

/** The status a cell means, or null when it names none. */
export function importedStatus(text: string): PaymentStatus | null {
  return STATUS_WORDS[text.trim().toLowerCase()] ?? null;
}

/**
 * What an invoice's status column can say, in our words. `open` and `partial` import as they are
 * (the open amount, where mapped, says how much was paid); `paid` closes the invoice as paid;
 * `void` and `draft` rows are skipped: a voided invoice is owed by nobody and a draft was never
 * sent; `credit` is a credit note.
 */
export const INVOICE_STATUSES = ['open', 'partial', 'paid', 'void', 'draft', 'credit'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** Words (lower case) ledgers write for an invoice's status: QuickBooks, Xero, Sage, NetSuite, SAP, Odoo, Zoho Books, FreshBooks. */
export const INVOICE_STATUS_WORDS: Readonly<Record<string, InvoiceStatus>> = {
  ...Object.fromEntries(INVOICE_STATUSES.map((s) => [s, s])),
  unpaid: 'open',
  'not paid': 'open',
  sent: 'open',
  viewed: 'open',
  due: 'open',
  overdue: 'open',
  outstanding: 'open',
  'awaiting payment': 'open',
  authorised: 'open',
  authorized: 'open',
  posted: 'open',
  approved: 'open',
  disputed: 'open',
  retry: 'open',
  failed: 'open',
  'partially paid': 'partial',
  partiallypaid: 'partial',
  'partly paid': 'partial',
  'paid in full': 'paid',
  'in payment': 'paid',
  'auto-paid': 'paid',
  closed: 'paid',
  cleared: 'paid',
  voided: 'void',
  cancelled: 'void',
  canceled: 'void',
  deleted: 'void',
  reversed: 'void',
  'written off': 'void',
  'pending approval': 'draft',
  'awaiting approval': 'draft',
  submitted: 'draft',
  'credit note': 'credit',
  'credit memo': 'credit',
};

export function invoiceStatusOf(text: string): InvoiceStatus | null {
  return INVOICE_STATUS_WORDS[text.trim().toLowerCase()] ?? null;
}

/** Which kind of document a row is; `skip` rows (payments, journal lines of an aging report) are not invoices. */
export const DOCUMENT_TYPES = ['invoice', 'credit_note', 'skip'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** Words (lower case) ledgers write for a document's type, with SAP's and Sage's document codes. */
export const DOCUMENT_TYPE_WORDS: Readonly<Record<string, DocumentType>> = {
  ...Object.fromEntries(DOCUMENT_TYPES.map((s) => [s, s])),
  inv: 'invoice',
  'sales invoice': 'invoice',
  'tax invoice': 'invoice',
  'customer invoice': 'invoice',
  si: 'invoice',
  dr: 'invoice',
  rv: 'invoice',
  'credit note': 'credit_note',
  'credit memo': 'credit_note',
  'sales credit note': 'credit_note',
  'customer credit note': 'credit_note',
  creditnote: 'credit_note',
  credit: 'credit_note',
  cn: 'credit_note',
  sc: 'credit_note',
  dg: 'credit_note',
  payment: 'skip',
  receipt: 'skip',
  'customer payment': 'skip',
  'unapplied payment': 'skip',
  'journal entry': 'skip',
  journal: 'skip',
  'payment on account': 'skip',
  sa: 'skip',
  sr: 'skip',
  dz: 'skip',
};

export function documentTypeOf(text: string): DocumentType | null {
  return DOCUMENT_TYPE_WORDS[text.trim().toLowerCase()] ?? null;
}
