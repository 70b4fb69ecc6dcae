/**
 * Money is stored as integer minor units (cents) and leaves the API as a JSON number with at most
 * two decimals. Conversions round half away from zero on the third decimal, so 0.1 + 0.2 problems
 * never reach the ledger.
 */
/** The largest amount accepted (major units): far beyond any invoice, well inside exact integer cents. */
export const MAX_AMOUNT = 1_000_000_000_000;

export function toMinor(amount: number): number {
  const cents = Math.round(Math.abs(amount) * 100 + 1e-9);
  return amount < 0 ? -cents : cents;
}

export function fromMinor(minor: number): number {
  return minor / 100;
}

/** True when the number has at most two decimals (after float noise is ignored). */
export function hasAtMostTwoDecimals(amount: number): boolean {
  return Math.abs(amount * 100 - Math.round(amount * 100)) < 1e-6;
}

/** Formatters per currency: building an Intl.NumberFormat costs far more than formatting with one. */
const formatters = new Map<string, Intl.NumberFormat | null>();
const plain = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** An amount in minor units for display: "$1,234.50", "€99.00"; an unknown currency code falls back to "1,234.50 XYZ". */
export function formatMoney(minor: number, currency: string): string {
  const amount = minor / 100;
  let formatter = formatters.get(currency);
  if (formatter === undefined) {
    try {
      formatter = new Intl.NumberFormat('en-US', { style: 'currency', currency });
    } catch {
      formatter = null;
    }
    formatters.set(currency, formatter);
  }
  return formatter ? formatter.format(amount) : `${plain.format(amount)} ${currency}`;
}
