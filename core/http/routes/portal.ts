import { createRoute, z } from '@hono/zod-openapi';
import { NotFoundError } from '../../errors';
import { decideContactChange, listSubmissions, MAX_LISTED } from '../../portal/contacts';
import { createPortalLink, linkDays, MAX_LINK_DAYS, revokePortalLinks, setLinkDays } from '../../portal/links';
import { scopeOf } from '../context';
import type { HttpOptions } from '../options';
import { attachment } from '../portal';
import { problem } from '../problem';
import { CompanyParams, createRouter, idParams, json, jsonBody, problems, SECURITY, Timestamp, Uuid, UuidValue } from '../openapi';

const TAGS = ['Extensions'];

const PortalLink = z
  .object({
    url: z.string().openapi({ description: "The customer's portal page; the token in it is shown only here, once" }),
    expires_at: Timestamp,
  })
  .openapi('PortalLink');

const Revoked = z.object({ revoked: z.number().int().openapi({ description: 'Links that were still valid' }) }).openapi('PortalLinksRevoked');

const PortalSettings = z
  .object({
    link_days: z.number().int().openapi({ description: 'Days a new link stays valid (60 by default)' }),
    available: z.boolean().openapi({ description: 'Whether this server can hand out links customers can open' }),
    base_url: z.string().nullable().openapi({ description: 'Where the links point' }),
  })
  .openapi('PortalSettings');

const linkPath = '/api/companies/{company_id}/customers/{customer_id}/portal-link';

const createLinkRoute = createRoute({
  method: 'post',
  path: linkPath,
  tags: TAGS,
  summary: "A new link to the customer's payment portal",
  description:
    'An opaque token of 256 random bits, stored hashed, valid for the company\'s link days. Earlier links stay valid until they expire or are revoked. 409 portal_unavailable when this server serves no portal customers can reach; on a desktop connected to a team server, 409 team_server_only (links are made there).',
  security: SECURITY,
  request: { params: idParams('customer_id') },
  responses: { 201: json(PortalLink, 'The link'), ...problems(400, 401, 403, 404, 409) },
});

const revokeLinksRoute = createRoute({
  method: 'delete',
  path: linkPath,
  tags: TAGS,
  summary: "Revoke every portal link of the customer",
  description: 'A revoked link opens the same page as an unknown one.',
  security: SECURITY,
  request: { params: idParams('customer_id') },
  responses: { 200: json(Revoked, 'How many were revoked'), ...problems(401, 403, 404) },
});

const settingsPath = '/api/companies/{company_id}/portal-settings';

const getSettingsRoute = createRoute({
  method: 'get',
  path: settingsPath,
  tags: TAGS,
  summary: "The company's portal settings and whether the portal is available here",
  security: SECURITY,
  request: { params: CompanyParams },
  responses: { 200: json(PortalSettings, 'The settings'), ...problems(401, 403, 404) },
});

const putSettingsRoute = createRoute({
  method: 'put',
  path: settingsPath,
  tags: TAGS,
  summary: "Set how long the company's new portal links stay valid",
  security: SECURITY,
  request: { params: CompanyParams, body: jsonBody(z.strictObject({ link_days: z.number().int().min(1).max(MAX_LINK_DAYS) }).openapi('PortalSettingsUpdate')) },
  responses: { 200: json(PortalSettings, 'The settings'), ...problems(400, 401, 403, 404) },
});

const fileRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/portal-files/{file_id}',
  tags: TAGS,
  summary: 'A file a customer attached in the portal',
  description: 'Always a download (Content-Disposition: attachment) with its checked type: a PDF, PNG or JPEG.',
  security: SECURITY,
  request: { params: idParams('file_id') },
  responses: { 200: { description: 'The file', content: { 'application/octet-stream': { schema: z.string().openapi({ format: 'binary' }) } } }, ...problems(401, 403, 404) },
});

const Submission = z
  .object({
    id: Uuid,
    customer: Uuid,
    kind: z.enum(['promise', 'dispute', 'paid', 'contact']).openapi({ description: "promise: I'll pay on a date; dispute: a question or dispute; paid: a report of payment; contact: a proposed billing contact" }),
    invoices: z.array(Uuid),
    details: z.record(z.string(), z.unknown()).openapi({ description: 'What the customer filled in: date and amount (minor units), category and message, reference, or name, email and phone' }),
    file: Uuid.nullable().openapi({ description: 'The attached file: GET …/portal-files/{file_id}' }),
    status: z.enum(['open', 'accepted', 'declined']).openapi({ description: 'A proposed contact waits (open) until accepted or declined' }),
    decided_by: z.string().nullable(),
    created_at: Timestamp,
  })
  .openapi('PortalSubmission');

const submissionsPath = '/api/companies/{company_id}/portal-submissions';

const listSubmissionsRoute = createRoute({
  method: 'get',
  path: submissionsPath,
  tags: TAGS,
  summary: `What customers sent through the portal, newest first (at most ${MAX_LISTED})`,
  security: SECURITY,
  request: { params: CompanyParams, query: z.object({ customer_id: UuidValue.optional(), status: z.enum(['open', 'accepted', 'declined']).optional() }) },
  responses: { 200: json(z.object({ data: z.array(Submission) }).openapi('PortalSubmissionList'), 'The submissions'), ...problems(400, 401, 403, 404) },
});

const decideRoute = (decision: 'accept' | 'decline') =>
  createRoute({
    method: 'post',
    path: `${submissionsPath}/{submission_id}/${decision}`,
    tags: TAGS,
    summary: decision === 'accept' ? "Accept a proposed billing contact: it becomes the customer's billing contact" : 'Decline a proposed billing contact',
    description: '400 not_a_contact_change for another kind of submission; 400 already_decided when it was accepted or declined before.',
    security: SECURITY,
    request: { params: idParams('submission_id') },
    responses: { 200: json(Submission, 'The submission, decided'), ...problems(400, 401, 403, 404) },
  });

export function portalApiRoutes(options: Pick<HttpOptions, 'portalBaseUrl'>) {
  const router = createRouter();
  const settings = async (db: Parameters<typeof linkDays>[0], companyId: string) => {
    const base = options.portalBaseUrl();
    return { link_days: await linkDays(db, companyId), available: base !== null, base_url: base };
  };
  router.openapi(createLinkRoute, async (c) => {
    const base = options.portalBaseUrl();
    if (!base) return problem(409, 'portal_unavailable', 'This server serves no portal customers can reach: run the team server (ardesk serve --team) to hand out links') as never;
    return c.json(await createPortalLink(c.var.engine, scopeOf(c), c.req.valid('param').customer_id, base), 201);
  });
  router.openapi(revokeLinksRoute, async (c) => c.json({ revoked: await revokePortalLinks(c.var.engine, scopeOf(c), c.req.valid('param').customer_id) }, 200));
  router.openapi(getSettingsRoute, async (c) => c.json(await settings(c.var.engine.db, scopeOf(c).companyId), 200));
  router.openapi(putSettingsRoute, async (c) => {
    await setLinkDays(c.var.engine, scopeOf(c), c.req.valid('json').link_days);
    return c.json(await settings(c.var.engine.db, scopeOf(c).companyId), 200);
  });
  router.openapi(fileRoute, async (c) => {
    const { companyId } = scopeOf(c);
    const id = c.req.valid('param').file_id;
    const file = await c.var.engine.db.selectFrom('portal_files').select(['file_name', 'media_type', 'content_base64']).where('company_id', '=', companyId).where('id', '=', id.toLowerCase()).executeTakeFirst();
    if (!file) throw new NotFoundError('File', id);
    return c.body(new Uint8Array(Buffer.from(file.content_base64, 'base64')), 200, {
      'content-type': file.media_type,
      'content-disposition': attachment(file.file_name, 'attachment'),
      'content-security-policy': "default-src 'none'; sandbox",
      'cache-control': 'no-store',
    }) as never;
  });
  router.openapi(listSubmissionsRoute, async (c) => {
    const q = c.req.valid('query');
    return c.json({ data: await listSubmissions(c.var.engine.db, scopeOf(c).companyId, { customerId: q.customer_id, status: q.status }) }, 200);
  });
  router.openapi(decideRoute('accept'), async (c) => c.json(await decideContactChange(c.var.engine, scopeOf(c), c.req.valid('param').submission_id, true), 200));
  router.openapi(decideRoute('decline'), async (c) => c.json(await decideContactChange(c.var.engine, scopeOf(c), c.req.valid('param').submission_id, false), 200));
  return router;
}
