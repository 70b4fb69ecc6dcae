import { createRoute, z } from '@hono/zod-openapi';
import { OverrideReason } from './contact';
import type { MiddlewareHandler } from 'hono';
import { today } from '../../clock';
import { DETAIL_LIMITS, documentDetails, documentDetailsWithLogo, LOGO_TYPES, PAPERS, removeLogo, setLogo, updateDocumentDetails } from '../../documents/details';
import { missingCharacterHeaders } from '../../documents/fonts';
import { invoicePdf } from '../../documents/invoice';
import { getStatementRun, MAX_STATEMENT_CUSTOMERS, previewStatements, requestStatements } from '../../documents/send';
import { drawableLogo, LOGO_BOX, MAX_LOGO_INPUT_PIXELS } from '../../documents/logo';
import { MAX_WAITING } from '../../documents/render';
import { MAX_CSV_STATEMENT_LINES, MAX_STATEMENT_LINES, statementCsvFile, statementFile } from '../../documents/statement';
import { DomainError, NotFoundError } from '../../errors';
import { scopeOf } from '../context';
import type { AppEnv } from '../env';
import { ownerOnly } from '../middleware/owner';
import { CompanyParams, createRouter, DateString, idParams, json, jsonBody, problems, ProblemSchema, SECURITY, Text, Timestamp, Uuid, UuidValue } from '../openapi';
import { problem } from '../problem';

const TAGS = ['Extensions'];

const Shade = z
  .object({
    colour: z.string().openapi({ example: '#0b5cad' }),
    adjusted: z.boolean().openapi({ description: 'True when the colour chosen is too light (or dark) for 4.5:1 contrast and a shade of it is used instead' }),
    contrast: z.number().openapi({ description: 'Its lowest contrast ratio against the surfaces and text it meets' }),
  })
  .openapi('BrandShade');

const BrandColour = z
  .object({
    chosen: z.string(),
    light: Shade,
    dark: Shade,
  })
  .nullable()
  .openapi('BrandColour', { description: 'light: the shade drawn on light surfaces (the portal in light mode, the PDFs), with white text on it; dark: on dark surfaces (the portal in dark mode), with near-black text on it' });

const BrandHex = (description: string) => Text(20).nullable().optional().openapi({ description: `${description}: # and six hex digits (#0B5CAD); null or blank clears it`, example: '#0B5CAD' });

const DocumentDetails = z
  .object({
    company_name: z.string().openapi({ description: 'The name printed on documents: legal_name, else the company name' }),
    legal_name: z.string().nullable(),
    address: z.string().nullable().openapi({ description: 'Postal address, one line per line' }),
    tax_id: z.string().nullable(),
    payment_instructions: z.string().nullable().openapi({ description: 'Bank details and how to pay, printed on statements and invoice copies' }),
    portal_link: z.string().nullable(),
    footer: z.string().nullable(),
    brand_primary: z.string().nullable().openapi({ description: "The primary brand colour as chosen ('#rrggbb'): the portal's buttons, the documents' titles" }),
    brand_accent: z.string().nullable().openapi({ description: "The accent colour as chosen ('#rrggbb'): the portal's links, the documents' section rules" }),
    brand_colours: z
      .object({ primary: BrandColour, accent: BrandColour })
      .openapi({ description: 'The shades actually drawn: each colour as chosen when it meets WCAG AA contrast, else a darker (light mode) or lighter (dark mode) shade of it' }),
    locale: z.string().openapi({ description: 'Locale of dates and amounts in documents', example: 'en-GB' }),
    paper: z.enum(PAPERS),
    logo: z.object({ type: z.enum(LOGO_TYPES), bytes: z.number().int() }).nullable(),
    updated_at: Timestamp.nullable().openapi({ description: 'Null until the details are first saved' }),
  })
  .openapi('DocumentDetails');

const optionalText = (max: number) => Text(max).nullable().optional();

const DocumentDetailsPatch = z
  .strictObject({
    legal_name: optionalText(DETAIL_LIMITS.legal_name),
    address: optionalText(DETAIL_LIMITS.address),
    tax_id: optionalText(DETAIL_LIMITS.tax_id),
    payment_instructions: optionalText(DETAIL_LIMITS.payment_instructions),
    portal_link: optionalText(DETAIL_LIMITS.portal_link).openapi({ description: 'An http(s) address' }),
    footer: optionalText(DETAIL_LIMITS.footer),
    brand_primary: BrandHex('The primary brand colour'),
    brand_accent: BrandHex('The accent colour'),
    locale: Text(DETAIL_LIMITS.locale).optional().openapi({ description: 'A locale such as en-US, en-GB, de-DE' }),
    paper: z.enum(PAPERS).optional(),
  })
  .openapi('DocumentDetailsPatch', { description: 'Fields left out keep their value; null or blank text clears a field' });

const LogoForm = z
  .object({
    file: z.instanceof(File).openapi({
      type: 'string',
      format: 'binary',
      description: `A PNG, JPEG or SVG image of at most 1 MB and ${MAX_LOGO_INPUT_PIXELS / 1_000_000} million pixels; kept as a PNG of at most ${LOGO_BOX.width} x ${LOGO_BOX.height}`,
    }),
  })
  .openapi('LogoUpload');

const multipartOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!(c.req.header('content-type') ?? '').toLowerCase().startsWith('multipart/form-data')) {
    return problem(415, 'unsupported_media_type', 'Send the logo as multipart/form-data with the image in the field file');
  }
  await next();
};

const detailsPath = '/api/companies/{company_id}/document-details';

const getDetailsRoute = createRoute({
  method: 'get',
  path: detailsPath,
  tags: TAGS,
  summary: 'What the company prints on invoice copies and statements (extension)',
  security: SECURITY,
  request: { params: CompanyParams },
  responses: { 200: json(DocumentDetails, 'The details'), ...problems(401, 403, 404) },
});

const patchDetailsRoute = createRoute({
  method: 'patch',
  path: detailsPath,
  tags: TAGS,
  summary: 'Change the company details printed on documents (extension)',
  security: SECURITY,
  middleware: [ownerOnly('the details its documents print')] as const,
  request: { params: CompanyParams, body: jsonBody(DocumentDetailsPatch) },
  responses: { 200: json(DocumentDetails, 'The saved details'), ...problems(400, 401, 403, 404) },
});

const getLogoRoute = createRoute({
  method: 'get',
  path: `${detailsPath}/logo`,
  tags: TAGS,
  summary: 'The logo file (extension)',
  security: SECURITY,
  request: { params: CompanyParams },
  responses: {
    200: { description: `The logo as a PNG of at most ${LOGO_BOX.width} x ${LOGO_BOX.height}`, content: { 'image/png': { schema: z.string().openapi({ format: 'binary' }) } } },
    ...problems(401, 403, 404),
  },
});

const putLogoRoute = createRoute({
  method: 'put',
  path: `${detailsPath}/logo`,
  tags: TAGS,
  summary: 'Set the logo: a PNG, JPEG or SVG image of at most 1 MB, checked by its content (extension)',
  description: `The file is measured before it is decoded (an image's declared pixels, an SVG's elements once its <use> references are followed) and refused past the bounds with the reason in words (400 invalid_logo). An SVG within them is rasterised. What is kept, synced and printed is a PNG of at most ${LOGO_BOX.width} x ${LOGO_BOX.height} pixels, so GET .../logo answers image/png. At most a few uploads run at once on a server (429 with Retry-After past that).`,
  security: SECURITY,
  middleware: [ownerOnly('the details its documents print'), multipartOnly] as const,
  request: { params: CompanyParams, body: { required: true, content: { 'multipart/form-data': { schema: LogoForm } } } },
  responses: {
    200: json(DocumentDetails, 'The details with the new logo'),
    ...problems(400, 401, 403, 404, 413, 429),
    415: { description: 'Not a multipart/form-data request', content: { 'application/problem+json': { schema: ProblemSchema } } },
  },
});

const deleteLogoRoute = createRoute({
  method: 'delete',
  path: `${detailsPath}/logo`,
  tags: TAGS,
  summary: 'Remove the logo (extension)',
  security: SECURITY,
  middleware: [ownerOnly('the details its documents print')] as const,
  request: { params: CompanyParams },
  responses: { 200: json(DocumentDetails, 'The details without a logo'), ...problems(401, 403, 404) },
});

const pdfContent = { 'application/pdf': { schema: z.string().openapi({ format: 'binary' }) } };
const problemOf = (description: string) => ({ description, content: { 'application/problem+json': { schema: ProblemSchema } } });
/** What every document route may answer besides its file: the bounds of render.ts. */
const documentBounds = {
  ...problems(429),
  422: problemOf(`document_too_large: the document needed more memory than one document may use. statement_too_long (statements): more than ${MAX_STATEMENT_LINES.toLocaleString('en-US')} lines; the words say what to ask for instead`),
};
const busy = `Documents are made two at a time; at most ${MAX_WAITING} more wait their turn, past that 429 with Retry-After.`;

const invoicePdfRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/invoices/{invoice_id}/document.pdf',
  tags: TAGS,
  summary: 'The invoice as a PDF: a copy made from the stored invoice, with the figures of this moment (extension)',
  description: busy,
  security: SECURITY,
  request: { params: idParams('invoice_id') },
  responses: { 200: { description: 'The PDF', content: pdfContent }, ...problems(401, 403, 404), ...documentBounds },
});

const StatementQuery = z.object({
  as_of: DateString.optional().openapi({ description: 'The statement date: open invoices and days past due at this date (default today)' }),
  from: DateString.optional().openapi({ description: 'With to: also list every invoice and payment dated from..to' }),
  to: DateString.optional(),
});

const statementRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/customers/{customer_id}/statement.pdf',
  tags: TAGS,
  summary: "The customer's statement of account as a PDF (extension)",
  description: `Every invoice open at as_of with days past due, aging subtotals, the total due, payments of the last 90 days and the payment instructions. A customer with nothing open gets a statement that says so. At most ${MAX_STATEMENT_LINES.toLocaleString('en-US')} open invoices and activity lines (about 3,000 pages): past that 422 statement_too_long, pointing to statement.csv or a shorter period. ${busy}`,
  security: SECURITY,
  request: { params: idParams('customer_id'), query: StatementQuery },
  responses: { 200: { description: 'The PDF', content: pdfContent }, ...problems(400, 401, 403, 404), ...documentBounds },
});

const statementCsvRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/customers/{customer_id}/statement.csv',
  tags: TAGS,
  summary: "The customer's statement of account as CSV: the same lines as the PDF, one table, for a statement too long to print (extension)",
  description: `Columns: Line (Open invoice, Invoice issued, Payment received, Recent payment), Date, Reference, Due date, Days past due, Currency, Amount, Paid, Open (major units). Same query as statement.pdf; at most ${MAX_CSV_STATEMENT_LINES.toLocaleString('en-US')} lines (422 statement_too_long past that). ${busy}`,
  security: SECURITY,
  request: { params: idParams('customer_id'), query: StatementQuery },
  responses: {
    200: { description: 'The CSV file', content: { 'text/csv': { schema: z.string() } } },
    ...problems(400, 401, 403, 404, 429),
    422: problemOf('statement_too_long: more lines than a CSV statement may hold; ask for a shorter period'),
  },
});

const StatementRunRequest = z
  .strictObject({
    customer_ids: z.array(UuidValue).min(1).max(MAX_STATEMENT_CUSTOMERS).openapi({ description: `The customers, 1 to ${MAX_STATEMENT_CUSTOMERS}` }),
    as_of: DateString.optional().openapi({ description: 'The statement date (default today)' }),
    override_reason: OverrideReason,
  })
  .openapi('StatementRunRequest');

const StatementRun = z
  .object({
    id: Uuid,
    as_of: DateString,
    job_id: Uuid.nullable(),
    total: z.number().int(),
    done: z.number().int().openapi({ description: 'Customers settled so far (sent or not sent)' }),
    sent: z.number().int(),
    not_sent: z.number().int(),
    finished: z.boolean(),
    items: z.array(
      z.object({
        customer_id: Uuid,
        customer_name: z.string(),
        status: z.enum(['pending', 'sent', 'not_sent']),
        sent_to: z.array(z.string()),
        reason: z.string().nullable().openapi({ description: 'Why it was not sent, in words' }),
        pdf_bytes: z.number().int().nullable(),
      }),
    ),
    created_at: Timestamp,
  })
  .openapi('StatementRun');

const requestRunRoute = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/statement-runs',
  tags: TAGS,
  summary: "Email each customer its statement of account, to its billing contacts, in a background job (extension)",
  security: SECURITY,
  request: { params: CompanyParams, body: jsonBody(StatementRunRequest) },
  responses: { 202: json(StatementRun, 'Queued: read the run for progress and what was sent'), ...problems(400, 401, 403, 404) },
});

const StatementPreview = z
  .object({
    total: z.number().int(),
    will_send: z.number().int().openapi({ description: 'How many statements would go now' }),
    held: z
      .array(z.object({ customer_id: Uuid, customer_name: z.string(), reason: z.string() }))
      .openapi({ description: 'The customers the contact rule holds now (an unanswered reply, a pause by a person, a promise for the whole account, an email already sent today), with why' }),
  })
  .openapi('StatementPreview');

const previewRunRoute = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/statement-runs/preview',
  tags: TAGS,
  summary: 'What a statement run would do now: who is held and why, how many would go; sends nothing (extension)',
  security: SECURITY,
  request: { params: CompanyParams, body: jsonBody(StatementRunRequest) },
  responses: { 200: json(StatementPreview, 'The preview'), ...problems(400, 401, 403, 404) },
});

const getRunRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/statement-runs/{run_id}',
  tags: TAGS,
  summary: 'A statement run: progress, and per customer whether its statement was sent, to whom, or why not (extension)',
  security: SECURITY,
  request: { params: idParams('run_id') },
  responses: { 200: json(StatementRun, 'The run'), ...problems(401, 403, 404) },
});

/** The name (any script) given the RFC 6266 way and as plain ASCII; a PDF inline (a browser opens it), a CSV to save. */
function fileHeaders(fileName: string, type: 'application/pdf' | 'text/csv; charset=utf-8'): Record<string, string> {
  const ascii = fileName.normalize('NFKD').replace(/[^\x20-\x7e]/g, '').replace(/["\\]/g, '') || (type === 'application/pdf' ? 'document.pdf' : 'statement.csv');
  return {
    'content-type': type,
    'content-disposition': `${type === 'application/pdf' ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`,
    'cache-control': 'no-store',
  };
}

export function documentRoutes() {
  return createRouter()
    .openapi(getDetailsRoute, async (c) => c.json(await documentDetails(c.var.engine.db, scopeOf(c).companyId), 200))
    .openapi(patchDetailsRoute, async (c) => c.json(await updateDocumentDetails(c.var.engine, scopeOf(c), c.req.valid('json')), 200))
    .openapi(getLogoRoute, async (c) => {
      const details = await documentDetailsWithLogo(c.var.engine.db, scopeOf(c).companyId);
      if (!details.logoData || !details.logo) throw new NotFoundError('Logo');
      // The bounded PNG, also for a row kept before logos were bounded: no browser is handed an SVG bomb.
      const png = await drawableLogo(details.logoData, details.logo.type);
      if (!png) throw new DomainError(404, 'not_found', 'The stored logo cannot be read within bounds; upload it again');
      return c.body(new Uint8Array(png), 200, { 'content-type': 'image/png', 'content-security-policy': "default-src 'none'; sandbox" });
    })
    .openapi(putLogoRoute, async (c) => {
      const { file } = c.req.valid('form');
      return c.json(await setLogo(c.var.engine, scopeOf(c), new Uint8Array(await file.arrayBuffer())), 200);
    })
    .openapi(deleteLogoRoute, async (c) => c.json(await removeLogo(c.var.engine, scopeOf(c)), 200))
    .openapi(invoicePdfRoute, async (c) => {
      const { pdf, missing, fileName } = await invoicePdf(c.var.engine.db, scopeOf(c).companyId, c.req.valid('param').invoice_id, today(c.var.engine.clock));
      return c.body(new Uint8Array(pdf), 200, { ...fileHeaders(fileName, 'application/pdf'), ...missingCharacterHeaders(missing) });
    })
    .openapi(statementRoute, async (c) => {
      const query = c.req.valid('query');
      const now = today(c.var.engine.clock);
      const { pdf, missing, fileName } = await statementFile(c.var.engine.db, scopeOf(c).companyId, c.req.valid('param').customer_id, { asOf: query.as_of ?? now, from: query.from, to: query.to }, now);
      return c.body(new Uint8Array(pdf), 200, { ...fileHeaders(fileName, 'application/pdf'), ...missingCharacterHeaders(missing) });
    })
    .openapi(statementCsvRoute, async (c) => {
      const query = c.req.valid('query');
      const now = today(c.var.engine.clock);
      const { csv, fileName } = await statementCsvFile(c.var.engine.db, scopeOf(c).companyId, c.req.valid('param').customer_id, { asOf: query.as_of ?? now, from: query.from, to: query.to }, now);
      return c.body(csv, 200, fileHeaders(fileName, 'text/csv; charset=utf-8'));
    })
    .openapi(requestRunRoute, async (c) => {
      const body = c.req.valid('json');
      return c.json(await requestStatements(c.var.engine, scopeOf(c), body.customer_ids, body.as_of ?? today(c.var.engine.clock), body.override_reason), 202);
    })
    .openapi(previewRunRoute, async (c) => c.json(await previewStatements(c.var.engine, scopeOf(c).companyId, c.req.valid('json').customer_ids), 200))
    .openapi(getRunRoute, async (c) => c.json(await getStatementRun(c.var.engine.db, scopeOf(c).companyId, c.req.valid('param').run_id), 200));
}
