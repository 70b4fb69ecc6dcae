import { insertCompany, insertMembership } from '../companies/companies';
import { type Engine, runCommand, systemActor } from '../engine';
import { ConflictError } from '../errors';
import { hashPassword } from '../auth/passwords';
import { insertUser, type NewUserInput, validateNewUser } from '../auth/users';
import { addFounderToTeam } from './team';

export async function isInitialized(engine: Engine): Promise<boolean> {
  const row = await engine.db.selectFrom('users').select('id').limit(1).executeTakeFirst();
  return row !== undefined;
}

/**
 * First launch: creates the first user as owner of a new company and a member of its team. Refused once any user exists,
 * so nobody can use it to add themselves to a workspace later.
 */
export async function createFirstAccount(
  engine: Engine,
  input: NewUserInput & { companyName: string; currency?: string; place?: { time_zone: string | null; country: string | null } },
): Promise<void> {
  validateNewUser(input);
  const hash = await hashPassword(input.password);
  await runCommand(engine, 'create_first_account', { actor: systemActor, companyId: null }, async (tx) => {
    const any = await tx.db.selectFrom('users').select('id').limit(1).executeTakeFirst();
    if (any) throw new ConflictError('This workspace is already set up; sign in instead', 'already_initialized');
    const userId = await insertUser(tx, input, hash);
    const companyId = await insertCompany(tx, input.companyName.trim(), input.currency, undefined, input.place);
    await insertMembership(tx, companyId, userId, 'owner');
    await addFounderToTeam(tx, companyId, userId);
  });
}
