import type { Mapping } from '../mapping';

/**
 * Xero's invoice export (Sales > Invoices > Export, the same columns as its invoice import
 * template; test/fixtures/import-presets/xero-invoices.csv): one row per line item, the invoice's
 * columns repeated on each. Total is the invoice's total with tax, so the lines are merged and
 * Total read once (summing LineAmount would leave the tax out). InvoiceAmountDue says what is open.
 */
export const xeroInvoices: Mapping = {
  entity: 'ar-rows',
  formats: { date: 'auto' },
  layout: { header_with: ['ContactName', 'InvoiceNumber', 'InvoiceDate', 'DueDate', 'Total', 'InvoiceAmountDue'], data_when: 'InvoiceNumber' },
  customers: { name: 'ContactName', contact_email: 'EmailAddress', contact_name: 'ContactName', address_line1: 'POAddressLine1', city: 'POCity', region: 'PORegion', postal_code: 'POPostalCode', country: 'POCountry' },
  invoices: {
    invoice_number: 'InvoiceNumber',
    invoice_date: 'InvoiceDate',
    due_date: 'DueDate',
    total_amount: 'Total',
    open_amount: 'InvoiceAmountDue',
    currency: 'Currency',
    status: 'Status',
    document_type: 'Type',
  },
};

/**
 * Xero's Aged Receivables Detail report exported (xero-aged-receivables-detail.csv): title rows,
 * then per contact a heading row with the contact's name, its open invoices and credit notes
 * with the amount due by age, and a "Total <contact>" row. Only what is due is in it: the total
 * due is the invoice's amount as far as this file knows.
 */
export const xeroAgedReceivablesDetail: Mapping = {
  entity: 'ar-rows',
  formats: { date: 'auto' },
  layout: { header_with: ['Invoice Date', 'Invoice Number', 'Due Date', 'Total'], data_when: 'Invoice Number', heading_as: 'Contact', negative_is_credit: true },
  customers: { name: 'Contact' },
  invoices: { invoice_number: 'Invoice Number', invoice_date: 'Invoice Date', due_date: 'Due Date', total_amount: 'Total' },
};
