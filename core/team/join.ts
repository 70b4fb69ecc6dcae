/**
 * Users and team members are one notion: a user who collects for a company (owner, manager,
 * collector) is on its team, linked, so the AR owner pickers, "assign AR owners by rule" and
 * My work know them. A viewer reads only and owns no customers.
 */
import { membershipOf } from '../auth/memberships';
import type { Role, TeamMemberRole } from '../db/schema';
import { type CommandTx, type Engine, runCommand, type Scope } from '../engine';
import { ConflictError, NotFoundError } from '../errors';
import { getTeamMember, insertTeamMember, type TeamMemberDto } from './team';

/** The team role a company role collects as; null: not on the team (a viewer). */
export function teamRoleOf(role: Role): TeamMemberRole | null {
  if (role === 'collector') return 'ar';
  if (role === 'owner' || role === 'manager') return 'manager';
  return null;
}

/**
 * Puts a user on the company's team, inside the caller's command: their linked member is made
 * active again; else a name-only member with their email is linked to them (the team member the
 * company had before they could sign in); else a new member is made.
 */
export async function joinTeam(tx: CommandTx, companyId: string, userId: string, role: Role): Promise<string | null> {
  const teamRole = teamRoleOf(role);
  if (!teamRole) return null;
  const linked = await tx.db.selectFrom('team_members').select(['id', 'is_active']).where('company_id', '=', companyId).where('user_id', '=', userId).executeTakeFirst();
  if (linked) {
    if (!linked.is_active) {
      await tx.db.updateTable('team_members').set({ is_active: 1, updated_at: tx.now }).where('id', '=', linked.id).execute();
      await tx.record('team_member', linked.id, 'update', { is_active: 1 });
    }
    return linked.id;
  }
  const user = await tx.db.selectFrom('users').select(['display_name', 'username', 'email']).where('id', '=', userId).executeTakeFirstOrThrow();
  const email = user.email?.trim().toLowerCase();
  const namesake = email
    ? await tx.db
        .selectFrom('team_members')
        .select('id')
        .where('company_id', '=', companyId)
        .where('user_id', 'is', null)
        .where((eb) => eb(eb.fn('lower', ['email']), '=', email))
        .orderBy('created_at')
        .executeTakeFirst()
    : undefined;
  if (namesake) {
    await tx.db.updateTable('team_members').set({ user_id: userId, is_active: 1, updated_at: tx.now }).where('id', '=', namesake.id).execute();
    await tx.record('team_member', namesake.id, 'update', { user_id: userId, is_active: 1 });
    return namesake.id;
  }
  return (await insertTeamMember(tx, companyId, { user_id: userId, name: user.display_name || user.username, email: user.email, role: teamRole, is_active: true })).id;
}

/**
 * A user of the company who is not on its team yet (added before users and team members were one,
 * or a viewer made a collector elsewhere) is put on it with their role's team role.
 */
export async function putUserOnTeam(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope, userId: string): Promise<TeamMemberDto> {
  return runCommand(engine, 'put_user_on_team', scope, async (tx) => {
    const membership = await membershipOf(tx.db, userId, scope.companyId);
    if (!membership) throw new NotFoundError('Member', userId);
    const id = await joinTeam(tx, scope.companyId, userId, membership.role);
    if (!id) throw new ConflictError('A viewer reads only and owns no customers: give them another role first', 'viewer_not_on_team');
    return getTeamMember(tx.db, scope.companyId, id);
  });
}
