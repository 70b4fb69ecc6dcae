import { type Actor, type CommandTx, type Engine, runCommand, systemActor } from '../engine';
import { ConflictError, ValidationError } from '../errors';
import { newId } from '../ids';
import { hashPassword } from './passwords';

export interface NewUserInput {
  username: string;
  password: string;
  displayName?: string;
  email?: string | null;
}

const USERNAME_RE = /^[A-Za-z0-9][A-Za-z0-9._@-]{1,63}$/;

export function validateNewUser(input: NewUserInput): void {
  const errors: Record<string, string[]> = {};
  if (!USERNAME_RE.test(input.username)) errors.username = ['Use 2-64 letters, digits, dots, dashes, underscores or @'];
  if (input.password.length < 4) errors.password = ['Use at least 4 characters'];
  if (input.password.length > 256) errors.password = ['Use at most 256 characters'];
  if (Object.keys(errors).length) throw new ValidationError('The user is invalid', errors);
}

/** Inserts a user inside an open command; the password hash is computed before the transaction. */
export async function insertUser(tx: CommandTx, input: NewUserInput, passwordHash: string): Promise<string> {
  const existing = await tx.db.selectFrom('users').select('id').where('username', '=', input.username).executeTakeFirst();
  if (existing) throw new ConflictError(`The username ${input.username} is taken`, 'username_taken');
  const id = newId();
  await tx.db
    .insertInto('users')
    .values({
      id,
      username: input.username,
      display_name: input.displayName?.trim() || input.username,
      email: input.email ?? null,
      password_hash: passwordHash,
      created_at: tx.now,
      updated_at: tx.now,
    })
    .execute();
  await tx.record('user', id, 'insert', { username: input.username, display_name: input.displayName ?? input.username });
  return id;
}

export async function createUser(engine: Engine, input: NewUserInput, actor: Actor = systemActor): Promise<string> {
  validateNewUser(input);
  const hash = await hashPassword(input.password);
  return runCommand(engine, 'create_user', { actor, companyId: null }, (tx) => insertUser(tx, input, hash));
}

/** The user a request (or a replayed sync operation) acts as. */
export interface AuthenticatedUser {
  id: string;
  username: string;
  display_name: string;
}
