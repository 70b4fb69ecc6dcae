import type { Mapping } from '../mapping';

/**
 * Sage 50's Aged Debtors Analysis (Detailed) exported to CSV (test/fixtures/import-presets/sage-aged-debtors.csv):
 * per outstanding transaction the account (A/C), name, transaction number, type (SI invoice,
 * SC credit note, SA payment on account), date, reference, the outstanding Balance and its ageing
 * periods; a totals row per customer. No due date: the customer's payment terms give it.
 */
export const sageAgedDebtors: Mapping = {
  entity: 'ar-rows',
  formats: { date: 'auto' },
  layout: { header_with: ['A/C', 'Name', 'Type', 'Date', 'Ref', 'Balance', 'Older'], data_when: 'Ref', negative_is_credit: true },
  customers: { remote_id: 'A/C', name: 'Name' },
  invoices: { invoice_number: 'Ref', invoice_date: 'Date', total_amount: 'Balance', document_type: 'Type' },
};

/**
 * NetSuite's open invoices saved search (Transactions > Sales > Invoices, a saved search on open
 * invoices and credit memos, exported to CSV; netsuite-open-invoices.csv): Internal ID, Date, Type,
 * Document Number, Name, Due Date/Receive By, Amount, Amount Remaining, Status, Currency.
 */
export const netsuiteOpenInvoices: Mapping = {
  entity: 'ar-rows',
  formats: { date: 'auto' },
  layout: { header_with: ['Internal ID', 'Document Number', 'Name', 'Due Date/Receive By', 'Amount Remaining'], data_when: 'Document Number', negative_is_credit: true },
  customers: { name: 'Name' },
  invoices: {
    remote_id: 'Internal ID',
    invoice_number: 'Document Number',
    invoice_date: 'Date',
    due_date: 'Due Date/Receive By',
    total_amount: 'Amount',
    open_amount: 'Amount Remaining',
    currency: 'Currency',
    status: 'Status',
    document_type: 'Type',
  },
};

/**
 * SAP's customer line items (FBL5N) exported as a local file in the spreadsheet format of a
 * German-language system (sap-fbl5n.csv): semicolons, decimal commas, DD.MM.YYYY dates, credits
 * with a trailing minus. Document types: DR and RV invoices, DG credit memos, DZ payments. The
 * account number is also the customer's name: the list has no name column.
 */
export const sapFbl5n: Mapping = {
  entity: 'ar-rows',
  formats: { date: 'auto', decimal: ',', delimiter: ';' },
  layout: { header_with: ['Account', 'Document Number', 'Document Type', 'Document Date', 'Net Due Date', 'Amount in Local Currency'], data_when: 'Document Number', negative_is_credit: true },
  customers: { remote_id: 'Account', name: 'Account' },
  invoices: {
    invoice_number: 'Document Number',
    invoice_date: 'Document Date',
    due_date: 'Net Due Date',
    total_amount: 'Amount in Local Currency',
    currency: 'Local Currency',
    document_type: 'Document Type',
  },
};

/**
 * Odoo's invoice list (Accounting > Customers > Invoices) exported with its list columns
 * (odoo-invoices.csv). Credit notes have negative signed totals; Status says Draft, Posted or
 * Cancelled (only posted ones are owed), Payment Status whether it is paid.
 */
export const odooInvoices: Mapping = {
  entity: 'ar-rows',
  formats: { date: 'auto' },
  layout: { header_with: ['Number', 'Invoice/Bill Date', 'Due Date', 'Total Signed', 'Amount Due', 'Payment Status'], data_when: 'Number', negative_is_credit: true },
  customers: { name: 'Customer' },
  invoices: {
    invoice_number: 'Number',
    invoice_date: 'Invoice/Bill Date',
    due_date: 'Due Date',
    total_amount: 'Total Signed',
    open_amount: 'Amount Due',
    currency: 'Currency',
    status: 'Payment Status',
    document_type: { column: 'Status', values: { Posted: 'invoice', Draft: 'skip', Cancelled: 'skip' } },
  },
};

/**
 * Zoho Books' invoice export (Sales > Invoices > Export Invoices, CSV; zoho-books-invoices.csv):
 * one row per line item with the invoice's columns repeated, Total and Balance among them.
 */
export const zohoBooksInvoices: Mapping = {
  entity: 'ar-rows',
  formats: { date: 'auto' },
  layout: { header_with: ['Invoice Date', 'Invoice ID', 'Invoice Number', 'Invoice Status', 'Customer Name', 'Balance'], data_when: 'Invoice Number' },
  customers: { remote_id: 'Customer ID', name: 'Customer Name' },
  invoices: {
    remote_id: 'Invoice ID',
    invoice_number: 'Invoice Number',
    invoice_date: 'Invoice Date',
    due_date: 'Due Date',
    total_amount: 'Total',
    open_amount: 'Balance',
    currency: 'Currency Code',
    status: 'Invoice Status',
  },
};

/**
 * FreshBooks' Invoice Details report exported to CSV (freshbooks-invoices.csv): one row per line
 * with its Line Total, no invoice total and no due date; Date Paid on paid invoices. The lines
 * add up to the invoice's total; the due date follows the customer's terms.
 */
export const freshbooksInvoices: Mapping = {
  entity: 'ar-rows',
  formats: { date: 'auto' },
  layout: { header_with: ['Client Name', 'Invoice #', 'Date Issued', 'Invoice Status', 'Line Total'], data_when: 'Invoice #', sum_lines: true },
  customers: { name: 'Client Name' },
  invoices: {
    invoice_number: 'Invoice #',
    invoice_date: 'Date Issued',
    total_amount: 'Line Total',
    currency: 'Currency',
    status: 'Invoice Status',
    paid_date: 'Date Paid',
  },
};
