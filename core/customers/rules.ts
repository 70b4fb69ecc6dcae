/**
 * Customer rules, pure: the checks a customer, its contacts and its locations must pass. Each
 * returns field errors keyed by dotted path ("contacts.1.email"), empty when valid.
 */
import type { FieldErrors } from '../errors';
import { isUuid } from '../ids';

const EMAIL_RE = /^[^\s@<>(),;:"\\]+@[^\s@<>(),;:"\\]+\.[^\s@<>(),;:"\\]{2,}$/;

/** A deliverable-looking address: one @, a dotted domain, no spaces or list separators. */
export function isEmail(value: string): boolean {
  return value.length <= 254 && EMAIL_RE.test(value);
}

/** ISO 4217 style: three letters, stored upper-case. */
export function normalizeCurrency(value: string): string | null {
  const code = value.trim().toUpperCase();
  return /^[A-Z]{3}$/.test(code) ? code : null;
}

export const MAX_CONTACTS = 50;
export const MAX_LOCATIONS = 50;
export const MAX_PAYMENT_TERMS_DAYS = 365;

export interface ContactInput {
  /** An existing contact of this customer to keep (its id stays); omit for a new contact. */
  id?: string;
  /** Defaults to the email when omitted. */
  name?: string;
  email?: string | null;
  phone?: string | null;
  title?: string | null;
  is_billing?: boolean;
}

export interface LocationInput {
  id?: string;
  name: string;
  address_line1?: string | null;
  city?: string | null;
  region?: string | null;
  postal_code?: string | null;
  country?: string | null;
}

type Errors = FieldErrors;

function add(errors: Errors, field: string, message: string) {
  (errors[field] ??= []).push(message);
}

function checkText(errors: Errors, field: string, value: unknown, max: number, required = false) {
  if (value === undefined || value === null) {
    if (required) add(errors, field, 'Is required');
    return;
  }
  if (typeof value !== 'string') return add(errors, field, 'Must be text');
  if (required && value.trim() === '') return add(errors, field, 'Must not be blank');
  if (value.length > max) add(errors, field, `Use at most ${max} characters`);
}

function checkIds(errors: Errors, prefix: string, items: Array<{ id?: string }>, existing: ReadonlySet<string>) {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    if (item.id === undefined) return;
    const id = item.id.toLowerCase();
    if (!existing.has(id)) add(errors, `${prefix}.${i}.id`, `Not one of this customer's ${prefix}`);
    else if (seen.has(id)) add(errors, `${prefix}.${i}.id`, 'Appears twice');
    seen.add(id);
  });
}

/** A replacement set of contacts: valid emails, a name or an email each, at most one billing contact. */
export function validateContacts(contacts: ContactInput[], existingIds: ReadonlySet<string>): Errors {
  const errors: Errors = {};
  if (contacts.length > MAX_CONTACTS) add(errors, 'contacts', `Use at most ${MAX_CONTACTS} contacts`);
  contacts.forEach((c, i) => {
    const at = `contacts.${i}`;
    checkText(errors, `${at}.name`, c.name, 200);
    checkText(errors, `${at}.email`, c.email, 254);
    checkText(errors, `${at}.phone`, c.phone, 50);
    checkText(errors, `${at}.title`, c.title, 100);
    const email = typeof c.email === 'string' ? c.email.trim() : '';
    if (email && !isEmail(email)) add(errors, `${at}.email`, 'Is not a valid email address');
    if (!c.name?.trim() && !email) add(errors, `${at}.name`, 'Give a name or an email');
  });
  if (contacts.filter((c) => c.is_billing).length > 1) add(errors, 'contacts', 'At most one contact can be the billing contact');
  checkIds(errors, 'contacts', contacts, existingIds);
  return errors;
}

export function validateLocations(locations: LocationInput[], existingIds: ReadonlySet<string>): Errors {
  const errors: Errors = {};
  if (locations.length > MAX_LOCATIONS) add(errors, 'locations', `Use at most ${MAX_LOCATIONS} locations`);
  locations.forEach((l, i) => {
    const at = `locations.${i}`;
    checkText(errors, `${at}.name`, l.name, 200, true);
    checkText(errors, `${at}.address_line1`, l.address_line1, 300);
    checkText(errors, `${at}.city`, l.city, 100);
    checkText(errors, `${at}.region`, l.region, 100);
    checkText(errors, `${at}.postal_code`, l.postal_code, 20);
    checkText(errors, `${at}.country`, l.country, 100);
  });
  checkIds(errors, 'locations', locations, existingIds);
  return errors;
}

export interface CustomerFields {
  name?: string;
  is_person?: boolean;
  ar_owner?: string | null;
  sales_owner?: string | null;
  remote_id?: string | null;
  payment_terms_days?: number;
  currency?: string;
  notes?: string | null;
}

/** The customer's own fields; `creating` makes the name required. */
export function validateCustomerFields(input: CustomerFields, creating: boolean): Errors {
  const errors: Errors = {};
  checkText(errors, 'name', input.name, 200, creating || input.name !== undefined);
  checkText(errors, 'remote_id', input.remote_id, 200);
  checkText(errors, 'notes', input.notes, 5000);
  for (const field of ['ar_owner', 'sales_owner'] as const) {
    const value = input[field];
    if (value !== undefined && value !== null && !isUuid(value)) add(errors, field, 'Must be a team member id (UUID) or null');
  }
  if (input.payment_terms_days !== undefined) {
    const d = input.payment_terms_days;
    if (!Number.isInteger(d) || d < 0 || d > MAX_PAYMENT_TERMS_DAYS) add(errors, 'payment_terms_days', `Must be a whole number of days from 0 to ${MAX_PAYMENT_TERMS_DAYS}`);
  }
  if (input.currency !== undefined && normalizeCurrency(input.currency) === null) add(errors, 'currency', 'Must be a three-letter currency code, e.g. USD');
  return errors;
}

/** Customers the bulk AR owner assignment changes: a picked set, or everyone matching a rule. */
export interface OwnerRule {
  /** A location of the customer is in this country (case and spaces ignored). */
  country?: string;
  min_open_balance?: number;
  max_open_balance?: number;
  /** Leave customers that already have an AR owner alone. */
  unassigned_only?: boolean;
}

export interface OwnerAssignment {
  ar_owner: string | null;
  customer_ids?: string[];
  rule?: OwnerRule;
}

export const MAX_OWNER_IDS = 1000;

/** One of customer_ids or a rule with at least one condition; a balance range that can match something. */
export function validateOwnerAssignment(input: OwnerAssignment): Errors {
  const errors: Errors = {};
  if (input.ar_owner !== null && !isUuid(input.ar_owner)) add(errors, 'ar_owner', 'Must be a team member id (UUID) or null');
  const { customer_ids: ids, rule } = input;
  if (ids === undefined && rule === undefined) add(errors, 'customer_ids', 'Give the customers (customer_ids) or a rule');
  if (ids !== undefined && rule !== undefined) add(errors, 'rule', 'Give customer_ids or a rule, not both');
  if (ids !== undefined) {
    if (ids.length === 0) add(errors, 'customer_ids', 'Pick at least one customer');
    if (ids.length > MAX_OWNER_IDS) add(errors, 'customer_ids', `Use at most ${MAX_OWNER_IDS} ids`);
    if (ids.some((id) => !isUuid(id))) add(errors, 'customer_ids', 'Must be customer ids (UUID)');
  }
  if (rule !== undefined) {
    const country = rule.country?.trim();
    if (!country && rule.min_open_balance === undefined && rule.max_open_balance === undefined) add(errors, 'rule', 'Give a country or a balance range');
    if (rule.min_open_balance !== undefined && rule.max_open_balance !== undefined && rule.min_open_balance > rule.max_open_balance) {
      add(errors, 'rule.max_open_balance', 'Must be at least the minimum');
    }
  }
  return errors;
}
