import { createUser } from '../../auth/users';
import { insertCompany, insertMembership } from '../../companies/companies';
import type { Role } from '../../db/schema';
import { createEngine, runCommand, systemActor } from '../../engine';
import { CLI_WRITE_WAIT, DB_OPTIONS, databaseFile, parse, UsageError } from '../options';

export const USER_HELP = 'ardesk user add --username U --password P [--name "Full Name"] [--company NAME_OR_ID] [--role owner|collector|viewer] [--db FILE | --data-dir DIR]';

const ROLES: Role[] = ['owner', 'collector', 'viewer'];

/** Adds a user; with --company, also a membership (creating the company when no such name exists). */
export async function userCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'add') throw new UsageError(USER_HELP);
  const { values } = parse(rest, {
    ...DB_OPTIONS,
    username: { type: 'string' },
    password: { type: 'string' },
    name: { type: 'string' },
    company: { type: 'string' },
    role: { type: 'string' },
  });
  if (!values.username || !values.password) throw new UsageError(USER_HELP);
  const role = (values.role ?? 'collector') as Role;
  if (!ROLES.includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  const engine = await createEngine({ file: databaseFile(values), writeWait: CLI_WRITE_WAIT });
  try {
    const userId = await createUser(engine, { username: values.username, password: values.password, displayName: values.name });
    if (values.company) {
      const company = values.company;
      const companyId = await runCommand(engine, 'add_membership', { actor: systemActor, companyId: null }, async (tx) => {
        const found = await tx.db.selectFrom('companies').select('id').where((eb) => eb.or([eb('id', '=', company), eb('name', '=', company)])).executeTakeFirst();
        const id = found?.id ?? (await insertCompany(tx, company));
        await insertMembership(tx, id, userId, role);
        return id;
      });
      console.log(`user ${values.username} added as ${role} of company ${companyId}`);
    } else {
      console.log(`user ${values.username} added`);
    }
    return 0;
  } finally {
    await engine.close();
  }
}
