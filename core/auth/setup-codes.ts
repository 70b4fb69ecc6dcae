/**
 * One-time setup codes: an invited user signs in once with a code instead of a password and sets
 * their own password. The code is shown once to whoever invited them; only its sha256 is stored,
 * cleared when used, and it expires. Guesses are counted by the login throttle, like passwords.
 */
import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { type CommandTx, type Engine, runCommand } from '../engine';
import { TooManyRequestsError, UnauthorizedError } from '../errors';
import { hashPassword } from './passwords';
import { type LoginOptions, login, type LoginResult } from './sessions';
import { validateNewUser } from './users';

/** Letters and digits that cannot be misread for one another (no 0/O, 1/I/L, U). */
const ALPHABET = 'ABCDEFGHJKMNPQRSTVWXYZ23456789';
const GROUPS = 3;
const GROUP_LENGTH = 4;
export const SETUP_CODE_DAYS = 7;

/** A new code, e.g. "K7QF-M2XD-9PRT": 12 characters of 30, about 59 bits. */
export function generateSetupCode(): string {
  const groups: string[] = [];
  for (let g = 0; g < GROUPS; g++) groups.push(Array.from({ length: GROUP_LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join(''));
  return groups.join('-');
}

/** The code as typed, read the way it was printed: case, spaces and dashes do not matter. */
export function normalizeSetupCode(typed: string): string {
  return typed.toUpperCase().replace(/[\s-]/g, '');
}

export function hashSetupCode(code: string): string {
  return createHash('sha256').update(normalizeSetupCode(code)).digest('hex');
}

/** Gives a user a new setup code inside the caller's command; the code itself is returned once. */
export async function issueSetupCode(tx: CommandTx, userId: string): Promise<{ setup_code: string; setup_code_expires_at: string }> {
  const code = generateSetupCode();
  const expires = new Date(Date.parse(tx.now) + SETUP_CODE_DAYS * 86_400_000).toISOString();
  await tx.db.updateTable('users').set({ setup_code_hash: hashSetupCode(code), setup_code_expires_at: expires, updated_at: tx.now }).where('id', '=', userId).execute();
  await tx.record('user', userId, 'update', { setup_code_expires_at: expires });
  return { setup_code: code, setup_code_expires_at: expires };
}

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

const REFUSED = 'This setup code is not right or has expired: ask whoever invited you for a new one';

/**
 * Signs an invited user in with their setup code and sets their password: the code then stops
 * working. A wrong, used or expired code, or an unknown username, all get the same answer.
 */
export async function redeemSetupCode(engine: Engine, input: { username: string; setupCode: string; password: string }, options: LoginOptions): Promise<LoginResult> {
  validateNewUser({ username: input.username, password: input.password });
  const attempt = options.throttle.reserve(input.username, options.address);
  if (typeof attempt === 'number') throw new TooManyRequestsError(`Too many failed sign-ins; try again in ${attempt} seconds`, attempt);
  const user = await engine.db.selectFrom('users').select(['id', 'display_name', 'setup_code_hash', 'setup_code_expires_at']).where('username', '=', input.username).executeTakeFirst();
  const now = engine.clock.now().getTime();
  const ok = !!user?.setup_code_hash && !!user.setup_code_expires_at && Date.parse(user.setup_code_expires_at) > now && sameHash(user.setup_code_hash, hashSetupCode(input.setupCode));
  if (!ok || !user) {
    attempt.failed();
    throw new UnauthorizedError(REFUSED, 'invalid_setup_code');
  }
  attempt.succeeded();
  const hash = await hashPassword(input.password);
  await runCommand(engine, 'redeem_setup_code', { actor: { userId: user.id, name: user.display_name }, companyId: null }, async (tx) => {
    // Used once: a second request with the same code finds it gone.
    const used = await tx.db
      .updateTable('users')
      .set({ password_hash: hash, setup_code_hash: null, setup_code_expires_at: null, updated_at: tx.now })
      .where('id', '=', user.id)
      .where('setup_code_hash', '=', user.setup_code_hash)
      .executeTakeFirst();
    if (Number(used.numUpdatedRows) !== 1) throw new UnauthorizedError(REFUSED, 'invalid_setup_code');
    await tx.record('user', user.id, 'update', { password_set: true, setup_code_expires_at: null });
  });
  return login(engine, input.username, input.password, options);
}
