import type { Response, Schemas } from '../api/client';

/** Every shape the desk shows comes from the generated API types. */
export type Invoice = Schemas['Invoice'];
export type InvoiceGroup = Schemas['InvoiceCustomerGroup'];
export type InvoiceDetail = Response<'/api/companies/{company_id}/invoices/{invoice_id}'>;
export type Summary = Response<'/api/companies/{company_id}/invoices/summary'>;
export type Label = Schemas['Label'];
export type TeamMember = Schemas['TeamMember'];
export type SavedView = Schemas['SavedView'];
