/**
 * Personal API tokens: a user makes one for a script, with a name and an expiry. It acts as that
 * user (the same companies and roles). Stored only as a hash like every token; the key is shown
 * once, when it is made.
 */
import type { Db } from '../db/connection';
import { type Actor, type Engine, runCommand } from '../engine';
import { ConflictError, NotFoundError } from '../errors';
import { insertToken } from './sessions';

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

/** Makes a token; a name already used by another of the user's tokens is a 409. */
export async function createPersonalToken(engine: Engine, actor: Actor & { userId: string }, input: { name: string; expiresInDays: number }): Promise<PersonalToken & { token: string }> {
  return runCommand(engine, 'create_personal_token', { actor, companyId: null }, async (tx) => {
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
