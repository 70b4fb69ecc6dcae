import { createRoute, z } from '@hono/zod-openapi';
import { putUserOnTeam } from '../../team/join';
import { createTeamMember, getTeamMember, listTeamMembers, TEAM_ROLES, updateTeamMember } from '../../team/team';
import { scopeOf } from '../context';
import { CompanyParams, createRouter, idParams, json, jsonBody, problems, QueryBool, SECURITY, Text, Timestamp, Uuid } from '../openapi';
import { CompanyRole } from './auth';

const TAGS = ['Extensions'];

const TeamMember = z
  .object({
    id: Uuid,
    name: z.string(),
    email: z.string().nullable(),
    role: z.enum(TEAM_ROLES),
    is_active: z.boolean(),
    user_id: Uuid.nullable().openapi({ description: 'The linked user of this company, if the member signs in' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('TeamMember');

const ListedTeamMember = TeamMember.extend({
  username: z.string().nullable().openapi({ description: 'The username the linked user signs in with; null: the member does not sign in' }),
  access: CompanyRole.nullable().openapi({ description: "The linked user's role in this company" }),
}).openapi('ListedTeamMember');

const TeamMemberList = z.object({ count: z.number().int(), data: z.array(ListedTeamMember) }).openapi('TeamMemberList');

const fields = {
  email: Text(254).nullable().optional(),
  is_active: z.boolean().optional(),
  user_id: Uuid.nullable().optional().openapi({ description: 'A user of this company, linked to at most one member' }),
};
const NewTeamMember = z.strictObject({ name: Text(200), role: z.enum(TEAM_ROLES), ...fields }).openapi('NewTeamMember');
const TeamMemberPatch = z.strictObject({ name: Text(200).optional(), role: z.enum(TEAM_ROLES).optional(), ...fields }).openapi('TeamMemberPatch');

const MemberParams = idParams('member_id');

const listRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/team-members',
  tags: TAGS,
  summary: "The company's team members, by name",
  security: SECURITY,
  request: { params: CompanyParams, query: z.object({ role: z.enum(TEAM_ROLES).optional(), is_active: QueryBool.optional() }) },
  responses: { 200: json(TeamMemberList, 'Team members'), ...problems(400, 401, 403, 404) },
});

const getRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/team-members/{member_id}',
  tags: TAGS,
  summary: 'One team member',
  security: SECURITY,
  request: { params: MemberParams },
  responses: { 200: json(TeamMember, 'The team member'), ...problems(401, 403, 404) },
});

const createMemberRoute = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/team-members',
  tags: TAGS,
  summary: 'Add a team member',
  security: SECURITY,
  request: { params: CompanyParams, body: jsonBody(NewTeamMember) },
  responses: { 201: json(TeamMember, 'The created team member'), ...problems(400, 401, 403, 404, 409) },
});

const patchRoute = createRoute({
  method: 'patch',
  path: '/api/companies/{company_id}/team-members/{member_id}',
  tags: TAGS,
  summary: 'Update a team member (deactivate instead of deleting: customers keep their owner)',
  security: SECURITY,
  request: { params: MemberParams, body: jsonBody(TeamMemberPatch) },
  responses: { 200: json(TeamMember, 'The updated team member'), ...problems(400, 401, 403, 404, 409) },
});

const fromUserRoute = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/team-members/from-user',
  operationId: 'putUserOnTeam',
  tags: TAGS,
  summary: 'Put a user of this company on its team, linked, with their role (owner and manager: manager; collector: AR); a user already on it is answered as they are',
  security: SECURITY,
  request: { params: CompanyParams, body: jsonBody(z.strictObject({ user_id: Uuid }).openapi('TeamMemberFromUser')) },
  responses: { 200: json(TeamMember, 'The team member linked to the user'), ...problems(400, 401, 403, 404, 409) },
});

export function teamRoutes() {
  return createRouter()
    .openapi(listRoute, async (c) => {
      const q = c.req.valid('query');
      const data = await listTeamMembers(c.var.engine.db, scopeOf(c).companyId, { role: q.role, isActive: q.is_active });
      return c.json({ count: data.length, data }, 200);
    })
    .openapi(getRoute, async (c) => c.json(await getTeamMember(c.var.engine.db, scopeOf(c).companyId, c.req.valid('param').member_id), 200))
    .openapi(createMemberRoute, async (c) => c.json(await createTeamMember(c.var.engine, scopeOf(c), c.req.valid('json')), 201))
    .openapi(fromUserRoute, async (c) => c.json(await putUserOnTeam(c.var.engine, scopeOf(c), c.req.valid('json').user_id.toLowerCase()), 200))
    .openapi(patchRoute, async (c) => c.json(await updateTeamMember(c.var.engine, scopeOf(c), c.req.valid('param').member_id, c.req.valid('json')), 200));
}
