/**
 * Step templates: {{placeholder}} substitution with the customer's and invoice's data.
 * Known placeholders without a value (no open invoice, no payment link) render empty; unknown
 * placeholders stay as written, so a typo shows in the preview instead of vanishing silently.
 */
import { daysBetween, longDate } from '../dates';
import { formatMoney } from '../money';
import { escapeHtml } from '../reminders/template';

export const PLACEHOLDERS = [
  'customer_name',
  'contact_name',
  'company_name',
  'sender_name',
  'invoice_number',
  'invoice_date',
  'due_date',
  'balance',
  'total_amount',
  'days_past_due',
  'payment_link',
  'total_balance',
  'total_overdue',
  'open_invoice_count',
  'overdue_invoice_count',
  'invoice_list',
] as const;

export type Placeholder = (typeof PLACEHOLDERS)[number];
export type TemplateValues = Record<Placeholder, string>;

const PLACEHOLDER_RE = /\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}/g;
const KNOWN = new Set<string>(PLACEHOLDERS);

/** Substitutes placeholders; in HTML the values are escaped (customer names are data, not markup) and line breaks kept. */
export function renderTemplate(template: string, values: TemplateValues, format: 'text' | 'html' = 'text'): string {
  return template.replace(PLACEHOLDER_RE, (whole, name: string) => {
    if (!KNOWN.has(name)) return whole;
    const value = values[name as Placeholder];
    return format === 'html' ? escapeHtml(value).replace(/\n/g, '<br>') : value;
  });
}

/** HTML to plain text, for an email step that only has an HTML body. */
export function htmlToText(html: string): string {
  return html
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|li|h\d)>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .trim();
}

/** Placeholders in a template that the renderer does not know. */
export function unknownPlaceholders(template: string): string[] {
  const out = new Set<string>();
  for (const match of template.matchAll(PLACEHOLDER_RE)) if (!KNOWN.has(match[1])) out.add(match[1]);
  return [...out];
}

export interface TemplateInvoice {
  invoice_number: string;
  invoice_date: string;
  due_date: string;
  currency: string;
  total_amount: number;
  balance: number;
  payment_link: string | null;
}

export interface TemplateContext {
  customerName: string;
  contactName: string | null;
  companyName: string;
  senderName: string | null;
  /** The customer's open invoices. */
  openInvoices: TemplateInvoice[];
  /** The invoice the step is about: the step's own invoice, else the oldest open one. */
  invoice: TemplateInvoice | null;
  currency: string;
  today: string;
}

export function daysPastDue(dueDate: string, today: string): number {
  return Math.max(0, daysBetween(dueDate, today));
}

/** The values of every placeholder for one customer (and primary invoice) on one day. */
export function templateValues(ctx: TemplateContext): TemplateValues {
  const overdue = ctx.openInvoices.filter((i) => i.due_date < ctx.today);
  const sum = (list: TemplateInvoice[]) => list.reduce((acc, i) => acc + i.balance, 0);
  const inv = ctx.invoice;
  return {
    customer_name: ctx.customerName,
    contact_name: ctx.contactName ?? ctx.customerName,
    company_name: ctx.companyName,
    sender_name: ctx.senderName ?? ctx.companyName,
    invoice_number: inv?.invoice_number ?? '',
    invoice_date: inv ? longDate(inv.invoice_date) : '',
    due_date: inv ? longDate(inv.due_date) : '',
    balance: inv ? formatMoney(inv.balance, inv.currency) : '',
    total_amount: inv ? formatMoney(inv.total_amount, inv.currency) : '',
    days_past_due: inv ? String(daysPastDue(inv.due_date, ctx.today)) : '',
    payment_link: inv?.payment_link ?? '',
    total_balance: formatMoney(sum(ctx.openInvoices), ctx.currency),
    total_overdue: formatMoney(sum(overdue), ctx.currency),
    open_invoice_count: String(ctx.openInvoices.length),
    overdue_invoice_count: String(overdue.length),
    invoice_list: ctx.openInvoices.map((i) => `${i.invoice_number}, due ${longDate(i.due_date)}: ${formatMoney(i.balance, i.currency)}`).join('\n'),
  };
}
