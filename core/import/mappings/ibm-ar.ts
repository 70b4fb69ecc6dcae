import type { Mapping } from '../mapping';

/**
 * IBM's public "accounts receivable / late payment histories" sample (a copy is test/fixtures/ibm-accounts-receivable.csv):
 * one row per invoice, every invoice settled. Each row gives a customer, an invoice and one
 * payment of the full amount on the settled date, so every invoice closes as paid.
 * - customerID is the customer's remote_id and also its name (the file has no other name).
 * - countryCode (391, 406, 770, 818, 897: not ISO codes) is kept verbatim as the country of the
 *   customer's "Main" location.
 * - invoiceNumber keeps its leading zeros; InvoiceDate and DueDate are M/D/YYYY.
 * - Disputed = Yes gives the invoice the label "Disputed" (created if missing, meaning a dispute);
 *   No removes it.
 * - The payment's remote_id is "settled-<invoiceNumber>", so a re-import finds it again.
 * - PaperlessBill says how the bill was sent, known the day the invoice was issued: it is the
 *   invoice's bill_channel (paper, electronic). It says nothing of how the customer paid, so the
 *   payment's method is left to the import's default for an unknown one (OTHER).
 * - PaperlessDate (when the customer switched to electronic bills) is not imported: PaperlessBill
 *   follows from it (Electronic when the invoice date is after it). DaysToSettle and DaysLate
 *   follow from the dates.
 */
export const ibmArMapping: Mapping = {
  entity: 'ar-rows',
  formats: { date: 'M/D/YYYY', decimal: '.', true: ['Yes'], false: ['No'], delimiter: ',' },
  customers: {
    remote_id: 'customerID',
    name: 'customerID',
    country: 'countryCode',
  },
  invoices: {
    invoice_number: 'invoiceNumber',
    invoice_date: 'InvoiceDate',
    due_date: 'DueDate',
    total_amount: 'InvoiceAmount',
    bill_channel: { column: 'PaperlessBill', values: { Electronic: 'electronic', Paper: 'paper' } },
    labels: [{ label: 'Disputed', column: 'Disputed', meaning: 'dispute' }],
  },
  payments: {
    remote_id: { template: 'settled-{invoiceNumber}' },
    amount: 'InvoiceAmount',
    payment_date: 'SettledDate',
    payment_type: { value: 'PAYMENT' },
  },
};
