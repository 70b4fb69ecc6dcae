/**
 * "Send anyway": a person sends through the holds the rule found, with a reason kept in the change
 * log (`contact_override`), on every channel. An owner may forbid it for some hold kinds: then it is
 * refused (403 override_forbidden) and nothing goes.
 */
import type { CommandTx } from '../engine';
import { ForbiddenError, ValidationError } from '../errors';
import { newId } from '../ids';
import type { ContactAnswer, ContactHoldKind } from './rule';
import { contactSettings } from './store';

export const OVERRIDE_REASON_MAX = 500;

/** The words of a hold kind, for the refusal. */
const KIND_WORDS: Record<ContactHoldKind, string> = {
  dispute: 'a dispute',
  promise: 'a promise to pay',
  closed: 'a closed invoice',
  not_due: 'an invoice not yet due',
  reply: 'an unanswered reply',
  paused: 'a pause',
  do_not_contact: '"do not contact"',
  daily_cap: 'the one-email-a-day limit',
};

/**
 * Why "Send anyway" is refused for these held kinds, in words, when an owner forbids overriding one
 * of them; null when it may be offered. The approve panel says it before anyone asks.
 */
export function overrideRefusal(kinds: ContactHoldKind[], noOverride: ContactHoldKind[]): string | null {
  const forbidden = [...new Set(kinds)].filter((k) => noOverride.includes(k));
  return forbidden.length ? `Sending anyway is turned off for ${forbidden.map((k) => KIND_WORDS[k]).join(' and ')}: an owner decided it always holds.` : null;
}

/**
 * Records the person's override of the holds in `answer` (inside the send's transaction) and returns
 * the kinds sent through, for the request the door asks again. Throws when the reason is blank or
 * an owner forbids overriding one of the kinds.
 */
export async function overrideHolds(tx: CommandTx, companyId: string, answer: ContactAnswer, reason: string, about: Record<string, unknown>): Promise<ContactHoldKind[]> {
  if (!reason.trim()) throw new ValidationError('Say why it goes anyway', { override_reason: ['Say why it goes anyway'] });
  const kinds = [...new Set(answer.held.map((h) => h.kind))];
  const { noOverride } = await contactSettings(tx.db, companyId);
  const refused = overrideRefusal(kinds, noOverride);
  if (refused) throw new ForbiddenError(`${refused} ${answer.reason ?? ''}`.trim(), 'override_forbidden');
  if (kinds.length) await tx.record('contact_override', newId(), 'insert', { ...about, held: answer.held, reason: reason.trim(), by: tx.actor.name });
  return kinds;
}
