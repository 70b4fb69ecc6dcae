import { createRoute, z } from '@hono/zod-openapi';
import { checkConnection } from '../../email/check';
import { emailHealth } from '../../email/health';
import { createConnection, getConnection, listConnections, revokeCertificate, trustCertificate, updateConnection } from '../../email/connections';
import { requestReplyRead } from '../../replies/sync';
import { scopeOf } from '../context';
import { CompanyParams, createRouter, idParams, json, jsonBody, problems, SECURITY, Text, Timestamp, Uuid } from '../openapi';
import { ownerOnly } from '../middleware/owner';

const TAGS = ['Extensions'];

const Certificate = z
  .object({
    sha256: z.string().openapi({ description: 'SHA-256 fingerprint, colon-separated hex', example: 'AB:CD:...' }),
    subject: z.string().openapi({ example: 'CN=mail.example.com' }),
    issuer: z.string(),
    valid_from: Timestamp,
    valid_to: Timestamp,
  })
  .openapi('MailCertificate');

const TrustedCertificate = Certificate.extend({ trusted_at: Timestamp }).openapi('TrustedMailCertificate');

const EmailConnection = z
  .object({
    id: Uuid,
    name: z.string(),
    from_email: z.string(),
    from_name: z.string().nullable(),
    smtp_host: z.string(),
    smtp_port: z.number().int(),
    smtp_secure: z.boolean().openapi({ description: 'Implicit TLS (port 465); otherwise STARTTLS is used when offered' }),
    smtp_username: z.string().nullable(),
    has_password: z.boolean().openapi({ description: 'Whether a password is stored; the password itself is never returned' }),
    is_default: z.boolean().openapi({ description: 'The company default sender; at most one' }),
    is_active: z.boolean(),
    allow_shared_sending: z.boolean().openapi({ description: 'Other team members may send through it' }),
    user_id: Uuid.nullable().openapi({ description: 'The mailbox owner; null for a shared company mailbox' }),
    imap_host: z.string().nullable().openapi({ description: 'The IMAP server replies are read from; null: replies are not read' }),
    imap_port: z.number().int().nullable(),
    imap_secure: z.boolean().openapi({ description: 'Implicit TLS (port 993); otherwise STARTTLS is used when offered' }),
    imap_username: z.string().nullable(),
    has_imap_password: z.boolean().openapi({ description: 'Whether an IMAP password is stored; the password itself is never returned' }),
    imap_mailbox: z.string().openapi({ description: 'The mailbox read for replies', example: 'INBOX' }),
    replies_checked_at: Timestamp.nullable().openapi({ description: 'When replies were last read successfully' }),
    replies_error: z.string().nullable().openapi({ description: 'Why the last reading of replies failed, in words; null after a success' }),
    require_tls: z.boolean().openapi({ description: 'Refuse a server that does not offer TLS; STARTTLS is used whenever offered in any case' }),
    smtp_trusted_certificate: TrustedCertificate.nullable().openapi({ description: "The one certificate an owner trusted for the SMTP server (a self-hosted server's own); null: only a known authority's" }),
    imap_trusted_certificate: TrustedCertificate.nullable().openapi({ description: 'The same for the IMAP server' }),
    tls_review: z.boolean().openapi({ description: 'Made before mail servers’ certificates were checked and not tested since: an owner should test it' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('EmailConnection');

const EmailConnectionList = z.object({ count: z.number().int(), data: z.array(EmailConnection) }).openapi('EmailConnectionList');

const fields = {
  from_name: Text(200).nullable().optional(),
  smtp_secure: z.boolean().optional().openapi({ description: 'Default true on port 465, else false' }),
  smtp_username: Text(255).nullable().optional(),
  smtp_password: Text(1024)
    .nullable()
    .optional()
    .openapi({ description: 'Write-only; stored encrypted. Omit to keep the stored one, null or "" to remove it. Required again when host, port, security or username change.' }),
  is_default: z.boolean().optional().openapi({ description: "Taking it clears the company's other default; the first active connection becomes default" }),
  is_active: z.boolean().optional(),
  allow_shared_sending: z.boolean().optional(),
  user_id: Uuid.nullable().optional().openapi({ description: 'A user of this company, or null for shared; default the creator' }),
  imap_host: Text(253).nullable().optional().openapi({ description: 'Where replies are read from; null or "" stops reading replies (and forgets the IMAP password)' }),
  imap_port: z.number().int().min(1).max(65535).nullable().optional().openapi({ description: 'Default 993 with imap_secure, else 143' }),
  imap_secure: z.boolean().optional().openapi({ description: 'Implicit TLS; default true unless the port is 143' }),
  imap_username: Text(255).nullable().optional().openapi({ description: 'Default the SMTP username, else from_email' }),
  imap_password: Text(1024)
    .nullable()
    .optional()
    .openapi({ description: 'Write-only; stored encrypted. Omit to keep the stored one, null or "" to remove it. Required again when the IMAP host, port, security or username change.' }),
  imap_mailbox: Text(200).optional().openapi({ description: 'Default INBOX' }),
  require_tls: z.boolean().optional().openapi({ description: 'Default true, except for a server on this machine (127.0.0.1, ::1, localhost)' }),
};

const NewConnection = z
  .strictObject({
    name: Text(100),
    from_email: Text(254),
    smtp_host: Text(253),
    smtp_port: z.number().int().min(1).max(65535),
    ...fields,
  })
  .openapi('NewEmailConnection');

const ConnectionPatch = z
  .strictObject({
    name: Text(100).optional(),
    from_email: Text(254).optional(),
    smtp_host: Text(253).optional(),
    smtp_port: z.number().int().min(1).max(65535).optional(),
    ...fields,
  })
  .openapi('EmailConnectionPatch');

const ConnectionParams = idParams('connection_id');

const listRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/email-connections',
  tags: TAGS,
  summary: "The company's email connections, default first",
  security: SECURITY,
  request: { params: CompanyParams },
  responses: { 200: json(EmailConnectionList, 'Email connections'), ...problems(401, 403, 404) },
});

const getRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/email-connections/{connection_id}',
  tags: TAGS,
  summary: 'One email connection',
  security: SECURITY,
  request: { params: ConnectionParams },
  responses: { 200: json(EmailConnection, 'The email connection'), ...problems(401, 403, 404) },
});

const createConnectionRoute = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/email-connections',
  tags: TAGS,
  summary: 'Add an SMTP email connection (company owners only)',
  security: SECURITY,
  middleware: [ownerOnly('its email connections')] as const,
  request: { params: CompanyParams, body: jsonBody(NewConnection) },
  responses: { 201: json(EmailConnection, 'The created connection'), ...problems(400, 401, 403, 404) },
});

const patchRoute = createRoute({
  method: 'patch',
  path: '/api/companies/{company_id}/email-connections/{connection_id}',
  tags: TAGS,
  summary: 'Update an email connection (company owners only)',
  security: SECURITY,
  middleware: [ownerOnly('its email connections')] as const,
  request: { params: ConnectionParams, body: jsonBody(ConnectionPatch) },
  responses: { 200: json(EmailConnection, 'The updated connection'), ...problems(400, 401, 403, 404) },
});

const CheckOutcome = z.object({
  ok: z.boolean(),
  message: z.string().openapi({ description: 'What happened, in words (refused, timeout, username or password refused, certificate, mailbox missing...)' }),
  tls: z.enum(['none', 'verified', 'pinned', 'untrusted']).nullable().openapi({
    description: "none: no TLS offered; verified: a known authority's certificate for this host; pinned: the certificate an owner trusted; untrusted: refused. null: not reached",
  }),
  certificate: Certificate.nullable().openapi({ description: 'The certificate the server presented' }),
  trusted_certificate: Certificate.nullable().openapi({ description: 'The certificate an owner trusted for this server, if any' }),
  can_trust: z.boolean().openapi({ description: 'The certificate was refused only for not being known: an owner may trust it (POST .../trusted-certificates)' }),
});

const ConnectionCheck = z
  .object({
    smtp: CheckOutcome,
    imap: CheckOutcome.nullable().openapi({ description: 'null when the connection has no IMAP server' }),
  })
  .openapi('EmailConnectionCheck');

const testRoute = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/email-connections/{connection_id}/test',
  tags: TAGS,
  summary: 'Test connection: sign in to the SMTP server and, when set, the IMAP server and mailbox (nothing is sent or stored)',
  security: SECURITY,
  request: { params: ConnectionParams },
  responses: { 200: json(ConnectionCheck, 'The outcome of each check; a failure is a 200 with ok false and the reason'), ...problems(401, 403, 404) },
});

const ServerKind = z.enum(['smtp', 'imap']).openapi({ description: 'Which of the connection’s servers' });

const TrustBody = z
  .strictObject({
    server: ServerKind,
    sha256: z.string().max(200).openapi({ description: 'The fingerprint the connection test showed; refused (409 certificate_changed) when the server now presents another' }),
  })
  .openapi('TrustMailCertificate');

const trustRoute = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/email-connections/{connection_id}/trusted-certificates',
  tags: TAGS,
  summary: "Trust exactly this certificate of a self-hosted mail server (company owners only)",
  description: 'The server is read again; its certificate is stored only when its SHA-256 fingerprint is the one given. From then on only that certificate is accepted for that server.',
  security: SECURITY,
  request: { params: idParams('connection_id'), body: jsonBody(TrustBody) },
  responses: { 200: json(EmailConnection, 'The connection with the trusted certificate'), ...problems(400, 401, 403, 404, 409) },
});

const revokeRoute = createRoute({
  method: 'delete',
  path: '/api/companies/{company_id}/email-connections/{connection_id}/trusted-certificates/{server}',
  tags: TAGS,
  summary: "Stop trusting a mail server's own certificate (company owners only)",
  security: SECURITY,
  request: { params: idParams('connection_id').extend({ server: ServerKind }) },
  responses: { 200: json(EmailConnection, 'The connection without it'), ...problems(400, 401, 403, 404) },
});

const QueuedRead = z
  .object({
    job_id: Uuid.openapi({ description: 'Read its progress at GET /api/companies/{company_id}/jobs/{job_id}' }),
    created: z.boolean().openapi({ description: 'false when a reading of this connection was already queued or running (its job is returned)' }),
  })
  .openapi('QueuedReplyRead');

const syncRoute = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/email-connections/{connection_id}/sync-replies',
  tags: TAGS,
  summary: "Read the connection's mailbox for replies now (a background job)",
  description: 'An inactive connection is a 400 connection_inactive; one without an IMAP server a 400 no_imap.',
  security: SECURITY,
  request: { params: ConnectionParams },
  responses: { 202: json(QueuedRead, 'The reading job'), ...problems(400, 401, 403, 404) },
});

const EmailHealth = z
  .object({
    status: z.enum(['ok', 'failing', 'missing']).openapi({ description: 'missing: no default active connection; failing: the last send through it failed and none succeeded since' }),
    connection_id: Uuid.nullable(),
    connection_name: z.string().nullable(),
    message: z.string().nullable().openapi({ description: 'What is wrong, in words; null when ok' }),
    since: Timestamp.nullable(),
  })
  .openapi('EmailHealth');

const healthRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/email-health',
  tags: ['Extensions'],
  summary: 'Whether reminders can go out: the default connection and the outcome of its last send',
  security: SECURITY,
  request: { params: CompanyParams },
  responses: { 200: json(EmailHealth, 'The company’s email health'), ...problems(401, 403, 404) },
});

export function emailConnectionRoutes() {
  const scope = (c: Parameters<typeof scopeOf>[0]) => ({ ...scopeOf(c), role: c.var.membership.role });
  return createRouter()
    .openapi(healthRoute, async (c) => c.json(await emailHealth(c.var.engine.db, scopeOf(c).companyId), 200))
    .openapi(listRoute, async (c) => {
      const data = await listConnections(c.var.engine.db, scopeOf(c).companyId);
      return c.json({ count: data.length, data }, 200);
    })
    .openapi(getRoute, async (c) => c.json(await getConnection(c.var.engine.db, scopeOf(c).companyId, c.req.valid('param').connection_id), 200))
    .openapi(createConnectionRoute, async (c) => c.json(await createConnection(c.var.engine, scope(c), c.req.valid('json'), c.var.mailRule), 201))
    .openapi(patchRoute, async (c) => c.json(await updateConnection(c.var.engine, scope(c), c.req.valid('param').connection_id, c.req.valid('json'), c.var.mailRule), 200))
    .openapi(testRoute, async (c) => c.json(await checkConnection(c.var.engine, scopeOf(c), c.req.valid('param').connection_id, c.var.mailRule), 200))
    .openapi(trustRoute, async (c) => {
      const { server, sha256 } = c.req.valid('json');
      return c.json(await trustCertificate(c.var.engine, scope(c), c.req.valid('param').connection_id, server, sha256, c.var.mailRule), 200);
    })
    .openapi(revokeRoute, async (c) => {
      const { connection_id, server } = c.req.valid('param');
      return c.json(await revokeCertificate(c.var.engine, scope(c), connection_id, server), 200);
    })
    .openapi(syncRoute, async (c) => {
      const job = await requestReplyRead(c.var.engine, scopeOf(c), c.req.valid('param').connection_id);
      return c.json({ job_id: job.id, created: job.created }, 202);
    });
}
