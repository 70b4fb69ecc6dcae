import type { Mapping } from '../mapping';

/**
 * QuickBooks Online's Invoice List report exported to CSV (test/fixtures/import-presets/qbo-invoice-list.csv):
 * the company name, report title and date range above the header; one row per invoice with its
 * Amount, Open Balance and Status; a TOTAL row at the end. The open balance says what was paid.
 */
export const qboInvoiceList: Mapping = {
  entity: 'ar-rows',
  formats: { date: 'auto' },
  layout: { header_with: ['Date', 'Num', 'Customer', 'Due Date', 'Amount', 'Open Balance', 'Status'], data_when: 'Num', negative_is_credit: true },
  customers: { name: 'Customer' },
  invoices: { invoice_number: 'Num', invoice_date: 'Date', due_date: 'Due Date', total_amount: 'Amount', open_amount: 'Open Balance', status: 'Status' },
};

/**
 * QuickBooks Online's A/R Aging Detail report exported to CSV (qbo-ar-aging-detail.csv): title
 * rows, then per customer a heading row, its open transactions (invoices, credit memos,
 * unapplied payments) and a "Total for ..." row; blank lines between; a TOTAL row and the time of
 * the report at the end. Only open items are in it, so Open Balance is what is owed.
 */
export const qboArAgingDetail: Mapping = {
  entity: 'ar-rows',
  formats: { date: 'auto' },
  layout: { header_with: ['Date', 'Transaction Type', 'Num', 'Customer', 'Due Date', 'Amount', 'Open Balance'], data_when: 'Num', negative_is_credit: true },
  customers: { name: 'Customer' },
  invoices: {
    invoice_number: 'Num',
    invoice_date: 'Date',
    due_date: 'Due Date',
    total_amount: 'Amount',
    open_amount: 'Open Balance',
    document_type: 'Transaction Type',
  },
};
