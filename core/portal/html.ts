/**
 * The portal's pages as HTML strings, server-rendered (no script: forms post, links download).
 * Every value is escaped. Phone first: one column of cards that widens on a larger screen; light
 * and dark follow the device (portal.css). Words, never codes: the customer may be anyone.
 */
import { formatRf } from '../rf';
import { longDate } from '../dates';
import { formatMoney } from '../money';
import { creditSourceWords } from '../payments/credit-words';
import { escapeHtml as h } from '../text';
import { DISPUTE_CATEGORIES, type Problems } from './forms';
import type { PortalInvoice, PortalPage } from './page';

export type Action = 'promise' | 'dispute' | 'paid' | 'contact';
export const ACTIONS: Record<Action, { title: string; button: string }> = {
  promise: { title: "I'll pay on a date", button: 'Send my promise' },
  dispute: { title: 'I have a question or I dispute this', button: 'Send my question' },
  paid: { title: "I've paid", button: 'Send my payment details' },
  contact: { title: 'Update my billing contact', button: 'Send the new contact' },
};

const THANKS: Record<Action, string> = {
  promise: 'Thank you. We have your promise and will not remind you about those invoices before that day.',
  dispute: 'Thank you. Your question is with our team, and we will not remind you about those invoices while we look into it.',
  paid: 'Thank you. We will look for your payment and hold our reminders for a few days meanwhile.',
  contact: 'Thank you. Our team will update your billing contact.',
};

/** The company's colours over the style sheet, when it chose any: behind the link, so only its customer's pages ask for them. */
function brandSheet(base: string, page: PortalPage): string {
  return page.brand.primary || page.brand.accent ? `\n<link rel="stylesheet" href="${base}/brand.css">` : '';
}

function layout(title: string, body: string, brand = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>${h(title)}</title>
<link rel="stylesheet" href="/portal/portal.css">${brand}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${body}
</body>
</html>`;
}

function header(page: PortalPage): string {
  const logo = page.logo ? `<img class="logo" src="data:${h(page.logo.type)};base64,${page.logo.base64}" alt="${h(page.companyName)}">` : '';
  return `<header class="brand">${logo}<p class="company">${h(page.companyName)}</p></header>`;
}

function invoiceWords(i: PortalInvoice): string {
  const late = i.daysPastDue > 0 ? `<span class="late">${i.daysPastDue} ${i.daysPastDue === 1 ? 'day' : 'days'} past due</span>` : '<span>Not yet due</span>';
  const state = i.disputed ? '<span class="tag">Question open</span>' : i.promisedFor ? `<span class="tag">You promised ${h(longDate(i.promisedFor))}</span>` : '';
  return [`<span class="due">Due ${h(longDate(i.dueDate))}</span>`, late, state].filter(Boolean).join(' · ');
}

function invoiceItem(base: string, i: PortalInvoice, checkbox: { name: string; checked: boolean }): string {
  const id = `inv-${h(i.id)}`;
  const pick = `<input type="checkbox" id="${id}" name="${checkbox.name}" value="${h(i.id)}"${checkbox.checked ? ' checked' : ''}>`;
  const label = `<label for="${id}">Invoice ${h(i.number)}</label>`;
  return `<li class="invoice">
<div class="pick">${pick}${label}</div>
<p class="amount">${h(formatMoney(i.balance, i.currency))}</p>
<p class="meta">${invoiceWords(i)}</p>
${i.reference && i.balance > 0 ? `<p class="meta">Payment reference <span class="reference">${h(formatRf(i.reference))}</span></p>` : ''}
<p class="meta">Issued ${h(longDate(i.invoiceDate))}, total ${h(formatMoney(i.total, i.currency))} · <a href="${base}/invoices/${h(i.id)}.pdf" download>Download invoice ${h(i.number)} (PDF)</a></p>
</li>`;
}

function totals(page: PortalPage): string {
  if (page.totals.length === 0) return '<p class="summary">Nothing is open on your account. Thank you.</p>';
  return page.totals
    .map(
      (t) => `<dl class="summary">
<div><dt>Open</dt><dd>${h(formatMoney(t.open, t.currency))}</dd></div>
<div><dt>Past due</dt><dd>${h(formatMoney(t.pastDue, t.currency))}</dd></div>
${t.credits ? `<div><dt>Credits</dt><dd>${h(formatMoney(t.credits, t.currency))}</dd></div>\n<div><dt>${t.open >= t.credits ? 'To pay after credits' : 'In your favour'}</dt><dd>${h(formatMoney(Math.abs(t.open - t.credits), t.currency))}</dd></div>` : ''}
</dl>`,
    )
    .join('\n');
}

function paymentSection(page: PortalPage): string {
  const parts: string[] = [];
  if (page.paymentInstructions) parts.push(`<p class="instructions">${h(page.paymentInstructions).replace(/\n/g, '<br>')}</p>`);
  if (page.invoices.length) parts.push("<p>Please give each invoice's payment reference (shown with it, RF…) with your payment, or its number if your bank takes no reference, so we can match it.</p>");
  if (page.paymentLink) parts.push(`<p><a class="button secondary" href="${h(page.paymentLink)}" rel="noopener noreferrer">Pay online</a></p>`);
  if (!parts.length) return '';
  return `<section aria-labelledby="pay"><h2 id="pay">How to pay</h2>${parts.join('\n')}</section>`;
}

export function portalHome(base: string, page: PortalPage, sent: Action | null): string {
  const banner = sent ? `<p class="notice" role="status">${h(THANKS[sent])}</p>` : '';
  const list = page.invoices.length
    ? `<form method="get" action="${base}/answer">
<fieldset><legend class="visually-hidden">Choose invoices</legend>
<ul class="invoices">${page.invoices.map((i) => invoiceItem(base, i, { name: 'invoice', checked: false })).join('\n')}</ul>
</fieldset>
${page.truncated ? '<p>Only your oldest 500 open items are listed here; the statement has them all.</p>' : ''}
<h2 id="act">Tell us about the invoices you ticked</h2>
<p class="hint">Tick one or more invoices above, then choose.</p>
<div class="actions">
<button type="submit" name="do" value="promise">${h(ACTIONS.promise.title)}</button>
<button type="submit" name="do" value="dispute">${h(ACTIONS.dispute.title)}</button>
<button type="submit" name="do" value="paid">${h(ACTIONS.paid.title)}</button>
</div>
</form>`
    : '';
  const credits = page.credits.length
    ? `<h2>Credits</h2><ul class="invoices">${page.credits.map((c) => `<li class="invoice"><p class="amount">${h(formatMoney(c.amount, c.currency))}</p><p class="meta">${h(creditSourceWords(c))}, ${h(longDate(c.date))}</p></li>`).join('\n')}</ul>`
    : '';
  return layout(
    `${page.companyName}: your invoices`,
    `${header(page)}
<main id="main">
${banner}
<h1>Invoices for ${h(page.customerName)}</h1>
${totals(page)}
<p><a href="${base}/statement.pdf" download>Download your statement (PDF)</a></p>
${list}
${credits}
${paymentSection(page)}
<section aria-labelledby="contact"><h2 id="contact">Your details</h2>
${page.billingContact ? `<p>We send invoices to ${h(page.billingContact.name)}${page.billingContact.email ? ` (${h(page.billingContact.email)})` : ''}.</p>` : '<p>We have no billing contact for you yet.</p>'}
<p><a href="${base}/answer?do=contact">Update my billing contact</a></p>
</section>
</main>
<footer><p>This page is private to ${h(page.customerName)}. Please do not share its address.</p></footer>`,
    brandSheet(base, page),
  );
}

function field(name: string, label: string, input: string, problems: Problems, hint?: string): string {
  const error = problems[name] ? `<p class="error" id="${name}-error">${h(problems[name])}</p>` : '';
  const hintHtml = hint ? `<p class="hint" id="${name}-hint">${h(hint)}</p>` : '';
  const described = [hint ? `${name}-hint` : '', problems[name] ? `${name}-error` : ''].filter(Boolean).join(' ');
  const withAria = input.replace('<INPUT_ATTRS>', `id="${name}" name="${name}"${described ? ` aria-describedby="${described}"` : ''}${problems[name] ? ' aria-invalid="true"' : ''}`);
  return `<div class="field"><label for="${name}">${h(label)}</label>${hintHtml}${error}${withAria}</div>`;
}

export interface FormState {
  action: Action;
  /** Invoices ticked. */
  picked: string[];
  values: Record<string, string>;
  problems: Problems;
  formToken: string;
  today: string;
}

function errorSummary(problems: Problems): string {
  const keys = Object.keys(problems);
  if (!keys.length) return '';
  return `<div class="error-summary" role="alert"><h2>Please check the form</h2><ul>${keys.map((k) => `<li><a href="#${k === 'invoice' ? 'invoices' : k}">${h(problems[k])}</a></li>`).join('')}</ul></div>`;
}

export function portalForm(base: string, page: PortalPage, state: FormState): string {
  const v = (name: string) => h(state.values[name] ?? '');
  const p = state.problems;
  const pickInvoices = state.action !== 'contact';
  const invoicePicker = pickInvoices
    ? `<fieldset id="invoices"${p.invoice ? ' aria-describedby="invoice-error"' : ''}><legend>Which invoices?</legend>
${p.invoice ? `<p class="error" id="invoice-error">${h(p.invoice)}</p>` : ''}
<ul class="invoices">${page.invoices.map((i) => invoiceItem(base, i, { name: 'invoice', checked: state.picked.includes(i.id) })).join('\n')}</ul></fieldset>`
    : '';
  const fields: Record<Action, string> = {
    promise: [
      field('date', 'I will pay on', `<input type="date" <INPUT_ATTRS> required min="${state.today}" value="${v('date')}">`, p),
      field('amount', 'Amount (optional)', `<input type="text" inputmode="decimal" autocomplete="off" <INPUT_ATTRS> value="${v('amount')}">`, p, 'Leave it empty if you will pay the invoices in full.'),
      field('message', 'Anything you want to add (optional)', `<textarea <INPUT_ATTRS> rows="3" maxlength="2000">${v('message')}</textarea>`, p),
    ].join('\n'),
    dispute: [
      field('category', 'What is it about?', `<select <INPUT_ATTRS> required><option value="">Choose…</option>${Object.entries(DISPUTE_CATEGORIES).map(([k, label]) => `<option value="${k}"${state.values.category === k ? ' selected' : ''}>${h(label)}</option>`).join('')}</select>`, p),
      field('message', 'Your message', `<textarea <INPUT_ATTRS> rows="5" required maxlength="2000">${v('message')}</textarea>`, p),
      field('file', 'Attach a document (optional)', `<input type="file" <INPUT_ATTRS> accept="application/pdf,image/png,image/jpeg">`, p, 'A PDF, PNG or JPEG file of up to 10 MB.'),
    ].join('\n'),
    paid: [
      field('date', 'I paid on', `<input type="date" <INPUT_ATTRS> required max="${state.today}" value="${v('date')}">`, p),
      field('amount', 'Amount paid', `<input type="text" inputmode="decimal" autocomplete="off" <INPUT_ATTRS> required value="${v('amount')}">`, p),
      field('reference', 'Payment reference (optional)', `<input type="text" <INPUT_ATTRS> maxlength="140" value="${v('reference')}">`, p),
      field('file', 'Proof of payment (optional)', `<input type="file" <INPUT_ATTRS> accept="application/pdf,image/png,image/jpeg">`, p, 'A PDF, PNG or JPEG file of up to 10 MB.'),
    ].join('\n'),
    contact: [
      field('name', 'Name', `<input type="text" autocomplete="name" <INPUT_ATTRS> required maxlength="200" value="${v('name')}">`, p),
      field('email', 'Email address', `<input type="email" autocomplete="email" <INPUT_ATTRS> required maxlength="254" value="${v('email')}">`, p),
      field('phone', 'Phone (optional)', `<input type="tel" autocomplete="tel" <INPUT_ATTRS> maxlength="40" value="${v('phone')}">`, p),
      field('message', 'Anything you want to add (optional)', `<textarea <INPUT_ATTRS> rows="3" maxlength="2000">${v('message')}</textarea>`, p),
    ].join('\n'),
  };
  const multipart = state.action === 'dispute' || state.action === 'paid';
  return layout(
    `${ACTIONS[state.action].title}: ${page.companyName}`,
    `${header(page)}
<main id="main">
<p><a href="${base}">Back to your invoices</a></p>
<h1>${h(ACTIONS[state.action].title)}</h1>
${errorSummary(p)}
<form method="post" action="${base}/${state.action}"${multipart ? ' enctype="multipart/form-data"' : ''} novalidate>
<input type="hidden" name="form_token" value="${h(state.formToken)}">
${invoicePicker}
${fields[state.action]}
<div class="actions"><button type="submit">${h(ACTIONS[state.action].button)}</button></div>
</form>
</main>`,
    brandSheet(base, page),
  );
}

/** The one answer for a link that is unknown, expired or revoked, and for anything not found behind a link. */
export function notFoundPage(): string {
  return layout(
    'This link does not open a page',
    `<main id="main">
<h1>This link does not open a page</h1>
<p>The link may have expired, or it was replaced by a newer one.</p>
<p>Please use the link in the latest email from the company that billed you, or ask them for a new one.</p>
</main>`,
  );
}

export function messagePage(title: string, words: string, back: string | null): string {
  return layout(title, `<main id="main"><h1>${h(title)}</h1><p>${h(words)}</p>${back ? `<p><a href="${back}">Back to your invoices</a></p>` : ''}</main>`);
}
