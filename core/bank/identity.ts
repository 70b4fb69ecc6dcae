/**
 * An entry's identity across imports: the account, the booking date, the direction and amount,
 * and the bank's own reference for it (else what the entry says: its references, payer and
 * text). Entries alike in all of that within one statement are told apart by their order among
 * themselves, so the same statement, or one overlapping it by whole days, imported again adds
 * nothing.
 */
import { createHash } from 'node:crypto';
import { normalizeAccount } from './keys';
import type { ParsedStatement, StatementEntry } from './statement';

/** References banks put where they have none. */
const NO_REFERENCE = /^(NONREF|NOTPROVIDED|NONE|N\/A|-)?$/i;

function reference(value: string | null): string | null {
  const v = value?.trim() ?? '';
  return NO_REFERENCE.test(v) ? null : v;
}

function baseIdentity(account: string, e: StatementEntry): string {
  const own = reference(e.bank_reference);
  const what = own
    ? `ref:${own}`
    : `e2e:${reference(e.end_to_end_id) ?? ''}|sr:${e.structured_reference ?? ''}|cp:${normalizeAccount(e.counterparty_account) ?? e.counterparty_name ?? ''}|t:${e.remittance_text.replace(/\s+/g, ' ').trim()}`;
  return `${account}|${e.booked_on}|${e.direction}|${e.amount_cents}|${e.currency}|${what}`;
}

/** Each entry's identity, in the statement's order. */
export function entryIdentities(statement: ParsedStatement): string[] {
  const account = normalizeAccount(statement.account) ?? statement.account.trim();
  const seen = new Map<string, number>();
  return statement.entries.map((e) => {
    const base = baseIdentity(account, e);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return createHash('sha256').update(`${base}#${n}`).digest('base64url');
  });
}
