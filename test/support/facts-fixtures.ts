/** Hand-made facts for the intelligence engine's rules (core/intelligence/facts.ts): an open invoice and a customer, each with its fields overridable. */
import type { CustomerFacts, OpenInvoice } from '../../core/intelligence/facts';

/** INV-1 of cust-1: $1,000.00 issued Oct 1, due Oct 31, nothing paid, no label. */
export const openInvoice = (fields: Partial<OpenInvoice> = {}): OpenInvoice => ({
  id: 'inv-1',
  customerId: 'cust-1',
  number: 'INV-1',
  invoiceDate: '2026-10-01',
  dueDate: '2026-10-31',
  currency: 'USD',
  totalAmount: 100_000,
  balance: 100_000,
  billChannel: null,
  disputed: false,
  disputedAt: null,
  promiseLabel: null,
  lastPaymentDate: null,
  lastTouchAt: null,
  ...fields,
});

/** Harbor Foods (cust-1), net 30, owing INV-1, reachable by phone and email, nothing said or done yet. */
export const customerFacts = (fields: Partial<CustomerFacts> = {}): CustomerFacts => ({
  id: 'cust-1',
  name: 'Harbor Foods',
  currency: 'USD',
  paymentTermsDays: 30,
  openInvoices: [openInvoice()],
  communications: [],
  actions: [],
  reach: { phone: true, email: true, emailConnection: true },
  portalViews: [],
  ...fields,
});
