import { insertMembership } from '../../companies/companies';
import { joinTeam } from '../../team/join';
import { runCommand, systemActor } from '../../engine';
import { openEngine } from '../../runtime/engine';
import { findCompany } from '../company';
import { CLI_WRITE_WAIT, DB_OPTIONS, databaseFile, parse, subcommand, UsageError } from '../options';
import { USAGE } from '../usage.cjs';
import { companyCreate, memberInvite } from './onboarding';
import { roleOption } from './user';

/** `ardesk member add`: an existing user becomes a member of another company. */
export async function memberCommand(args: string[]): Promise<number> {
  const [given, ...rest] = args;
  const sub = subcommand('member', given, ['add', 'invite'], `${USAGE.member}\n${USAGE.memberInvite}`);
  if (sub === 'invite') return memberInvite(rest);
  const { values } = parse(rest, { ...DB_OPTIONS, username: { type: 'string' }, company: { type: 'string' }, role: { type: 'string' } });
  if (!values.username || !values.company) throw new UsageError(USAGE.member);
  const role = roleOption(values.role);
  const engine = await openEngine({ file: databaseFile(values), writeWait: CLI_WRITE_WAIT });
  try {
    const user = await engine.db.selectFrom('users').select('id').where('username', '=', values.username).executeTakeFirst();
    if (!user) throw new UsageError(`no user ${values.username} (ardesk user add makes one)`);
    const company = await findCompany(engine, values.company);
    const already = await engine.db.selectFrom('memberships').select('role').where('company_id', '=', company.id).where('user_id', '=', user.id).executeTakeFirst();
    if (already) throw new UsageError(`${values.username} is already a member of ${company.name}, as ${already.role}`);
    await runCommand(engine, 'add_membership', { actor: systemActor, companyId: company.id }, async (tx) => {
      await insertMembership(tx, company.id, user.id, role);
      // As in the app: a collecting member is on the team, so customers can be assigned to them.
      await joinTeam(tx, company.id, user.id, role);
    });
    console.log(`${values.username} added as ${role} of ${company.name} (${company.id})`);
    return 0;
  } finally {
    await engine.close();
  }
}

/** `ardesk company list`: every company with its id, members and invoices. */
export async function companyCommand(args: string[]): Promise<number> {
  const [given, ...rest] = args;
  const sub = subcommand('company', given, ['list', 'create'], `${USAGE.company}\n${USAGE.companyCreate}`);
  if (sub === 'create') return companyCreate(rest);
  const { values } = parse(rest, { ...DB_OPTIONS, json: { type: 'boolean' } });
  const engine = await openEngine({ file: databaseFile(values) });
  try {
    const companies = await engine.db
      .selectFrom('companies as c')
      .select((eb) => [
        'c.id',
        'c.name',
        'c.currency',
        eb.selectFrom('memberships as m').select((e) => e.fn.countAll<number>().as('n')).whereRef('m.company_id', '=', 'c.id').as('members'),
        eb.selectFrom('invoices as i').select((e) => e.fn.countAll<number>().as('n')).whereRef('i.company_id', '=', 'c.id').as('invoices'),
      ])
      .orderBy('c.name')
      .execute();
    if (values.json) console.log(JSON.stringify(companies));
    else if (!companies.length) console.log('no companies yet (ardesk company create --name NAME --owner USERNAME, or ardesk user add --company NAME --create-company)');
    else for (const c of companies) console.log(`${c.name}  ${c.id}  ${c.currency}  ${c.members} members, ${c.invoices} invoices`);
    return 0;
  } finally {
    await engine.close();
  }
}
