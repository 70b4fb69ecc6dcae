/**
 * Step templates: {{placeholder}} substitution with the customer's and invoice's data.
 * A section {{#name}}...{{/name}} is kept only when name has a value ("You can pay online at
 * {{payment_link}}." only for an invoice with a link). A known placeholder outside any section
 * that has no value is never sent: emptyPlaceholders names it and the sender refuses the email.
 * Unknown placeholders stay as written, so a typo shows in the preview instead of vanishing.
 */
import { daysBetween, longDate } from '../dates';
import { formatMoney } from '../money';
import { escapeHtml } from '../text';

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
  'portal_link',
] as const;

export type Placeholder = (typeof PLACEHOLDERS)[number];
export type TemplateValues = Record<Placeholder, string>;

const PLACEHOLDER_RE = /\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}/g;
const KNOWN = new Set<string>(PLACEHOLDERS);

const SECTION_RE = /\{\{#\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}([\s\S]*?)\{\{\/\s*\1\s*\}\}/g;

function valueOf(values: TemplateValues, name: string): string | undefined {
  return KNOWN.has(name) ? values[name as Placeholder] : undefined;
}

/** Keeps the sections whose placeholder has a value (their markers removed) and drops the others. */
export function resolveSections(template: string, values: TemplateValues): string {
  return template.replace(SECTION_RE, (whole, name: string, inner: string) => {
    const value = valueOf(values, name);
    if (value === undefined) return whole;
    return value.trim() ? inner : '';
  });
}

/** Known placeholders outside every section that would render empty, in order of appearance. */
export function emptyPlaceholders(template: string, values: TemplateValues): Placeholder[] {
  const out = new Set<Placeholder>();
  for (const match of resolveSections(template, values).matchAll(PLACEHOLDER_RE)) {
    const value = valueOf(values, match[1]);
    if (value !== undefined && !value.trim()) out.add(match[1] as Placeholder);
  }
  return [...out];
}

/** Substitutes placeholders; in HTML the values are escaped (customer names are data, not markup) and line breaks kept. */
export function renderTemplate(template: string, values: TemplateValues, format: 'text' | 'html' = 'text'): string {
  return resolveSections(template, values).replace(PLACEHOLDER_RE, (whole, name: string) => {
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

/** Whether any of the templates uses the placeholder (alone or as a section): a portal link is minted only for an email that shows it. */
export function usesPlaceholder(name: Placeholder, ...templates: Array<string | null | undefined>): boolean {
  const re = new RegExp(`\\{\\{\\s*[#/]?\\s*${name}\\s*\\}\\}`);
  return templates.some((t) => t != null && re.test(t));
}

/** Fills one placeholder (and its sections) in text otherwise sent as written (an action's email), the rest left as it is. */
export function fillPlaceholder(text: string, name: Placeholder, value: string): string {
  return text
    .replace(SECTION_RE, (whole, n: string, inner: string) => (n === name ? (value.trim() ? inner : '') : whole))
    .replace(PLACEHOLDER_RE, (whole, n: string) => (n === name ? value : whole));
}

/** Placeholders in a template that the renderer does not know (sections included). */
export function unknownPlaceholders(template: string): string[] {
  const out = new Set<string>();
  for (const match of template.matchAll(PLACEHOLDER_RE)) if (!KNOWN.has(match[1])) out.add(match[1]);
  for (const match of template.matchAll(SECTION_RE)) if (!KNOWN.has(match[1])) out.add(`#${match[1]}`);
  return [...out];
}

const EMPTY_WORDS: Partial<Record<Placeholder, string>> = {
  payment_link: 'the invoice has no payment link',
  contact_name: 'the customer has no contact name',
  invoice_number: 'the customer has no open invoice',
  portal_link: 'this server hands out no portal links',
};

/**
 * Why an email is not sent, in words: "{{payment_link}} would be empty (the invoice has no payment
 * link): put its sentence in {{#payment_link}}...{{/payment_link}} so it is left out when empty".
 */
export function emptyPlaceholderReason(names: Placeholder[]): string | null {
  if (names.length === 0) return null;
  const parts = names.map((n) => `{{${n}}}${EMPTY_WORDS[n] ? ` (${EMPTY_WORDS[n]})` : ''}`);
  const first = names[0];
  return `The email would read with nothing in place of ${parts.join(', ')}. Put that sentence in {{#${first}}}…{{/${first}}} so it is left out when there is no value, or fill in the value.`;
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
  /** The invoices {{invoice_list}} lists when not all open ones: those of a merged due-date email. */
  listedInvoices?: TemplateInvoice[];
  /** The invoice the step is about: the step's own invoice, else the oldest open one. */
  invoice: TemplateInvoice | null;
  currency: string;
  today: string;
  /** The customer's portal link, minted when the email is sent (core/email/portal-link.ts); null in a preview or without a portal. */
  portalLink?: string | null;
}

/** Words that only fit an invoice already past due: "{{days_past_due}}", "past due", "overdue". */
const PAST_DUE_WORDS = /\{\{\s*days_past_due\s*\}\}|\bpast[\s-]+due\b|\boverdue\b/i;

/**
 * Whether a step's words call its invoices past due: then an invoice not yet past due is left out of
 * it (the contact rule's not_due), so "0 days past due" or "is past due ... due on December 26" never goes out.
 */
export function saysPastDue(...texts: Array<string | null | undefined>): boolean {
  return texts.some((t) => t != null && PAST_DUE_WORDS.test(t));
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
    invoice_list: (ctx.listedInvoices ?? ctx.openInvoices).map((i) => `${i.invoice_number}, due ${longDate(i.due_date)}: ${formatMoney(i.balance, i.currency)}`).join('\n'),
    portal_link: ctx.portalLink ?? '',
  };
}
