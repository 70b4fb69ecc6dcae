import type { Response, Schemas } from '../api/client';

/** Every shape the desk shows comes from the generated API types. */
export type InvoiceList = Response<'/api/companies/{company_id}/invoices'>;
export type Invoice = Schemas['Invoice'];
export type InvoiceGroup = Schemas['InvoiceCustomerGroup'];
export type InvoiceDetail = Response<'/api/companies/{company_id}/invoices/{invoice_id}'>;
export type Summary = Response<'/api/companies/{company_id}/invoices/summary'>;
export type Payment = Schemas['Payment'];
export type Label = Schemas['Label'];
export type TeamMember = Schemas['TeamMember'];
export type CustomerDetail = Schemas['CustomerDetail'];
export type SavedView = Schemas['SavedView'];
