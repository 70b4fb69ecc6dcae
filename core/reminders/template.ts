/**
 * The payment reminder email: subject, plain text and HTML from one invoice's data. Pure, so the
 * wording rules are tested directly.
 */
import { longDate } from '../dates';
import { formatMoney } from '../money';
import { escapeHtml } from '../text';
import { portalLinkLine } from '../email/portal-link';

export interface ReminderData {
  companyName: string;
  customerName: string;
  contactName: string | null;
  invoiceNumber: string;
  invoiceDate: string;
  dueDate: string;
  currency: string;
  /** Minor units (cents). */
  totalAmount: number;
  paidAmount: number;
  balance: number;
  /** Whole days since the due date; zero or negative when not yet past due. */
  daysPastDue: number;
  paymentLink: string | null;
  /** The customer's portal link, minted for this email; absent in a preview. */
  portalLink?: string | null;
}

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

/** How the due date reads: "is 12 days past due", "is 1 day past due", "is due today", "is due on December 1, 2026". */
export function dueState(daysPastDue: number, dueDate: string): string {
  if (daysPastDue > 0) return `is ${daysPastDue} ${daysPastDue === 1 ? 'day' : 'days'} past due`;
  if (daysPastDue === 0) return 'is due today';
  return `is due on ${longDate(dueDate)}`;
}

/** Only http(s) links become anchors: any other scheme is shown as text, never made clickable. */
function paymentLinkHtml(link: string, invoiceNumber: string): string {
  if (!/^https?:\/\//i.test(link)) return `Pay online: ${escapeHtml(link)}`;
  return `<a href="${escapeHtml(link)}">Pay invoice ${escapeHtml(invoiceNumber)} online</a>`;
}

export function renderReminder(data: ReminderData): RenderedEmail {
  const balance = formatMoney(data.balance, data.currency);
  const state = dueState(data.daysPastDue, data.dueDate);
  const greeting = `Hello ${data.contactName || data.customerName},`;
  const facts: Array<[string, string]> = [
    ['Invoice', data.invoiceNumber],
    ['Invoice date', longDate(data.invoiceDate)],
    ['Due date', longDate(data.dueDate)],
    ['Amount', formatMoney(data.totalAmount, data.currency)],
    ...(data.paidAmount !== 0 ? ([['Paid', formatMoney(data.paidAmount, data.currency)]] as Array<[string, string]>) : []),
    ['Balance due', balance],
  ];
  if (data.daysPastDue > 0) facts.push(['Days past due', String(data.daysPastDue)]);
  const lead = `This is a reminder that invoice ${data.invoiceNumber} from ${data.companyName} ${state}, with ${balance} outstanding.`;
  const close = 'If you have already sent the payment, thank you, and please disregard this message. If you have any questions about this invoice, simply reply to this email.';

  const text = [
    greeting,
    '',
    lead,
    '',
    ...facts.map(([label, value]) => `${label}: ${value}`),
    ...(data.paymentLink ? ['', `Pay online: ${data.paymentLink}`] : []),
    ...(data.portalLink ? ['', portalLinkLine(data.portalLink)] : []),
    '',
    close,
    '',
    'Kind regards,',
    data.companyName,
    '',
  ].join('\n');

  const rows = facts.map(([label, value]) => `<tr><td style="padding:2px 12px 2px 0;color:#555">${escapeHtml(label)}</td><td style="padding:2px 0"><strong>${escapeHtml(value)}</strong></td></tr>`).join('');
  const html = [
    '<!doctype html><html><body style="font-family:Arial,Helvetica,sans-serif;font-size:14px;color:#222">',
    `<p>${escapeHtml(greeting)}</p>`,
    `<p>${escapeHtml(lead)}</p>`,
    `<table cellpadding="0" cellspacing="0">${rows}</table>`,
    data.paymentLink ? `<p>${paymentLinkHtml(data.paymentLink, data.invoiceNumber)}</p>` : '',
    data.portalLink ? `<p><a href="${escapeHtml(data.portalLink)}">See your invoices and answer us online</a></p>` : '',
    `<p>${escapeHtml(close)}</p>`,
    `<p>Kind regards,<br>${escapeHtml(data.companyName)}</p>`,
    '</body></html>',
  ].join('');

  const subject = `Payment reminder: invoice ${data.invoiceNumber} ${state} (${balance})`;
  return { subject, text, html };
}
