/** Money, dates and times in the user's locale. Pure: unit-tested directly. */

/**
 * Building an Intl formatter costs far more than using one, and grid cells format on every
 * scroll: each formatter is built once per kind, locale and currency.
 */
const formats = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();

function cached<F extends Intl.NumberFormat | Intl.DateTimeFormat>(key: string, build: () => F): F {
  let format = formats.get(key) as F | undefined;
  if (!format) {
    format = build();
    formats.set(key, format);
  }
  return format;
}

export function formatMoney(amount: number | null | undefined, currency = 'USD', locale?: string): string {
  if (amount === null || amount === undefined || Number.isNaN(amount)) return '';
  return cached(`money|${locale ?? ''}|${currency}`, () => new Intl.NumberFormat(locale, { style: 'currency', currency, minimumFractionDigits: 2, maximumFractionDigits: 2 })).format(amount);
}

/** A compact amount for chart axes and headers: $1.2M, $350K. */
export function formatMoneyShort(amount: number, currency = 'USD', locale?: string): string {
  return cached(`short|${locale ?? ''}|${currency}`, () => new Intl.NumberFormat(locale, { style: 'currency', currency, notation: 'compact', maximumFractionDigits: 1 })).format(amount);
}

/** A 'YYYY-MM-DD' date as the locale writes it; the date is a calendar day, never shifted by time zone. */
export function formatDate(date: string | null | undefined, locale?: string): string {
  if (!date) return '';
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(date);
  if (!m) return date;
  return cached(`date|${locale ?? ''}`, () => new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' })).format(
    new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))),
  );
}

/** A 'YYYY-MM' month as the locale writes it: 'Jan 2026'. */
export function formatMonth(month: string, locale?: string): string {
  const m = /^(\d{4})-(\d{2})$/.exec(month);
  if (!m) return month;
  return cached(`month|${locale ?? ''}`, () => new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'short', timeZone: 'UTC' })).format(new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1)));
}

/** An ISO timestamp as the locale writes a date and time, in the user's time zone. */
export function formatTimestamp(value: string | null | undefined, locale?: string): string {
  if (!value) return '';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  return cached(`time|${locale ?? ''}`, () => new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })).format(date);
}

export function formatCount(n: number | null | undefined, locale?: string): string {
  return n === null || n === undefined ? '' : cached(`count|${locale ?? ''}`, () => new Intl.NumberFormat(locale)).format(n);
}

/** Today as 'YYYY-MM-DD' in the user's time zone (default date of a payment). */
export function localToday(now = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** Groups selected invoices by customer for the reminder confirmation: "Acme (2), Bolt (1)". */
export function recipientsSummary(rows: Array<{ customer_name: string }>, max = 4): string {
  const counts = new Map<string, number>();
  for (const row of rows) counts.set(row.customer_name, (counts.get(row.customer_name) ?? 0) + 1);
  const parts = [...counts.entries()].map(([name, n]) => `${name} (${n})`);
  return parts.length > max ? `${parts.slice(0, max).join(', ')} and ${parts.length - max} more` : parts.join(', ');
}

/**
 * The contact a reminder goes to, picked as the server picks it (core/reminders/targets.ts): the
 * billing contact, and its address only when it is one a mail can go to.
 */
export function billingContact(contacts: Array<{ name: string; email: string | null; is_billing: boolean }>): { name: string; email: string | null } | null {
  const billing = contacts.find((c) => c.is_billing);
  if (!billing) return null;
  const email = billing.email?.trim() ?? '';
  return { name: billing.name, email: email.includes('@') ? email : null };
}

/** Where a follow-up date stands against today (both 'YYYY-MM-DD'). */
export function followUpState(date: string, today: string): 'overdue' | 'today' | 'later' {
  return date < today ? 'overdue' : date === today ? 'today' : 'later';
}
