/**
 * Users and team members are one notion: a user who collects for a company (owner, manager,
 * collector) is on its team, linked, so the AR owner pickers, "assign AR owners by rule" and
 * My work know them. A viewer reads only and owns no customers.
 */
import type { Role, TeamMemberRole } from '../db/schema';
import type { CommandTx } from '../engine';
import { insertTeamMember } from './team';

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
export async function joinTeam(tx: CommandTx, companyId: string, userId: string, role: Role): Promise<void> {
  const teamRole = teamRoleOf(role);
  if (!teamRole) return;
  const linked = await tx.db.selectFrom('team_members').select(['id', 'is_active']).where('company_id', '=', companyId).where('user_id', '=', userId).executeTakeFirst();
  if (linked) {
    if (!linked.is_active) {
      await tx.db.updateTable('team_members').set({ is_active: 1, updated_at: tx.now }).where('id', '=', linked.id).execute();
      await tx.record('team_member', linked.id, 'update', { is_active: 1 });
    }
    return;
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
    return;
  }
  await insertTeamMember(tx, companyId, { user_id: userId, name: user.display_name || user.username, email: user.email, role: teamRole, is_active: true });
}
