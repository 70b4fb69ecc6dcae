import { createRoute, z } from '@hono/zod-openapi';
import { addMember, changeMemberRole, listMembers, removeMember } from '../../companies/members';
import { joinTeam } from '../../team/join';
import type { Context } from 'hono';
import type { AppEnv } from '../env';
import { scopeOf } from '../context';
import { CompanyParams, createRouter, idParams, json, jsonBody, problems, SECURITY, Timestamp, Uuid } from '../openapi';
import { CompanyRole as RoleEnum } from './auth';

const TAG = ['Extensions'];

const MemberSchema = z
  .object({ user_id: Uuid, username: z.string(), display_name: z.string(), email: z.string().nullable(), role: RoleEnum, member_since: Timestamp })
  .openapi('CompanyMember');

const AddedMemberSchema = MemberSchema.extend({
  setup_code: z.string().optional().openapi({ description: 'Invited: the one-time code the new user signs in with (POST /api/v1/setup/code/); shown only in this answer, stored hashed' }),
  setup_code_expires_at: Timestamp.optional(),
}).openapi('AddedCompanyMember');

const NewMemberBody = z
  .object({
    username: z.string().min(1).max(64),
    role: RoleEnum,
    invite: z.literal(true).optional().openapi({ description: 'A new user who signs in once with a setup code (answered once) and sets their own password' }),
    password: z.string().min(1).max(256).optional().openapi({ description: 'Given: a new user is created. Absent (and no invite): the existing user with this username and email joins.' }),
    name: z.string().trim().max(200).optional().openapi({ description: 'Display name of a new user (default: the username)' }),
    email: z.email().max(320).nullable().optional().openapi({ description: "A new user's email; to add an existing user, required and matched with theirs" }),
  })
  .strict()
  .refine((b) => !(b.invite && b.password !== undefined), { message: 'An invited user sets their own password: give invite or a password, not both', path: ['password'] })
  .refine((b) => b.password !== undefined || b.invite || b.name === undefined, { message: 'name describes a new user: give a password or invite too', path: ['password'] })
  .refine((b) => b.password !== undefined || b.invite || typeof b.email === 'string', {
    message: "To add an existing user give their email as well as their username (or a password to create a new user)",
    path: ['email'],
  })
  .openapi('NewCompanyMember');

const RoleBody = z.object({ role: RoleEnum }).strict().openapi('CompanyMemberRole');
const MemberParams = idParams('user_id');
const base = '/api/companies/{company_id}/members';

const route = <M extends 'get' | 'post' | 'patch' | 'delete', P extends string>(method: M, path: P, summary: string, who = 'owner only') => ({ method, path, summary: `${summary} (${who}; extension)`, tags: TAG, security: SECURITY });

const listRoute = createRoute({
  ...route('get', base, "The company's users and their roles", 'owners and managers'),
  request: { params: CompanyParams },
  responses: { 200: json(z.object({ members: z.array(MemberSchema) }), 'Members by name'), ...problems(401, 403, 404) },
});
const addRoute = createRoute({
  ...route('post', base, 'Create a user in this company (with a password, or invited with a one-time setup code), or add an existing user by username; a collecting member joins the team'),
  request: { params: CompanyParams, body: jsonBody(NewMemberBody) },
  responses: { 201: json(AddedMemberSchema, 'The new member'), ...problems(400, 401, 403, 404, 409) },
});
const patchRoute = createRoute({
  ...route('patch', `${base}/{user_id}`, "Change a member's role (never the last owner's)"),
  request: { params: MemberParams, body: jsonBody(RoleBody) },
  responses: { 200: json(MemberSchema, 'The member'), ...problems(400, 401, 403, 404, 409) },
});
const deleteRoute = createRoute({
  ...route('delete', `${base}/{user_id}`, 'Remove a member from this company (never the last owner); the user account stays'),
  request: { params: MemberParams },
  responses: { 204: { description: 'Removed' }, ...problems(401, 403, 404, 409) },
});

function memberScope(c: Context<AppEnv>) {
  return { ...scopeOf(c), role: c.var.membership.role };
}

export function memberRoutes() {
  return createRouter()
    .openapi(listRoute, async (c) => c.json({ members: await listMembers(c.var.engine.db, memberScope(c)) }, 200))
    .openapi(addRoute, async (c) => {
      const body = c.req.valid('json');
      const who = { username: body.username, role: body.role };
      const input =
        body.password !== undefined
          ? { ...who, password: body.password, name: body.name, email: body.email }
          : body.invite
            ? { ...who, invite: true as const, name: body.name, email: body.email }
            : { ...who, email: body.email };
      const scope = memberScope(c);
      return c.json(await addMember(c.var.engine, scope, input, (tx, userId, role) => joinTeam(tx, scope.companyId, userId, role)), 201);
    })
    .openapi(patchRoute, async (c) => {
      const scope = memberScope(c);
      return c.json(await changeMemberRole(c.var.engine, scope, c.req.valid('param').user_id, c.req.valid('json').role, (tx, userId, role) => joinTeam(tx, scope.companyId, userId, role)), 200);
    })
    .openapi(deleteRoute, async (c) => {
      await removeMember(c.var.engine, memberScope(c), c.req.valid('param').user_id);
      return c.body(null, 204);
    });
}
