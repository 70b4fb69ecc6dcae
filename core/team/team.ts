/**
 * Team members: the people customers are assigned to (AR owner, sales owner). A member may be
 * linked to a user of this company (user_id) or be a name only, e.g. a salesperson without a login.
 */
import type { Db } from '../db/connection';
import type { Role, TeamMemberRole } from '../db/schema';
import { type CommandTx, type Engine, runCommand, type Scope } from '../engine';
import { ConflictError, type FieldErrors, NotFoundError, ValidationError } from '../errors';
import { isUuid, newId } from '../ids';
import { isEmail } from '../customers/rules';
import { membershipOf } from '../auth/memberships';
import { blankToNull } from '../text';

export const TEAM_ROLES = ['ar', 'sales', 'manager'] as const satisfies readonly TeamMemberRole[];

export interface TeamMemberDto {
  id: string;
  name: string;
  email: string | null;
  role: TeamMemberRole;
  is_active: boolean;
  user_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface TeamMemberInput {
  name?: string;
  email?: string | null;
  role?: TeamMemberRole;
  is_active?: boolean;
  user_id?: string | null;
}

export function validateTeamMember(input: TeamMemberInput, creating: boolean): FieldErrors {
  const errors: FieldErrors = {};
  if (input.name !== undefined || creating) {
    const name = input.name?.trim() ?? '';
    if (!name) errors.name = ['Is required'];
    else if (name.length > 200) errors.name = ['Use at most 200 characters'];
  }
  if (input.email !== undefined && input.email !== null && input.email.trim() !== '' && !isEmail(input.email.trim())) errors.email = ['Is not a valid email address'];
  if (creating && input.role === undefined) errors.role = ['Is required'];
  if (input.role !== undefined && !(TEAM_ROLES as readonly string[]).includes(input.role)) errors.role = [`Must be one of ${TEAM_ROLES.join(', ')}`];
  if (input.user_id !== undefined && input.user_id !== null && !isUuid(input.user_id)) errors.user_id = ['Must be a user id (UUID) or null'];
  return errors;
}

/** A team member as the team list shows it: with the user they sign in as and that user's role in the company. */
export interface ListedTeamMember extends TeamMemberDto {
  username: string | null;
  access: Role | null;
}

export async function listTeamMembers(db: Db, companyId: string, filters: { role?: TeamMemberRole; isActive?: boolean } = {}): Promise<ListedTeamMember[]> {
  let query = db
    .selectFrom('team_members as t')
    .leftJoin('users as u', 'u.id', 't.user_id')
    .leftJoin('memberships as m', (join) => join.onRef('m.user_id', '=', 't.user_id').onRef('m.company_id', '=', 't.company_id'))
    .selectAll('t')
    .select(['u.username', 'm.role as access'])
    .where('t.company_id', '=', companyId);
  if (filters.role) query = query.where('t.role', '=', filters.role);
  if (filters.isActive !== undefined) query = query.where('t.is_active', '=', filters.isActive ? 1 : 0);
  const rows = await query.orderBy('t.name').orderBy('t.id').execute();
  return rows.map((row) => ({ ...toDto(row), username: row.username, access: row.access }));
}

function toDto(row: { id: string; name: string; email: string | null; role: TeamMemberRole; is_active: number; user_id: string | null; created_at: string; updated_at: string }): TeamMemberDto {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    role: row.role,
    is_active: row.is_active === 1,
    user_id: row.user_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function getTeamMember(db: Db, companyId: string, memberId: string): Promise<TeamMemberDto> {
  const row = await db.selectFrom('team_members').selectAll().where('id', '=', memberId).where('company_id', '=', companyId).executeTakeFirst();
  if (!row) throw new NotFoundError('Team member', memberId);
  return toDto(row);
}

/** A linked user must belong to this company and be linked to no other member of it. */
async function checkUser(tx: CommandTx, companyId: string, userId: string, exceptMemberId: string | null): Promise<void> {
  if (!(await membershipOf(tx.db, userId, companyId))) throw new ValidationError('The team member is invalid', { user_id: ['No such user in this company'] });
  let taken = tx.db.selectFrom('team_members').select('id').where('company_id', '=', companyId).where('user_id', '=', userId);
  if (exceptMemberId) taken = taken.where('id', '<>', exceptMemberId);
  if (await taken.executeTakeFirst()) throw new ConflictError('That user is already linked to another team member', 'duplicate_team_user');
}

export async function createTeamMember(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope, input: TeamMemberInput): Promise<TeamMemberDto> {
  const errors = validateTeamMember(input, true);
  if (Object.keys(errors).length) throw new ValidationError('The team member is invalid', errors);
  return runCommand(engine, 'create_team_member', scope, async (tx) => {
    const userId = input.user_id ? input.user_id.toLowerCase() : null;
    if (userId) await checkUser(tx, scope.companyId, userId, null);
    return insertTeamMember(tx, scope.companyId, {
      user_id: userId,
      name: (input.name ?? '').trim(),
      email: blankToNull(input.email),
      role: input.role as TeamMemberRole,
      is_active: input.is_active !== false,
    });
  });
}

/** Inserts a checked team member inside an open command (the first account's own member too). */
export async function insertTeamMember(
  tx: CommandTx,
  companyId: string,
  input: { user_id: string | null; name: string; email: string | null; role: TeamMemberRole; is_active: boolean },
): Promise<TeamMemberDto> {
  const row = {
    id: newId(),
    company_id: companyId,
    user_id: input.user_id,
    name: input.name,
    email: input.email,
    role: input.role,
    is_active: input.is_active ? (1 as const) : (0 as const),
    created_at: tx.now,
    updated_at: tx.now,
  };
  await tx.db.insertInto('team_members').values(row).execute();
  const { id, company_id, created_at, updated_at, ...data } = row;
  await tx.record('team_member', id, 'insert', data);
  return toDto(row);
}

/**
 * The person who makes a company (first launch, or `ardesk user add --create-company`) collects its
 * AR from day one: they join its team as its manager, so "Mine" and the AR owner pickers know them.
 */
export async function addFounderToTeam(tx: CommandTx, companyId: string, userId: string): Promise<void> {
  const user = await tx.db.selectFrom('users').select(['display_name', 'username', 'email']).where('id', '=', userId).executeTakeFirstOrThrow();
  await insertTeamMember(tx, companyId, { user_id: userId, name: user.display_name || user.username, email: user.email, role: 'manager', is_active: true });
}

export async function updateTeamMember(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope, memberId: string, input: TeamMemberInput): Promise<TeamMemberDto> {
  const errors = validateTeamMember(input, false);
  if (Object.keys(errors).length) throw new ValidationError('The team member is invalid', errors);
  return runCommand(engine, 'update_team_member', scope, async (tx) => {
    const current = await getTeamMember(tx.db, scope.companyId, memberId);
    const changes: { name?: string; email?: string | null; role?: TeamMemberRole; is_active?: 0 | 1; user_id?: string | null } = {};
    if (input.name !== undefined) changes.name = input.name.trim();
    if (input.email !== undefined) changes.email = blankToNull(input.email);
    if (input.role !== undefined) changes.role = input.role;
    if (input.is_active !== undefined) changes.is_active = input.is_active ? 1 : 0;
    if (input.user_id !== undefined) {
      changes.user_id = input.user_id ? input.user_id.toLowerCase() : null;
      if (changes.user_id) await checkUser(tx, scope.companyId, changes.user_id, current.id);
    }
    if (Object.keys(changes).length === 0) return current;
    await tx.db.updateTable('team_members').set({ ...changes, updated_at: tx.now }).where('id', '=', current.id).execute();
    await tx.record('team_member', current.id, 'update', changes);
    return getTeamMember(tx.db, scope.companyId, current.id);
  });
}

/**
 * The caller's own team member in a company (ar_owner=me), or null when the user is not on its team.
 * A user linked twice takes the active, then the oldest, record.
 */
export async function teamMemberOfUser(db: Db, companyId: string, userId: string): Promise<string | null> {
  const row = await db
    .selectFrom('team_members')
    .select('id')
    .where('company_id', '=', companyId)
    .where('user_id', '=', userId)
    .orderBy('is_active', 'desc')
    .orderBy('created_at')
    .orderBy('id')
    .executeTakeFirst();
  return row?.id ?? null;
}
