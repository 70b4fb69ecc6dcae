/** Our fields per import section, with how each value is read. No imports: the renderer's import wizard lists the same fields. */
/** How a file writes dates: ISO, month first, day first. */
export const DATE_FORMATS = ['YYYY-MM-DD', 'M/D/YYYY', 'D/M/YYYY'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

export type FieldKind = 'text' | 'date' | 'amount' | 'boolean' | 'days' | 'currency' | 'email' | 'url' | 'code' | 'status' | 'bill_channel';

export interface FieldDef {
  kind: FieldKind;
  /** Longest text accepted. */
  max?: number;
}

/** Our fields per section, with how each value is read. */
export const FIELDS = {
  customers: {
    remote_id: { kind: 'text', max: 200 },
    name: { kind: 'text', max: 200 },
    is_person: { kind: 'boolean' },
    currency: { kind: 'currency' },
    payment_terms_days: { kind: 'days' },
    notes: { kind: 'text', max: 5000 },
    location_name: { kind: 'text', max: 200 },
    address_line1: { kind: 'text', max: 300 },
    city: { kind: 'text', max: 100 },
    region: { kind: 'text', max: 100 },
    postal_code: { kind: 'text', max: 20 },
    country: { kind: 'text', max: 100 },
    contact_name: { kind: 'text', max: 200 },
    contact_email: { kind: 'email', max: 254 },
    contact_phone: { kind: 'text', max: 50 },
  },
  invoices: {
    invoice_number: { kind: 'text', max: 100 },
    remote_id: { kind: 'text', max: 200 },
    customer_remote_id: { kind: 'text', max: 200 },
    customer_name: { kind: 'text', max: 200 },
    invoice_date: { kind: 'date' },
    due_date: { kind: 'date' },
    total_amount: { kind: 'amount' },
    currency: { kind: 'currency' },
    payment_link: { kind: 'url', max: 2000 },
    /** paper or electronic: how the bill was sent (an extension, see README). */
    bill_channel: { kind: 'bill_channel' },
  },
  payments: {
    remote_id: { kind: 'text', max: 200 },
    invoice_number: { kind: 'text', max: 100 },
    invoice_remote_id: { kind: 'text', max: 200 },
    amount: { kind: 'amount' },
    payment_date: { kind: 'date' },
    payment_method: { kind: 'code', max: 40 },
    payment_type: { kind: 'code', max: 40 },
    status: { kind: 'status' },
    transaction_id: { kind: 'text', max: 200 },
    notes: { kind: 'text', max: 5000 },
  },
} as const satisfies Record<string, Record<string, FieldDef>>;

export type Section = keyof typeof FIELDS;
export type FieldName<S extends Section> = keyof (typeof FIELDS)[S] & string;
