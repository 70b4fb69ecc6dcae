import type { ApiTokenKind } from '../db/schema';
import { type CommandTx, type Engine, runCommand } from '../engine';
import { companiesOfUser, type CompanyRef } from './memberships';
import { TooManyRequestsError, UnauthorizedError, ValidationError } from '../errors';
import { newId } from '../ids';
import { decoyHash, verifyPassword } from './passwords';
import type { LoginThrottle } from './throttle';
import { generateToken, hashToken } from './tokens';

export const DEFAULT_TOKEN_TTL_DAYS = 30;

export interface LoginResult {
  token: string;
  expires_at: string;
  user: { id: string; username: string; display_name: string };
  companies: CompanyRef[];
}

export interface LoginOptions {
  throttle: LoginThrottle;
  address: string;
  tokenTtlDays?: number;
  tokenName?: string;
}

/**
 * Verifies a username and password and issues a new token. Unknown usernames cost the same
 * password check as known ones, and both fail with the same message.
 */
export async function login(engine: Engine, username: string, password: string, options: LoginOptions): Promise<LoginResult> {
  const attempt = options.throttle.reserve(username, options.address);
  if (typeof attempt === 'number') throw new TooManyRequestsError(`Too many failed logins; try again in ${attempt} seconds`, attempt);
  let user: { id: string; username: string; display_name: string; password_hash: string } | undefined;
  let ok = false;
  try {
    user = await engine.db.selectFrom('users').select(['id', 'username', 'display_name', 'password_hash']).where('username', '=', username).executeTakeFirst();
    ok = await verifyPassword(password, user?.password_hash ?? (await decoyHash()));
  } finally {
    if (user && ok) attempt.succeeded();
    else attempt.failed();
  }
  if (!user || !ok) throw new UnauthorizedError('Unable to log in with the provided credentials', 'invalid_credentials');
  const actor = { userId: user.id, name: user.display_name };
  const issued = await issueToken(engine, user.id, actor, options.tokenName ?? 'login', options.tokenTtlDays ?? DEFAULT_TOKEN_TTL_DAYS);
  return {
    ...issued,
    user: { id: user.id, username: user.username, display_name: user.display_name },
    companies: await companiesOfUser(engine.db, user.id),
  };
}

/**
 * A fresh password confirmation by a signed-in user, counted by the same failed-login throttle as
 * a login (a stolen token must not become a way to guess the password). Wrong is a 400: the token is fine.
 */
export async function confirmPassword(engine: Engine, userId: string, password: string, options: Pick<LoginOptions, 'throttle' | 'address'>): Promise<void> {
  const user = await engine.db.selectFrom('users').select(['username', 'password_hash']).where('id', '=', userId).executeTakeFirstOrThrow();
  const attempt = options.throttle.reserve(user.username, options.address);
  if (typeof attempt === 'number') throw new TooManyRequestsError(`Too many wrong passwords; try again in ${attempt} seconds`, attempt);
  let ok = false;
  try {
    ok = await verifyPassword(password, user.password_hash);
  } finally {
    if (ok) attempt.succeeded();
    else attempt.failed();
  }
  if (!ok) throw new ValidationError('The password is not right', { password: ['The password is not right'] }, 'wrong_password');
}

export async function issueToken(
  engine: Engine,
  userId: string,
  actor: { userId: string | null; name: string | null },
  name: string,
  ttlDays: number,
): Promise<{ token: string; expires_at: string }> {
  return runCommand(engine, 'issue_token', { actor, companyId: null }, async (tx) => {
    const { token, expires_at } = await insertToken(tx, userId, name, ttlDays, 'session');
    return { token, expires_at };
  });
}

export function expiryAfter(now: string, days: number): string {
  return new Date(Date.parse(now) + days * 86_400_000).toISOString();
}

/** Stores a new token of a user (only its hash) in the caller's command; the token itself is returned once. */
export async function insertToken(tx: CommandTx, userId: string, name: string, ttlDays: number, kind: ApiTokenKind): Promise<{ id: string; token: string; expires_at: string }> {
  const token = generateToken();
  const id = newId();
  const expires_at = expiryAfter(tx.now, ttlDays);
  await tx.db
    .insertInto('api_tokens')
    .values({ id, user_id: userId, token_hash: hashToken(token), name, kind, created_at: tx.now, expires_at, last_used_at: null, revoked_at: null })
    .execute();
  await tx.record('api_token', id, 'insert', { user_id: userId, name, kind, expires_at });
  return { id, token, expires_at };
}

export interface TokenOwner {
  tokenId: string;
  /** What the presented token is and when it stops working: a personal token may only be made from it within these bounds (see personal-tokens.ts). */
  credential: { kind: ApiTokenKind; expires_at: string };
  user: { id: string; username: string; display_name: string };
}

/** Resolves a presented token; missing, unknown, revoked and expired tokens all resolve to null. */
export async function authenticate(engine: Engine, token: string): Promise<TokenOwner | null> {
  const row = await engine.db
    .selectFrom('api_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select(['t.id as token_id', 't.expires_at', 't.revoked_at', 't.last_used_at', 't.kind', 'u.id', 'u.username', 'u.display_name'])
    .where('t.token_hash', '=', hashToken(token))
    .executeTakeFirst();
  const now = engine.clock.now();
  if (!row || row.revoked_at || Date.parse(row.expires_at) <= now.getTime()) return null;
  if (row.kind === 'personal') await markUsed(engine, row.token_id, row.last_used_at, now);
  return { tokenId: row.token_id, credential: { kind: row.kind, expires_at: row.expires_at }, user: { id: row.id, username: row.username, display_name: row.display_name } };
}

/** How stale a personal token's last_used_at may get: a minute's precision is what the token list needs, not a write per request. */
const LAST_USED_PRECISION_MS = 60_000;

/**
 * Notes when a token was last used. A single-row bookkeeping update, not a recorded command: it
 * changes no business data, and recording it would fill the audit trail with every script's calls.
 */
async function markUsed(engine: Engine, tokenId: string, lastUsedAt: string | null, now: Date): Promise<void> {
  if (lastUsedAt && now.getTime() - Date.parse(lastUsedAt) < LAST_USED_PRECISION_MS) return;
  await engine.db.updateTable('api_tokens').set({ last_used_at: now.toISOString() }).where('id', '=', tokenId).execute();
}

export async function revokeToken(engine: Engine, tokenId: string, actor: { userId: string | null; name: string | null }): Promise<void> {
  await runCommand(engine, 'revoke_token', { actor, companyId: null }, async (tx) => {
    await tx.db.updateTable('api_tokens').set({ revoked_at: tx.now }).where('id', '=', tokenId).execute();
    await tx.record('api_token', tokenId, 'update', { revoked_at: tx.now });
  });
}
