import type { Mapping } from '../mapping';
import { ibmArMapping } from './ibm-ar';
import { freshbooksInvoices, netsuiteOpenInvoices, odooInvoices, sageAgedDebtors, sapFbl5n, zohoBooksInvoices } from './others';
import { qboArAgingDetail, qboInvoiceList } from './quickbooks';
import { xeroAgedReceivablesDetail, xeroInvoices } from './xero';

/** Built-in mappings, by the name given to --preset or the API's preset field. */
export const PRESETS: Record<string, Mapping> = {
  'ibm-ar': ibmArMapping,
  'qbo-invoice-list': qboInvoiceList,
  'qbo-ar-aging-detail': qboArAgingDetail,
  'xero-invoices': xeroInvoices,
  'xero-aged-receivables-detail': xeroAgedReceivablesDetail,
  'sage-aged-debtors': sageAgedDebtors,
  'netsuite-open-invoices': netsuiteOpenInvoices,
  'sap-fbl5n': sapFbl5n,
  'odoo-invoices': odooInvoices,
  'zoho-books-invoices': zohoBooksInvoices,
  'freshbooks-invoices': freshbooksInvoices,
};

/** Each preset in words, for the wizard and the dry run. */
export const PRESET_LABELS: Record<string, string> = {
  'ibm-ar': 'IBM accounts-receivable sample',
  'qbo-invoice-list': 'QuickBooks Online: Invoice List',
  'qbo-ar-aging-detail': 'QuickBooks Online: A/R Aging Detail',
  'xero-invoices': 'Xero: Invoices export',
  'xero-aged-receivables-detail': 'Xero: Aged Receivables Detail',
  'sage-aged-debtors': 'Sage 50: Aged Debtors (Detailed)',
  'netsuite-open-invoices': 'NetSuite: open invoices saved search',
  'sap-fbl5n': 'SAP: customer line items (FBL5N)',
  'odoo-invoices': 'Odoo: invoices export',
  'zoho-books-invoices': 'Zoho Books: invoices export',
  'freshbooks-invoices': 'FreshBooks: Invoice Details',
};

/** The IBM sample's header, which its preset does not search for (its file has no title rows). */
const SIGNATURES: Record<string, string[]> = {
  'ibm-ar': ['countryCode', 'customerID', 'invoiceNumber', 'InvoiceDate', 'DueDate', 'InvoiceAmount', 'SettledDate'],
};

function signature(name: string): string[] {
  return SIGNATURES[name] ?? PRESETS[name].layout?.header_with ?? [];
}

/**
 * The preset whose header is in the file: some row among the first (a report's title rows come
 * before its header) holds every column name the preset looks for. When several fit, the one
 * that names the most columns; none when no preset fits.
 */
export function detectPreset(rows: string[][]): string | null {
  const lower = rows.map((r) => new Set(r.map((c) => c.trim().toLowerCase())));
  let best: { name: string; size: number } | null = null;
  for (const name of Object.keys(PRESETS)) {
    const wanted = signature(name).map((h) => h.toLowerCase());
    if (wanted.length === 0 || !lower.some((cells) => wanted.every((h) => cells.has(h)))) continue;
    if (!best || wanted.length > best.size) best = { name, size: wanted.length };
  }
  return best?.name ?? null;
}
