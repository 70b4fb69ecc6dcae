/**
 * Email threads, the rules: which Message-IDs a message's References chain holds, the References
 * and subject of our answer to a message, and which thread a message belongs to. Pure.
 */

/** RFC 5322 ids in a header value, each as `<id>`, in order. */
export function messageIdsIn(value: string | string[] | null | undefined): string[] {
  if (value === null || value === undefined) return [];
  const text = Array.isArray(value) ? value.join(' ') : value;
  return text.match(/<[^<>\s]+>/g) ?? [];
}

/** Clients trim long chains; so do we: the thread's first id and the newest ones (RFC 5322 3.6.4). */
export const REFERENCES_KEPT = 20;

function trimmed(ids: string[]): string[] {
  const unique = [...new Set(ids)];
  return unique.length <= REFERENCES_KEPT ? unique : [unique[0], ...unique.slice(unique.length - REFERENCES_KEPT + 1)];
}

/** A received message's chain, oldest first: its References, else its In-Reply-To (clients that send only that). */
export function referenceChain(inReplyTo: string | string[] | undefined, references: string | string[] | undefined): string[] {
  const refs = messageIdsIn(references);
  return trimmed(refs.length ? refs : messageIdsIn(inReplyTo));
}

/** Our answer to a message: In-Reply-To its Message-ID, References its chain followed by it. */
export function answerHeaders(message: { messageId: string; references: string[] }): { inReplyTo: string; references: string[] } {
  return { inReplyTo: message.messageId, references: trimmed([...message.references.filter((id) => id !== message.messageId), message.messageId]) };
}

/** "Re: " once, as mail clients write it. */
export function answerSubject(subject: string | null): string {
  const s = (subject ?? '').trim();
  return /^re:/i.test(s) ? s : `Re: ${s}`.trim();
}

/** The thread of a message: the thread of the message it answers when we know it, else its chain's first id, else itself. */
export function threadOf(message: { messageId: string | null; references: string[] }, knownThread: string | null): string | null {
  return knownThread ?? message.references[0] ?? message.messageId;
}

/** The stored chain (space separated) as a list, and back. */
export const parseReferences = (stored: string | null): string[] => messageIdsIn(stored);
export const storeReferences = (ids: string[]): string | null => (ids.length ? ids.join(' ') : null);
