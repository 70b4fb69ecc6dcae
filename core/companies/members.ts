/**
 * The users of a company and their roles, managed by its owners: a new user with a password or
 * with a one-time setup code, or an existing user by username; a role changed; a membership
 * removed. A company never loses its last owner. Owners and managers see the list.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { hashPassword } from '../auth/passwords';
import { issueSetupCode } from '../auth/setup-codes';
import { insertUser, validateNewUser } from '../auth/users';
import type { Db } from '../db/connection';
import type { Role } from '../db/schema';
import { type Actor, type CommandTx, type Engine, runCommand } from '../engine';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors';
import { insertMembership } from './companies';

export interface Member {
  user_id: string;
  username: string;
  display_name: string;
  email: string | null;
  role: Role;
  member_since: string;
}

export type NewMember = { username: string; role: Role } & (
  | { password: string; name?: string; email?: string | null }
  | { invite: true; name?: string; email?: string | null }
  | { password?: undefined; invite?: undefined; email?: string | null }
);

/** A new member; an invited one carries the setup code they sign in with, shown this once. */
export type AddedMember = Member & { setup_code?: string; setup_code_expires_at?: string };

/** What a higher layer does in the same command when a user joins or changes role (the team joins them). */
export type MemberHook = (tx: CommandTx, userId: string, role: Role) => Promise<unknown>;

interface Scope {
  companyId: string;
  actor: Actor;
  /** The caller's role in the company. */
  role: Role;
}

function requireOwner(scope: Scope): void {
  if (scope.role !== 'owner') throw new ForbiddenError('Only an owner of this company can manage its users and roles', 'owner_only');
}

function memberQuery(db: Db, companyId: string) {
  return db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id as user_id', 'u.username', 'u.display_name', 'u.email', 'm.role', 'm.created_at as member_since'])
    .where('m.company_id', '=', companyId);
}

export async function listMembers(db: Db, scope: Scope): Promise<Member[]> {
  // A manager runs the team: they see who signs in, an owner changes it.
  if (scope.role !== 'manager') requireOwner(scope);
  return memberQuery(db, scope.companyId)
    .orderBy((eb) => eb.fn('lower', ['u.display_name']))
    .orderBy('u.id')
    .execute();
}

async function memberIn(tx: CommandTx, companyId: string, userId: string): Promise<Member & { membership_id: string }> {
  const member = await memberQuery(tx.db, companyId).select('m.id as membership_id').where('u.id', '=', userId).executeTakeFirst();
  if (!member) throw new NotFoundError('Member', userId);
  return member;
}

/** Refuses a change that would leave the company without an owner. */
async function keepAnOwner(tx: CommandTx, companyId: string, member: Member): Promise<void> {
  if (member.role !== 'owner') return;
  const others = await tx.db
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('company_id', '=', companyId)
    .where('role', '=', 'owner')
    .where('user_id', '!=', member.user_id)
    .executeTakeFirstOrThrow();
  if (Number(others.n) === 0) throw new ConflictError(`${member.display_name} is the last owner of this company: make another member an owner first`, 'last_owner');
}

/**
 * With a password: creates the user and makes them a member. Invited: creates the user with a
 * one-time setup code (their password is a random one nobody knows until they set theirs). Neither:
 * makes the existing user of that username and email a member (no such pair: 400 unknown_user, the
 * same for any username).
 */
export async function addMember(engine: Engine, scope: Scope, input: NewMember, joined?: MemberHook): Promise<AddedMember> {
  requireOwner(scope);
  const invited = 'invite' in input && input.invite === true;
  const password = invited ? randomBytes(24).toString('base64url') : 'password' in input ? input.password : undefined;
  const creating = password !== undefined;
  const name = 'name' in input ? input.name : undefined;
  if (creating) validateNewUser({ username: input.username, password, displayName: name });
  const hash = creating ? await hashPassword(password) : null;
  return runCommand(engine, 'add_member', scope, async (tx) => {
    let userId: string;
    let code: { setup_code: string; setup_code_expires_at: string } | null = null;
    if (creating) {
      userId = await insertUser(tx, { username: input.username, password, displayName: name, email: input.email ?? null }, hash!);
      if (invited) code = await issueSetupCode(tx, userId);
    } else {
      // Both the username and the email must match: an owner adds only someone they know, and the
      // answer is the same whether or not the username exists (no directory of other tenants).
      const user = input.email
        ? await tx.db.selectFrom('users').select('id').where('username', '=', input.username).where(sql<string>`lower(email)`, '=', input.email.toLowerCase()).executeTakeFirst()
        : undefined;
      if (!user) throw new ValidationError('No user has this username and email', { username: ['No user has this username and email; give a password to create a new user'] }, 'unknown_user');
      userId = user.id;
      const already = await tx.db.selectFrom('memberships').select('role').where('company_id', '=', scope.companyId).where('user_id', '=', userId).executeTakeFirst();
      if (already) throw new ConflictError(`${input.username} is already a member of this company (${already.role})`, 'already_member');
    }
    await insertMembership(tx, scope.companyId, userId, input.role);
    await joined?.(tx, userId, input.role);
    const { membership_id: _id, ...member } = await memberIn(tx, scope.companyId, userId);
    return code ? { ...member, ...code } : member;
  });
}

export async function changeMemberRole(engine: Engine, scope: Scope, userId: string, role: Role, changed?: MemberHook): Promise<Member> {
  requireOwner(scope);
  return runCommand(engine, 'change_member_role', scope, async (tx) => {
    const { membership_id: membershipId, ...member } = await memberIn(tx, scope.companyId, userId);
    if (member.role === role) return member;
    if (role !== 'owner') await keepAnOwner(tx, scope.companyId, member);
    await tx.db.updateTable('memberships').set({ role }).where('id', '=', membershipId).execute();
    await tx.record('membership', membershipId, 'update', { role });
    await changed?.(tx, userId, role);
    return { ...member, role };
  });
}

export async function removeMember(engine: Engine, scope: Scope, userId: string): Promise<void> {
  requireOwner(scope);
  await runCommand(engine, 'remove_member', scope, async (tx) => {
    const member = await memberIn(tx, scope.companyId, userId);
    await keepAnOwner(tx, scope.companyId, member);
    await tx.db.deleteFrom('memberships').where('id', '=', member.membership_id).execute();
    await tx.record('membership', member.membership_id, 'delete', { company_id: scope.companyId, user_id: userId });
  });
}
