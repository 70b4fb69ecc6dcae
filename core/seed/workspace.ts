/**
 * The fixed frame of the demo workspace: companies, users and memberships, team members, labels
 * and email connections. Written through Kysely inside the seed's transaction.
 */
import type { Transaction } from 'kysely';
import type { Database, LabelMeaning, Role, TeamMemberRole } from '../db/schema';
import type { SecretBox } from '../secrets';
import type { Calendar } from './calendar';
import type { LedgerLabels } from './ledger';

export interface SeedContext {
  trx: Transaction<Database>;
  cal: Calendar;
  ids: () => string;
  secrets: SecretBox;
}

export interface TeamMember {
  id: string;
  name: string;
  email: string;
  role: TeamMemberRole;
  userId: string | null;
}

export interface CompanyFrame {
  id: string;
  name: string;
  slug: string;
  team: TeamMember[];
  labels: LedgerLabels;
  /** The default (shared) connection first. */
  connections: Array<{ id: string; name: string; fromEmail: string; userId: string | null }>;
}

/** "Disputed" and "Promise to pay" are marked with their meaning, so the engine reads them as a dispute and a promise. */
const LABELS: Array<{ key: keyof LedgerLabels; name: string; color: string; meaning?: LabelMeaning }> = [
  { key: 'disputed', name: 'Disputed', color: '#d64545', meaning: 'dispute' },
  { key: 'promise', name: 'Promise to pay', color: '#2f80ed', meaning: 'promise' },
  { key: 'escalated', name: 'Escalated', color: '#e08a1e' },
  { key: 'vip', name: 'VIP', color: '#7b4fd6' },
  { key: 'plan', name: 'Payment plan', color: '#27ae60' },
];

/** Local SMTP relay for the demo: `ardesk` tests and a developer's mail catcher listen on 2525. */
const DEMO_SMTP = { host: '127.0.0.1', port: 2525, password: 'demo-smtp-password' };

export async function insertCompany(ctx: SeedContext, name: string, slug: string, createdDay: number): Promise<CompanyFrame> {
  const id = ctx.ids();
  const at = ctx.cal.stamp(createdDay, 840);
  await ctx.trx.insertInto('companies').values({ id, name, currency: 'USD', created_at: at, updated_at: at }).execute();
  return { id, name, slug, team: [], labels: { disputed: '', promise: '', escalated: '', vip: '', plan: '' }, connections: [] };
}

export async function insertUser(ctx: SeedContext, username: string, displayName: string, email: string, passwordHash: string, createdDay: number): Promise<string> {
  const id = ctx.ids();
  const at = ctx.cal.stamp(createdDay, 845);
  await ctx.trx.insertInto('users').values({ id, username, display_name: displayName, email, password_hash: passwordHash, created_at: at, updated_at: at }).execute();
  return id;
}

export async function insertMembership(ctx: SeedContext, companyId: string, userId: string, role: Role, createdDay: number): Promise<void> {
  await ctx.trx
    .insertInto('memberships')
    .values({ id: ctx.ids(), company_id: companyId, user_id: userId, role, created_at: ctx.cal.stamp(createdDay, 850) })
    .execute();
}

export async function insertTeam(ctx: SeedContext, company: CompanyFrame, members: Array<Omit<TeamMember, 'id'>>, createdDay: number): Promise<void> {
  const at = ctx.cal.stamp(createdDay, 855);
  for (const m of members) {
    const id = ctx.ids();
    await ctx.trx
      .insertInto('team_members')
      .values({ id, company_id: company.id, user_id: m.userId, name: m.name, email: m.email, role: m.role, is_active: 1, created_at: at, updated_at: at })
      .execute();
    company.team.push({ id, ...m });
  }
}

export async function insertLabels(ctx: SeedContext, company: CompanyFrame, createdDay: number): Promise<void> {
  const at = ctx.cal.stamp(createdDay, 860);
  for (const l of LABELS) {
    const id = ctx.ids();
    await ctx.trx.insertInto('labels').values({ id, company_id: company.id, name: l.name, color: l.color, meaning: l.meaning ?? null, created_at: at, updated_at: at }).execute();
    company.labels[l.key] = id;
  }
}

export interface ConnectionInput {
  name: string;
  fromEmail: string;
  fromName: string;
  userId: string | null;
  isDefault: boolean;
  isActive: boolean;
  shared: boolean;
  host?: string;
  port?: number;
  secure?: boolean;
}

export async function insertConnection(ctx: SeedContext, company: CompanyFrame, c: ConnectionInput, createdDay: number): Promise<void> {
  const id = ctx.ids();
  const at = ctx.cal.stamp(createdDay, 865);
  await ctx.trx
    .insertInto('email_connections')
    .values({
      id,
      company_id: company.id,
      user_id: c.userId,
      name: c.name,
      from_email: c.fromEmail,
      from_name: c.fromName,
      smtp_host: c.host ?? DEMO_SMTP.host,
      smtp_port: c.port ?? DEMO_SMTP.port,
      smtp_secure: c.secure ? 1 : 0,
      smtp_username: c.fromEmail,
      smtp_password_enc: ctx.secrets.encrypt(DEMO_SMTP.password),
      is_default: c.isDefault ? 1 : 0,
      is_active: c.isActive ? 1 : 0,
      allow_shared_sending: c.shared ? 1 : 0,
      created_at: at,
      updated_at: at,
    })
    .execute();
  company.connections.push({ id, name: c.name, fromEmail: c.fromEmail, userId: c.userId });
}
