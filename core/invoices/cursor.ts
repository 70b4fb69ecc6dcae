/**
 * The list cursor: the last row's sort key and id (keyset paging), sealed with the engine's secret
 * box (AES-GCM). So it is opaque, a forged or altered one fails authentication, and it is bound to
 * the company and to the query it came from. It stays valid across restarts (the key is on disk).
 */
import { createHash } from 'node:crypto';
import type { SecretBox } from '../secrets';
import { ValidationError } from '../errors';
import { isUuid } from '../ids';

export interface CursorPosition {
  /** The sort key of the last row: a date or name (string) or minor units (integer). */
  key: string | number;
  id: string;
  /** How the first page chose to reach the rows, kept so every page of a walk uses the same plan. */
  plan: string;
}

interface Sealed {
  v: 1;
  c: string;
  q: string;
  k: string | number;
  i: string;
  p: string;
}

/** A short fingerprint of the normalised query, so a cursor only continues the query it came from. */
export function queryFingerprint(query: unknown): string {
  return createHash('sha256').update(JSON.stringify(query)).digest('base64url').slice(0, 16);
}

export function encodeCursor(secrets: SecretBox, companyId: string, fingerprint: string, position: CursorPosition): string {
  const sealed: Sealed = { v: 1, c: companyId, q: fingerprint, k: position.key, i: position.id, p: position.plan };
  return secrets.encrypt(JSON.stringify(sealed));
}

function invalid(): ValidationError {
  return new ValidationError('The cursor is invalid: pass next_cursor from the previous page of the same query', { cursor: ['invalid cursor'] }, 'invalid_cursor');
}

export function decodeCursor(
  secrets: SecretBox,
  companyId: string,
  fingerprint: string,
  keyType: 'string' | 'integer',
  plans: readonly string[],
  cursor: string,
): CursorPosition {
  let sealed: Sealed;
  try {
    sealed = JSON.parse(secrets.decrypt(cursor)) as Sealed;
  } catch {
    throw invalid();
  }
  const keyOk = keyType === 'integer' ? Number.isSafeInteger(sealed?.k) : typeof sealed?.k === 'string';
  if (sealed?.v !== 1 || sealed.c !== companyId || sealed.q !== fingerprint || !keyOk || typeof sealed.i !== 'string' || !isUuid(sealed.i) || !plans.includes(sealed.p)) {
    throw invalid();
  }
  return { key: sealed.k, id: sealed.i, plan: sealed.p };
}
