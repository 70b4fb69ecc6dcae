/**
 * `ardesk company create` and `ardesk member invite`: a company from nothing and its team, as the
 * app makes them (core/onboarding, POST /api/companies/{id}/members with invite). The command line
 * is the machine's administrator: it acts as the system, for the owner it names.
 */
import { addMember } from '../../companies/members';
import { systemActor } from '../../engine';
import { createCompany } from '../../onboarding/company';
import { openEngine } from '../../runtime/engine';
import { joinTeam } from '../../team/join';
import { findCompany } from '../company';
import { CLI_WRITE_WAIT, DB_OPTIONS, databaseFile, parse, UsageError } from '../options';
import { USAGE } from '../usage.cjs';
import { roleOption } from './user';

/** `ardesk company create --name N --owner USERNAME [--currency C] [--time-zone Z] [--country CC] [--legal-name ...] [--address ...] [--tax-id ...]` */
export async function companyCreate(args: string[]): Promise<number> {
  const { values } = parse(args, {
    ...DB_OPTIONS,
    name: { type: 'string' },
    owner: { type: 'string' },
    currency: { type: 'string' },
    'time-zone': { type: 'string' },
    country: { type: 'string' },
    'legal-name': { type: 'string' },
    address: { type: 'string' },
    'tax-id': { type: 'string' },
    json: { type: 'boolean' },
  });
  if (!values.name || !values.owner) throw new UsageError(USAGE.companyCreate);
  const engine = await openEngine({ file: databaseFile(values), writeWait: CLI_WRITE_WAIT });
  try {
    const owner = await engine.db.selectFrom('users').select(['id', 'display_name']).where('username', '=', values.owner).executeTakeFirst();
    if (!owner) throw new UsageError(`no user ${values.owner} (ardesk user add makes one)`);
    const company = await createCompany(
      engine,
      { userId: owner.id, name: systemActor.name },
      {
        name: values.name,
        currency: values.currency,
        time_zone: values['time-zone'],
        country: values.country,
        details: { legal_name: values['legal-name'], address: values.address, tax_id: values['tax-id'] },
      },
    );
    if (values.json) console.log(JSON.stringify(company));
    else console.log(`company ${company.name} created (${company.id}), ${company.currency}${company.time_zone ? `, ${company.time_zone}` : ''}${company.country ? `, ${company.country}` : ''}; ${values.owner} is its owner`);
    return 0;
  } finally {
    await engine.close();
  }
}

/** `ardesk member invite --company C --username U [--name N] [--email E] [--role R]`: prints the one-time setup code. */
export async function memberInvite(args: string[]): Promise<number> {
  const { values } = parse(args, { ...DB_OPTIONS, company: { type: 'string' }, username: { type: 'string' }, name: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' }, json: { type: 'boolean' } });
  if (!values.company || !values.username) throw new UsageError(USAGE.memberInvite);
  const role = roleOption(values.role);
  const engine = await openEngine({ file: databaseFile(values), writeWait: CLI_WRITE_WAIT });
  try {
    const company = await findCompany(engine, values.company);
    const scope = { companyId: company.id, actor: systemActor, role: 'owner' as const };
    const member = await addMember(engine, scope, { username: values.username, role, invite: true, name: values.name, email: values.email ?? null }, (tx, userId, joined) => joinTeam(tx, company.id, userId, joined));
    if (values.json) console.log(JSON.stringify(member));
    else {
      console.log(`${member.username} invited as ${role} of ${company.name}.`);
      console.log(`Setup code (shown once, valid until ${member.setup_code_expires_at}): ${member.setup_code}`);
      console.log('They sign in with their username and this code, then choose a password.');
    }
    return 0;
  } finally {
    await engine.close();
  }
}
