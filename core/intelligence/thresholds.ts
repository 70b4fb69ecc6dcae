/**
 * The thresholds of the recommended actions (proposals.ts), in one place; core/intelligence/README.md
 * says them in words. Amounts are in minor units of the invoice's currency.
 */

/** A past-due invoice untouched for this many days gets a proposal. */
export const NO_TOUCH_DAYS = 14;
/** Past-due invoices below this balance are chased together, one statement per customer, when there are several. */
export const SMALL_BALANCE = 100_000;
/**
 * Invoices issued more than this many days before the date the proposals count from are not chased
 * one by one: their customer gets a single "review old balances" recommendation (write off, or
 * send a statement) instead. On a ledger exported long ago that is every open invoice, until the
 * company works as of the ledger's last activity (core/companies/as-of.ts).
 */
export const OLD_INVOICE_DAYS = 365;
/** A customer's old balances totalling at most this are recommended for write-off first, a statement second; above it, the other way round. */
export const WRITE_OFF_MAX = 25_000;
