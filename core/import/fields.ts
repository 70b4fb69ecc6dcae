/** Our fields per import section, with how each value is read. No imports: the renderer's import wizard lists the same fields. */
/** How a file writes dates: ISO, month first, day first. */
export const DATE_FORMATS = ['YYYY-MM-DD', 'M/D/YYYY', 'D/M/YYYY'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

export type FieldKind = 'text' | 'date' | 'amount' | 'boolean' | 'days' | 'currency' | 'email' | 'url' | 'code' | 'status' | 'bill_channel' | 'invoice_status' | 'document_type';

export interface FieldDef {
  /** The field in words, for the wizard and for row errors. */
  label: string;
  kind: FieldKind;
  /** Longest text accepted. */
  max?: number;
}

/** Our fields per section, with how each value is read. */
export const FIELDS = {
  customers: {
    remote_id: { label: 'Customer ID', kind: 'text', max: 200 },
    name: { label: 'Customer name', kind: 'text', max: 200 },
    is_person: { label: 'Is a person', kind: 'boolean' },
    currency: { label: 'Currency', kind: 'currency' },
    payment_terms_days: { label: 'Payment terms (days)', kind: 'days' },
    notes: { label: 'Customer notes', kind: 'text', max: 5000 },
    location_name: { label: 'Location name', kind: 'text', max: 200 },
    address_line1: { label: 'Address', kind: 'text', max: 300 },
    city: { label: 'City', kind: 'text', max: 100 },
    region: { label: 'Region or state', kind: 'text', max: 100 },
    postal_code: { label: 'Postal code', kind: 'text', max: 20 },
    country: { label: 'Country', kind: 'text', max: 100 },
    contact_name: { label: 'Contact name', kind: 'text', max: 200 },
    contact_email: { label: 'Contact email', kind: 'email', max: 254 },
    contact_phone: { label: 'Contact phone', kind: 'text', max: 50 },
  },
  invoices: {
    invoice_number: { label: 'Invoice number', kind: 'text', max: 100 },
    remote_id: { label: 'Invoice ID', kind: 'text', max: 200 },
    customer_remote_id: { label: 'Customer ID', kind: 'text', max: 200 },
    customer_name: { label: 'Customer name', kind: 'text', max: 200 },
    invoice_date: { label: 'Invoice date', kind: 'date' },
    due_date: { label: 'Due date', kind: 'date' },
    total_amount: { label: 'Total amount', kind: 'amount' },
    currency: { label: 'Currency', kind: 'currency' },
    payment_link: { label: 'Payment link', kind: 'url', max: 2000 },
    /** paper or electronic: how the bill was sent (an extension, see core/SPEC-DECISIONS.md). */
    bill_channel: { label: 'Bill sent on paper or electronically', kind: 'bill_channel' },
    /** What the source system says of the invoice: open, paid, partial, void, draft (core/import/statuses.ts). */
    status: { label: 'Invoice status', kind: 'invoice_status' },
    /** Invoice or credit note; payments and journal lines in an aging report are not invoices. */
    document_type: { label: 'Document type', kind: 'document_type' },
    /** What is still owed by the source system's books; the difference to the total was paid. */
    open_amount: { label: 'Amount still open', kind: 'amount' },
    /** When the invoice was paid in full, where the file says so without a payment of its own. */
    paid_date: { label: 'Date paid', kind: 'date' },
  },
  payments: {
    remote_id: { label: 'Payment ID', kind: 'text', max: 200 },
    invoice_number: { label: 'Invoice number', kind: 'text', max: 100 },
    invoice_remote_id: { label: 'Invoice ID', kind: 'text', max: 200 },
    amount: { label: 'Payment amount', kind: 'amount' },
    payment_date: { label: 'Payment date', kind: 'date' },
    payment_method: { label: 'Payment method', kind: 'code', max: 40 },
    payment_type: { label: 'Payment type', kind: 'code', max: 40 },
    status: { label: 'Payment status', kind: 'status' },
    transaction_id: { label: 'Transaction ID', kind: 'text', max: 200 },
    notes: { label: 'Payment notes', kind: 'text', max: 5000 },
  },
} as const satisfies Record<string, Record<string, FieldDef>>;

export type Section = keyof typeof FIELDS;
export type FieldName<S extends Section> = keyof (typeof FIELDS)[S] & string;

/** A field in words ("Invoice date"); a name that is no field is given back as it is. */
export function fieldWords(section: Section, field: string): string {
  return (FIELDS[section] as Record<string, FieldDef>)[field]?.label ?? field;
}
