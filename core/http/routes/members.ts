import { createRoute, z } from '@hono/zod-openapi';
import { addMember, changeMemberRole, listMembers, removeMember } from '../../companies/members';
import type { Context } from 'hono';
import type { AppEnv } from '../env';
import { scopeOf } from '../context';
import { CompanyParams, createRouter, idParams, json, jsonBody, problems, SECURITY, Timestamp, Uuid } from '../openapi';

const TAG = ['Extensions'];
const RoleEnum = z.enum(['owner', 'collector', 'viewer']);

const MemberSchema = z
  .object({ user_id: Uuid, username: z.string(), display_name: z.string(), email: z.string().nullable(), role: RoleEnum, member_since: Timestamp })
  .openapi('CompanyMember');

const NewMemberBody = z
  .object({
    username: z.string().min(1).max(64),
    role: RoleEnum,
    password: z.string().min(1).max(256).optional().openapi({ description: 'Given: a new user is created. Absent: the existing user with this username and email joins.' }),
    name: z.string().trim().max(200).optional().openapi({ description: 'Display name of a new user (default: the username)' }),
    email: z.email().max(320).nullable().optional().openapi({ description: "A new user's email; to add an existing user, required and matched with theirs" }),
  })
  .strict()
  .refine((b) => b.password !== undefined || b.name === undefined, { message: 'name describes a new user: give a password too', path: ['password'] })
  .refine((b) => b.password !== undefined || typeof b.email === 'string', {
    message: "To add an existing user give their email as well as their username (or a password to create a new user)",
    path: ['email'],
  })
  .openapi('NewCompanyMember');

const RoleBody = z.object({ role: RoleEnum }).strict().openapi('CompanyMemberRole');
const MemberParams = idParams('user_id');
const base = '/api/companies/{company_id}/members';

const route = <M extends 'get' | 'post' | 'patch' | 'delete', P extends string>(method: M, path: P, summary: string) => ({ method, path, summary: `${summary} (owner only; extension)`, tags: TAG, security: SECURITY });

const listRoute = createRoute({
  ...route('get', base, "The company's users and their roles"),
  request: { params: CompanyParams },
  responses: { 200: json(z.object({ members: z.array(MemberSchema) }), 'Members by name'), ...problems(401, 403, 404) },
});
const addRoute = createRoute({
  ...route('post', base, 'Create a user in this company, or add an existing user by username'),
  request: { params: CompanyParams, body: jsonBody(NewMemberBody) },
  responses: { 201: json(MemberSchema, 'The new member'), ...problems(400, 401, 403, 404, 409) },
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
      const input = body.password !== undefined ? { username: body.username, role: body.role, password: body.password, name: body.name, email: body.email } : { username: body.username, role: body.role, email: body.email };
      return c.json(await addMember(c.var.engine, memberScope(c), input), 201);
    })
    .openapi(patchRoute, async (c) => c.json(await changeMemberRole(c.var.engine, memberScope(c), c.req.valid('param').user_id, c.req.valid('json').role), 200))
    .openapi(deleteRoute, async (c) => {
      await removeMember(c.var.engine, memberScope(c), c.req.valid('param').user_id);
      return c.body(null, 204);
    });
}
