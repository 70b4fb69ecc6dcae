import { issueToken, revokeToken } from '../core/auth/sessions';
import type { Engine } from '../core/engine';

/** Name of the tokens the desktop shell issues, so a crashed launch's token can be found and revoked. */
export const LAUNCH_TOKEN_NAME = 'desktop-launch';

/** A launch token lives one day; the shell renews it when a page loads within an hour of expiry. */
export const LAUNCH_TOKEN_TTL_DAYS = 1;
const RENEW_BEFORE_MS = 3_600_000;

export interface LaunchToken {
  token: string;
  tokenId: string;
  expiresAt: string;
}

const SHELL_ACTOR = { userId: null, name: 'ardesk desktop' };

/**
 * The local user of this workspace: whoever signed in most recently, else the first user created.
 * null on a first launch (no user yet).
 */
export async function localUser(engine: Engine): Promise<{ id: string } | null> {
  const recent = await engine.db
    .selectFrom('api_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select('u.id')
    // Sign-ins only: a personal token made for a script says nothing about who uses this machine.
    .where('t.kind', '=', 'session')
    .orderBy('t.created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (recent) return recent;
  return (await engine.db.selectFrom('users').select('id').orderBy('created_at').orderBy('id').limit(1).executeTakeFirst()) ?? null;
}

/** Revokes launch tokens a previous launch left behind (it crashed or was killed before quitting). */
export async function revokeLeftoverLaunchTokens(engine: Engine): Promise<number> {
  const rows = await engine.db.selectFrom('api_tokens').select('id').where('name', '=', LAUNCH_TOKEN_NAME).where('revoked_at', 'is', null).execute();
  for (const row of rows) await revokeToken(engine, row.id, SHELL_ACTOR);
  return rows.length;
}

/** Issues a token for the local user, or null when the workspace has no user yet. */
export async function issueLaunchToken(engine: Engine): Promise<LaunchToken | null> {
  const user = await localUser(engine);
  if (!user) return null;
  const issued = await issueToken(engine, user.id, { userId: user.id, name: SHELL_ACTOR.name }, LAUNCH_TOKEN_NAME, LAUNCH_TOKEN_TTL_DAYS);
  const row = await engine.db
    .selectFrom('api_tokens')
    .select('id')
    .where('user_id', '=', user.id)
    .where('name', '=', LAUNCH_TOKEN_NAME)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow();
  return { token: issued.token, tokenId: row.id, expiresAt: issued.expires_at };
}

/**
 * The token handed to a page when it loads: the current one while it is valid for another hour,
 * otherwise a fresh one (the old one is revoked). A first launch gets one once a user exists.
 */
export async function currentLaunchToken(engine: Engine, current: LaunchToken | null): Promise<LaunchToken | null> {
  if (current) {
    const row = await engine.db.selectFrom('api_tokens').select(['revoked_at', 'expires_at']).where('id', '=', current.tokenId).executeTakeFirst();
    const fresh = row && !row.revoked_at && Date.parse(row.expires_at) - engine.clock.now().getTime() > RENEW_BEFORE_MS;
    if (fresh) return current;
    if (row && !row.revoked_at) await revokeToken(engine, current.tokenId, SHELL_ACTOR);
  }
  return issueLaunchToken(engine);
}

export async function revokeLaunchToken(engine: Engine, token: LaunchToken | null): Promise<void> {
  if (token) await revokeToken(engine, token.tokenId, SHELL_ACTOR);
}
