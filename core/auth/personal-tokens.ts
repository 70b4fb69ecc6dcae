/**
 * Personal API tokens: a user makes one for a script, with a name and an expiry. It acts as that
 * user (the same companies and roles). Stored only as a hash like every token; the key is shown
 * once, when it is made.
 */
import type { Db } from '../db/connection';
import { type Actor, type Engine, runCommand } from '../engine';
import type { ApiTokenKind } from '../db/schema';
import { ConflictError, ForbiddenError, NotFoundError } from '../errors';
import { expiryAfter, insertToken } from './sessions';

export const MAX_PERSONAL_TOKEN_DAYS = 365;

export interface PersonalToken {
  id: string;
  name: string;
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
}

/** The user's personal tokens not revoked (expired ones too, so they can be seen and removed), newest first. */
export async function listPersonalTokens(db: Db, userId: string): Promise<PersonalToken[]> {
  return db
    .selectFrom('api_tokens')
    .select(['id', 'name', 'created_at', 'expires_at', 'last_used_at'])
    .where('user_id', '=', userId)
    .where('kind', '=', 'personal')
    .where('revoked_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** The token a request came with: what it is and when it stops working. */
export interface Credential {
  kind: ApiTokenKind;
  expires_at: string;
}

/**
 * Whether a personal token may be made without a fresh password, or why not. A personal token
 * never makes another (a leaked script key must not renew itself), and a login token makes one
 * only within its own life (the desktop's one-day launch token cannot mint a year).
 */
export function personalTokenRefusal(caller: Credential, expiresAt: string, passwordConfirmed: boolean): string | null {
  if (passwordConfirmed) return null;
  if (caller.kind === 'personal') return 'Confirm your password to make a token while signed in with a personal token';
  if (Date.parse(expiresAt) > Date.parse(caller.expires_at)) return 'Confirm your password to make a token that lasts longer than your sign-in';
  return null;
}

/**
 * Makes a token; a name already used by another of the user's tokens is a 409. Without a
 * confirmed password, the caller's own token bounds it (personalTokenRefusal): a 403.
 */
export async function createPersonalToken(
  engine: Engine,
  actor: Actor & { userId: string },
  input: { name: string; expiresInDays: number; caller: Credential; passwordConfirmed: boolean },
): Promise<PersonalToken & { token: string }> {
  return runCommand(engine, 'create_personal_token', { actor, companyId: null }, async (tx) => {
    const refusal = personalTokenRefusal(input.caller, expiryAfter(tx.now, input.expiresInDays), input.passwordConfirmed);
    if (refusal) throw new ForbiddenError(refusal, 'password_required');
    const taken = await tx.db
      .selectFrom('api_tokens')
      .select('id')
      .where('user_id', '=', actor.userId)
      .where('kind', '=', 'personal')
      .where('revoked_at', 'is', null)
      .where((eb) => eb(eb.fn('lower', ['name']), '=', input.name.toLowerCase()))
      .executeTakeFirst();
    if (taken) throw new ConflictError(`You already have a token named "${input.name}"`, 'duplicate_name');
    const { id, token, expires_at } = await insertToken(tx, actor.userId, input.name, input.expiresInDays, 'personal');
    return { id, name: input.name, created_at: tx.now, expires_at, last_used_at: null, token };
  });
}

/** Revokes one of the user's own personal tokens; anyone else's, a session token or one revoked already is a 404. */
export async function revokePersonalToken(engine: Engine, actor: Actor & { userId: string }, tokenId: string): Promise<void> {
  await runCommand(engine, 'revoke_personal_token', { actor, companyId: null }, async (tx) => {
    const result = await tx.db
      .updateTable('api_tokens')
      .set({ revoked_at: tx.now })
      .where('id', '=', tokenId)
      .where('user_id', '=', actor.userId)
      .where('kind', '=', 'personal')
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) throw new NotFoundError('Token', tokenId);
    await tx.record('api_token', tokenId, 'update', { revoked_at: tx.now });
  });
}
