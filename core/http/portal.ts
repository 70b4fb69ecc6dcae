/**
 * The customer's payment portal under /portal/ (issue 39, core/portal): server-rendered pages
 * behind a link's token, no sign-in. Outside the spec API and its token: the portal has its own
 * guards, in this order: the per-address budget, the guesser's budget (unknown links), the link
 * (unknown, expired and revoked links get the same page, 404), the per-link budget; on a form, the
 * browser's word on where it comes from, a bounded body and the form token (an HMAC of the link).
 * Every page carries a strict Content-Security-Policy and loads nothing from outside.
 */
import { randomBytes } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { today } from '../clock';
import { companySyncRole } from '../db/replicas';
import { documentDetails } from '../documents/details';
import { invoicePdf } from '../documents/invoice';
import { statementFile } from '../documents/statement';
import { DomainError, NotFoundError } from '../errors';
import { isUuid } from '../ids';
import { type Fields, invoiceIds, parseContact, parseDispute, parsePaid, parsePromise, type Problems } from '../portal/forms';
import { type Action, ACTIONS, messagePage, notFoundPage, portalForm, portalHome } from '../portal/html';
import type { PortalLimiter } from '../portal/limits';
import { type OpenLink, resolvePortalLink } from '../portal/links';
import { portalPage } from '../portal/page';
import { MAX_UPLOAD_BYTES, safeFileName, sniffUpload, uploadProblem } from '../portal/sniff';
import { brandCss, PORTAL_CSS } from '../portal/style';
import { type PortalFile, recordView, submitContact, submitDispute, submitPaid, submitPromise } from '../portal/submit';
import { formToken, formTokenValid } from '../portal/tokens';
import { clientAddress } from './context';
import type { AppEnv } from './env';

export const PORTAL_CSP = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Largest form with a file (10 MB and the form's fields), and without one. */
const FILE_FORM_BYTES = MAX_UPLOAD_BYTES + 64 * 1024;
const FORM_BYTES = 64 * 1024;

const FILE_FORMS = new Set<Action>(['dispute', 'paid']);

type PortalContext = Context<AppEnv & { Variables: { link: OpenLink } }>;

function page(c: Context, html: string, status: 200 | 400 | 403 | 404 | 413 | 422 | 429 = 200) {
  return c.html(html, status);
}

const notFound = (c: Context) => page(c, notFoundPage(), 404);
const tooMany = (c: Context) => {
  c.header('retry-after', '600');
  return page(c, messagePage('Too many tries', 'Please wait a few minutes and try again.', null), 429);
};

function isAction(value: string | undefined): value is Action {
  return value !== undefined && Object.hasOwn(ACTIONS, value);
}

/** Form fields as strings (files set aside), at most 250 values in all. */
function fieldsOf(body: Record<string, unknown>): Fields {
  const out: Fields = {};
  let count = 0;
  for (const [name, value] of Object.entries(body)) {
    const values = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
    count += values.length;
    if (count > 250) break;
    out[name] = values.length === 1 ? values[0] : values;
  }
  return out;
}

function flatValues(fields: Fields): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).filter(([k]) => k !== 'invoice' && k !== 'form_token').map(([k, v]) => [k, Array.isArray(v) ? (v[0] ?? '') : (v ?? '')]));
}

export interface PortalOptions {
  limiter: PortalLimiter;
  /** The key form tokens are signed with: made per process, so a restart asks the customer to send the form again. */
  formKey?: Buffer;
}

export function portalRoutes(options: PortalOptions): Hono<AppEnv> {
  const key = options.formKey ?? randomBytes(32);
  const limiter = options.limiter;
  const router = new Hono<AppEnv>();

  router.use('/portal/*', async (c, next) => {
    c.header('content-security-policy', PORTAL_CSP);
    c.header('x-frame-options', 'DENY');
    c.header('referrer-policy', 'no-referrer');
    c.header('cross-origin-opener-policy', 'same-origin');
    c.header('cross-origin-resource-policy', 'same-origin');
    c.header('permissions-policy', 'camera=(), microphone=(), geolocation=()');
    c.header('cache-control', 'no-store');
    if (!limiter.take('address', clientAddress(c))) return tooMany(c);
    await next();
  });
  router.get('/portal/portal.css', (c) => c.body(PORTAL_CSS, 200, { 'content-type': 'text/css; charset=utf-8', 'cache-control': 'public, max-age=3600' }));

  router.use('/portal/:token/*', async (c, next) => {
    const address = clientAddress(c);
    if (limiter.spent('misses', address)) return tooMany(c);
    const engine = c.var.engine;
    const link = await resolvePortalLink(engine.db, c.req.param('token'), engine.clock.now().toISOString());
    // A company this desktop replicates is served by its team server: its rows written here would not sync.
    if (!link || (await companySyncRole(engine.db, link.companyId)) === 'replica') {
      limiter.take('misses', address);
      return notFound(c);
    }
    if (!limiter.take('link', link.id)) return tooMany(c);
    (c as unknown as PortalContext).set('link', link);
    await next();
  });
  const linkOf = (c: Context) => (c as unknown as PortalContext).var.link;
  const baseOf = (c: Context) => `/portal/${c.req.param('token')}`;
  const dayOf = (c: Context<AppEnv>) => today(c.var.engine.clock);

  router.get('/portal/:token', async (c) => {
    const link = linkOf(c);
    const engine = c.var.engine;
    await recordView(engine, link, dayOf(c));
    const data = await portalPage(engine.db, link.companyId, link.customerId, dayOf(c));
    const sent = c.req.query('sent');
    return page(c, portalHome(baseOf(c), data, isAction(sent) ? sent : null));
  });
  router.get('/portal/:token/brand.css', async (c) => {
    const details = await documentDetails(c.var.engine.db, linkOf(c).companyId);
    return c.body(brandCss(details.brand_colours), 200, { 'content-type': 'text/css; charset=utf-8' });
  });
  router.get('/portal/:token/answer', async (c) => {
    const link = linkOf(c);
    const action = c.req.query('do');
    if (!isAction(action)) return c.redirect(baseOf(c), 303);
    const data = await portalPage(c.var.engine.db, link.companyId, link.customerId, dayOf(c));
    const picked = invoiceIds({ invoice: c.req.queries('invoice') ?? [] });
    if (picked.some((id) => !data.invoices.some((i) => i.id === id))) return notFound(c);
    return page(c, portalForm(baseOf(c), data, { action, picked, values: {}, problems: {}, formToken: formToken(key, link.id), today: dayOf(c) }));
  });

  router.get('/portal/:token/invoices/:file', async (c) => {
    const link = linkOf(c);
    const id = c.req.param('file').replace(/\.pdf$/, '');
    if (!isUuid(id)) return notFound(c);
    const engine = c.var.engine;
    const invoice = await engine.db.selectFrom('invoices').select('id').where('company_id', '=', link.companyId).where('customer_id', '=', link.customerId).where('id', '=', id.toLowerCase()).executeTakeFirst();
    if (!invoice) return notFound(c);
    return download(c, () => invoicePdf(engine.db, link.companyId, invoice.id, dayOf(c)), 'invoice.pdf');
  });
  router.get('/portal/:token/statement.pdf', async (c) => {
    const link = linkOf(c);
    const now = dayOf(c);
    return download(c, () => statementFile(c.var.engine.db, link.companyId, link.customerId, { asOf: now }, now), 'statement.pdf');
  });

  router.post(
    '/portal/:token/:action',
    async (c, next) => {
      const site = c.req.header('sec-fetch-site')?.toLowerCase();
      const origin = c.req.header('origin');
      const host = c.req.header('host') ?? new URL(c.req.url).host;
      if ((site && site !== 'same-origin' && site !== 'none') || (origin !== undefined && origin !== 'null' && hostOf(origin) !== host)) {
        return page(c, messagePage('This form cannot be sent from here', 'Please open your link again and send the form from its page.', null), 403);
      }
      const action = c.req.param('action');
      if (!isAction(action)) return notFound(c);
      return bodyLimit({
        maxSize: FILE_FORMS.has(action) ? FILE_FORM_BYTES : FORM_BYTES,
        onError: (cx) => page(cx, messagePage('The form is too large', 'Attach a file of up to 10 MB and send the form again.', baseOf(c)), 413),
      })(c, next);
    },
    async (c) => {
      const link = linkOf(c);
      const action = c.req.param('action') as Action;
      const engine = c.var.engine;
      const now = dayOf(c);
      const body = await c.req.parseBody({ all: true });
      const fields = fieldsOf(body);
      if (!formTokenValid(key, link.id, fields.form_token)) {
        return page(c, messagePage('Please send the form again', 'The form was open too long or did not come from your page. Go back, reload it and send it again.', baseOf(c)), 403);
      }
      if (!limiter.take('submissions', link.id)) return tooMany(c);
      const data = await portalPage(engine.db, link.companyId, link.customerId, now);
      const picked = invoiceIds(fields);
      if (picked.some((id) => !data.invoices.some((i) => i.id === id))) return notFound(c);
      const problems: Problems = {};
      const file = FILE_FORMS.has(action) ? await fileOf(body.file, problems) : null;
      const redo = (more: Problems) =>
        page(c, portalForm(baseOf(c), data, { action, picked, values: flatValues(fields), problems: { ...more, ...problems }, formToken: formToken(key, link.id), today: now }), 400);
      try {
        if (action === 'promise') {
          const parsed = parsePromise(fields, now);
          if (!parsed.ok || Object.keys(problems).length) return redo(parsed.ok ? {} : parsed.problems);
          await submitPromise(engine, link, parsed.value);
        } else if (action === 'dispute') {
          const parsed = parseDispute(fields);
          if (!parsed.ok || Object.keys(problems).length) return redo(parsed.ok ? {} : parsed.problems);
          await submitDispute(engine, link, parsed.value, file);
        } else if (action === 'paid') {
          const parsed = parsePaid(fields, now);
          if (!parsed.ok || Object.keys(problems).length) return redo(parsed.ok ? {} : parsed.problems);
          await submitPaid(engine, link, parsed.value, file, now);
        } else {
          const parsed = parseContact(fields);
          if (!parsed.ok) return redo(parsed.problems);
          await submitContact(engine, link, parsed.value);
        }
      } catch (err) {
        if (err instanceof NotFoundError) return notFound(c);
        throw err;
      }
      return c.redirect(`${baseOf(c)}?sent=${action}`, 303);
    },
  );
  router.all('/portal/*', (c) => notFound(c));
  router.all('/portal', (c) => notFound(c));
  return router;
}

/**
 * A PDF drawn on the document threads (core/documents), always a download. When it cannot be made
 * now (the threads busy, a document past its bounds) the customer reads so in words.
 */
async function download(c: Context, make: () => Promise<{ pdf: Buffer; fileName: string }>, fallback: string) {
  try {
    const { pdf, fileName } = await make();
    return c.body(new Uint8Array(pdf), 200, { 'content-type': 'application/pdf', 'content-disposition': attachment(fileName, fallback) });
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    if (err.status === 429) c.header('retry-after', '30');
    return page(c, messagePage('The document could not be made now', 'Please try again in a few minutes. If it still does not come, ask us for a copy by email.', null), err.status === 429 ? 429 : 422);
  }
}

/** A posted file, checked by its first bytes; null when none was chosen. */
async function fileOf(value: unknown, problems: Problems): Promise<PortalFile | null> {
  const file = Array.isArray(value) ? value[0] : value;
  if (!(file instanceof File) || (file.size === 0 && !file.name)) return null;
  if (file.size > MAX_UPLOAD_BYTES) {
    problems.file = 'The file is larger than 10 MB.';
    return null;
  }
  const data = new Uint8Array(await file.arrayBuffer());
  const problem = uploadProblem(data);
  const type = sniffUpload(data);
  if (problem || !type) {
    problems.file = problem ?? 'Attach a PDF, PNG or JPEG file.';
    return null;
  }
  return { name: safeFileName(file.name, type), type, data };
}

function hostOf(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}

/** Always a download, never shown in place (a PDF viewer in the page's origin would be the page's). */
export function attachment(fileName: string, fallback: string): string {
  const ascii = fileName.normalize('NFKD').replace(/[^\x20-\x7e]/g, '').replace(/["\\]/g, '') || fallback;
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
