import { hashPassword } from '../../auth/passwords';
import { insertUser, validateNewUser } from '../../auth/users';
import { insertCompany, insertMembership } from '../../companies/companies';
import type { Role } from '../../db/schema';
import { runCommand, systemActor } from '../../engine';
import { openEngine } from '../../runtime/engine';
import { joinTeam } from '../../team/join';
import { addFounderToTeam } from '../../team/team';
import { findCompany } from '../company';
import { CLI_WRITE_WAIT, DB_OPTIONS, databaseFile, parse, subcommand, UsageError } from '../options';
import { USAGE } from '../usage.cjs';

export const ROLES: Role[] = ['owner', 'manager', 'collector', 'viewer'];

export function roleOption(value: string | undefined): Role {
  const role = (value ?? 'collector') as Role;
  if (!ROLES.includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  return role;
}

/**
 * Adds a user; with --company, also a membership of that existing company. An unknown company is
 * refused with the closest names (a typo must not make a new empty company), unless
 * --create-company (whose maker joins its team). The user, the company and the membership are one
 * transaction.
 */
export async function userCommand(args: string[]): Promise<number> {
  const [given, ...rest] = args;
  subcommand('user', given, ['add'], USAGE.user);
  const { values } = parse(rest, {
    ...DB_OPTIONS,
    username: { type: 'string' },
    password: { type: 'string' },
    name: { type: 'string' },
    company: { type: 'string' },
    'create-company': { type: 'boolean' },
    role: { type: 'string' },
  });
  if (!values.username || !values.password) throw new UsageError(USAGE.user);
  if (values['create-company'] && !values.company) throw new UsageError('--create-company goes with --company NAME');
  const role = roleOption(values.role);
  const input = { username: values.username, password: values.password, displayName: values.name };
  validateNewUser(input);
  const engine = await openEngine({ file: databaseFile(values, false, true), writeWait: CLI_WRITE_WAIT });
  try {
    let company: { id: string; name: string } | null = null;
    if (values.company) {
      try {
        company = await findCompany(engine, values.company, ' (or add --create-company to make a new one)');
      } catch (err) {
        if (!values['create-company'] || !(err instanceof UsageError) || !err.message.startsWith('no company')) throw err;
      }
    }
    const hash = await hashPassword(input.password);
    const newCompany = values.company && !company ? values.company : null;
    const companyId = await runCommand(engine, 'add_user', { actor: systemActor, companyId: null }, async (tx) => {
      const userId = await insertUser(tx, input, hash);
      if (!values.company) return null;
      const id = company?.id ?? (await insertCompany(tx, values.company));
      await insertMembership(tx, id, userId, role);
      if (!company) await addFounderToTeam(tx, id, userId);
      else await joinTeam(tx, id, userId, role);
      return id;
    });
    if (!companyId) console.log(`user ${values.username} added`);
    else console.log(`user ${values.username} added as ${role} of ${newCompany ? 'the new company' : 'company'} ${company?.name ?? newCompany} (${companyId})`);
    return 0;
  } finally {
    await engine.close();
  }
}
