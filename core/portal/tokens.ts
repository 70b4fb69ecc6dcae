/**
 * Portal tokens and form tokens, as pure rules. A link's token is 32 random bytes (256 bits,
 * base64url): it cannot be enumerated or guessed, and only its SHA-256 is stored, so a copy of the
 * database opens no portal. A form token is an HMAC of the link's id under the server's key: a page
 * on another site cannot know it, so it cannot post a form in the customer's name.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Characters of a token: 32 bytes in base64url without padding. */
export const TOKEN_LENGTH = 43;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export function newPortalToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Whether a path segment could be a token at all (anything else is answered as an unknown link). */
export function isTokenShape(value: string): boolean {
  return TOKEN_SHAPE.test(value);
}

export function hashPortalToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Equal hex digests, compared in constant time. */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** The form token of a link's pages. */
export function formToken(key: Buffer, linkId: string): string {
  return createHmac('sha256', key).update(`portal-form:${linkId}`).digest('base64url');
}

/** A posted form token is the link's, compared in constant time. */
export function formTokenValid(key: Buffer, linkId: string, posted: unknown): boolean {
  if (typeof posted !== 'string' || posted.length > 100) return false;
  const expected = Buffer.from(formToken(key, linkId));
  const given = Buffer.from(posted);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

export type LinkState = 'valid' | 'expired' | 'revoked';

/** A stored link's state at `now`: every state but valid is answered as an unknown link. */
export function linkState(link: { expires_at: string; revoked_at: string | null }, now: string): LinkState {
  if (link.revoked_at !== null) return 'revoked';
  return link.expires_at <= now ? 'expired' : 'valid';
}
