/**
 * The portal's forms as pure rules: what a posted field means and why it is refused, in words a
 * customer understands. Each parser takes the form's fields as strings (a file aside) and returns
 * the submission or the problems by field.
 */
import { addDays, isValidDate } from '../dates';
import { MAX_AMOUNT, toMinor } from '../money';
import { isTypeableText } from '../text';

export const DISPUTE_CATEGORIES = {
  pricing: 'Pricing',
  quantity: 'Quantity',
  damaged: 'Damaged goods',
  not_received: 'Not received',
  duplicate: 'Duplicate billing',
  other: 'Something else',
} as const;
export type DisputeCategory = keyof typeof DISPUTE_CATEGORIES;

/** Days a report of payment holds reminders, for the money to arrive and be applied. */
export const PAID_HOLD_DAYS = 5;
/** How far ahead a customer may promise. */
export const PROMISE_MAX_DAYS = 365;
export const MESSAGE_MAX = 2000;
/** Invoices one form may name. */
export const MAX_FORM_INVOICES = 200;

export type Fields = Record<string, string | string[] | undefined>;
export type Problems = Record<string, string>;

export type Parsed<T> = { ok: true; value: T } | { ok: false; problems: Problems };

function one(fields: Fields, name: string): string {
  const v = fields[name];
  return (Array.isArray(v) ? (v[0] ?? '') : (v ?? '')).trim();
}

/** The invoice ids ticked (checkboxes named "invoice"), distinct. */
export function invoiceIds(fields: Fields): string[] {
  const v = fields.invoice;
  return [...new Set((Array.isArray(v) ? v : v ? [v] : []).map((x) => x.trim().toLowerCase()).filter(Boolean))];
}

function text(fields: Fields, name: string, max: number, problems: Problems, required: string | null): string | null {
  const v = one(fields, name);
  if (!v) {
    if (required) problems[name] = required;
    return null;
  }
  if (v.length > max) problems[name] = `Keep it under ${max.toLocaleString('en-US')} characters.`;
  else if (!isTypeableText(v)) problems[name] = 'Some characters could not be read; type it again.';
  return v;
}

/** An amount typed by a customer ("1,234.50", "1234"): minor units, or a problem. */
export function parseAmount(raw: string): number | string {
  const cleaned = raw.replace(/[\s,]/g, '').replace(/^[$€£]/, '');
  if (!/^\d+(\.\d{1,2})?$/.test(cleaned)) return 'Type an amount such as 1250.00.';
  const amount = Number(cleaned);
  if (amount <= 0) return 'The amount must be more than zero.';
  if (amount > MAX_AMOUNT) return 'The amount is too large.';
  return toMinor(amount);
}

function amount(fields: Fields, name: string, problems: Problems, required: boolean): number | null {
  const raw = one(fields, name);
  if (!raw) {
    if (required) problems[name] = 'Say how much was paid.';
    return null;
  }
  const parsed = parseAmount(raw);
  if (typeof parsed === 'string') problems[name] = parsed;
  return typeof parsed === 'number' ? parsed : null;
}

function date(fields: Fields, name: string, problems: Problems, from: string, to: string, words: { missing: string; range: string }): string | null {
  const v = one(fields, name);
  if (!v) problems[name] = words.missing;
  else if (!isValidDate(v)) problems[name] = 'Choose a date from the calendar (year-month-day).';
  else if (v < from || v > to) problems[name] = words.range;
  else return v;
  return null;
}

function pickInvoices(fields: Fields, problems: Problems): string[] {
  const ids = invoiceIds(fields);
  if (ids.length === 0) problems.invoice = 'Tick at least one invoice.';
  if (ids.length > MAX_FORM_INVOICES) problems.invoice = `Tick at most ${MAX_FORM_INVOICES} invoices.`;
  return ids;
}

export interface PromiseForm {
  invoiceIds: string[];
  date: string;
  amount: number | null;
  message: string | null;
}

export function parsePromise(fields: Fields, today: string): Parsed<PromiseForm> {
  const problems: Problems = {};
  const ids = pickInvoices(fields, problems);
  const d = date(fields, 'date', problems, today, addDays(today, PROMISE_MAX_DAYS), { missing: 'Choose the day you will pay.', range: 'Choose a day from today to a year from now.' });
  const a = amount(fields, 'amount', problems, false);
  const message = text(fields, 'message', MESSAGE_MAX, problems, null);
  return Object.keys(problems).length || !d ? { ok: false, problems } : { ok: true, value: { invoiceIds: ids, date: d, amount: a, message } };
}

export interface DisputeForm {
  invoiceIds: string[];
  category: DisputeCategory;
  message: string;
}

export function parseDispute(fields: Fields): Parsed<DisputeForm> {
  const problems: Problems = {};
  const ids = pickInvoices(fields, problems);
  const category = one(fields, 'category');
  if (!Object.hasOwn(DISPUTE_CATEGORIES, category)) problems.category = 'Choose what the question is about.';
  const message = text(fields, 'message', MESSAGE_MAX, problems, 'Tell us what is wrong.');
  return Object.keys(problems).length || !message ? { ok: false, problems } : { ok: true, value: { invoiceIds: ids, category: category as DisputeCategory, message } };
}

export interface PaidForm {
  invoiceIds: string[];
  date: string;
  amount: number;
  reference: string | null;
}

export function parsePaid(fields: Fields, today: string): Parsed<PaidForm> {
  const problems: Problems = {};
  const ids = pickInvoices(fields, problems);
  const d = date(fields, 'date', problems, addDays(today, -365), today, { missing: 'Choose the day you paid.', range: 'Choose a day in the last year, not after today.' });
  const a = amount(fields, 'amount', problems, true);
  const reference = text(fields, 'reference', 140, problems, null);
  return Object.keys(problems).length || !d || a === null ? { ok: false, problems } : { ok: true, value: { invoiceIds: ids, date: d, amount: a, reference } };
}

export interface ContactForm {
  name: string;
  email: string;
  phone: string | null;
  message: string | null;
}

const EMAIL = /^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+$/;

export function parseContact(fields: Fields): Parsed<ContactForm> {
  const problems: Problems = {};
  const name = text(fields, 'name', 200, problems, 'Type the name of the person who receives invoices.');
  const email = text(fields, 'email', 254, problems, 'Type their email address.');
  if (email && !problems.email && !EMAIL.test(email)) problems.email = 'Type an email address such as name@example.com.';
  const phone = text(fields, 'phone', 40, problems, null);
  const message = text(fields, 'message', MESSAGE_MAX, problems, null);
  return Object.keys(problems).length || !name || !email ? { ok: false, problems } : { ok: true, value: { name, email, phone, message } };
}

/** The day a report of payment holds reminders until: a few days after it was paid, or after today if it was paid earlier. */
export function paidHoldUntil(paidOn: string, today: string): string {
  return addDays(paidOn > today ? paidOn : today, PAID_HOLD_DAYS);
}
