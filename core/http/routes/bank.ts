import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { applyTransaction, ignoreTransaction, unapplyTransaction } from '../../bank/apply';
import { applicationsCsv, applicationsXlsx } from '../../bank/export';
import { importStatement } from '../../bank/import';
import { getStatement, getTransaction, listStatements, listTransactions, statementApplications, TRANSACTION_SORTS } from '../../bank/queries';
import { BankMappingSchema } from '../../bank/read/table';
import { previewBankTable } from '../../bank/table-file';
import { readUpload } from '../../bank/upload';
import { scopeOf } from '../context';
import type { AppEnv } from '../env';
import { CompanyParams, createRouter, DateString, idParams, json, jsonBody, MoneyValue, problems, ProblemSchema, QueryBool, SECURITY, Text, Timestamp, Uuid, UuidValue } from '../openapi';
import { problem } from '../problem';

const TAGS = ['Extensions'];
const STATES = ['applied', 'suggested', 'unmatched', 'ignored', 'debit'] as const;
const PAGE_DEFAULT = 50;
const PAGE_MAX = 500;

const ImportForm = z
  .object({
    file: z.instanceof(File).openapi({ type: 'string', format: 'binary', description: 'camt.053, camt.054, MT940, OFX, CSV or XLSX (detected from the content), at most 50 MB' }),
    dry_run: QueryBool.optional().openapi({ description: 'true: read and match, writing nothing' }),
    mapping: z
      .string()
      .max(20_000)
      .optional()
      .openapi({
        description:
          'CSV or XLSX only: the column mapping as JSON (BankColumnMapping). Kept for the company: the next file with these columns imports without one. Without it, the mapping kept from an earlier file that fits is used, else the answer is a 400 statement_mapping_required (the preview guesses one).',
      }),
  })
  .openapi('BankStatementImportRequest');

const BankColumnMapping = BankMappingSchema.openapi('BankColumnMapping', { description: 'Which columns of a bank export hold what; one amount column, or credit and debit columns' });

const PreviewForm = z
  .object({ file: z.instanceof(File).openapi({ type: 'string', format: 'binary', description: 'A CSV or XLSX bank export, at most 50 MB' }) })
  .openapi('BankTablePreviewRequest');

const PreviewResult = z
  .object({
    format: z.enum(['csv', 'xlsx']),
    headers: z.array(z.string()),
    rows: z.array(z.array(z.string())).openapi({ description: 'The first five rows, as text' }),
    row_count: z.number().int(),
    saved: BankColumnMapping.nullable().openapi({ description: 'The mapping kept from an earlier file that fits this one: an import without a mapping uses it' }),
    guess: z.object({
      mapping: z.object(BankMappingSchema.shape).partial().openapi({ description: 'What the headers and cells say; the account is never guessed' }),
      missing: z.array(z.enum(['account', 'date', 'amount', 'date_format'])),
    }),
  })
  .openapi('BankTablePreview');

const ImportQuery = z.object({ dry_run: QueryBool.optional().openapi({ description: 'true: read and match, writing nothing (same as the form field)' }) });

const ImportResult = z
  .object({
    id: Uuid.nullable().openapi({ description: 'The statement; null on a dry run' }),
    dry_run: z.boolean(),
    format: z.string().openapi({ example: 'camt.053' }),
    account: z.string(),
    currency: z.string(),
    period_start: DateString.nullable(),
    period_end: DateString.nullable(),
    entries: z.number().int(),
    credits: z.number().int(),
    debits: z.number().int(),
    applied: z.number().int().openapi({ description: 'New credits applied automatically (unambiguous only)' }),
    suggested: z.number().int().openapi({ description: 'New credits with ranked candidates to review' }),
    unmatched: z.number().int(),
    duplicates: z.number().int().openapi({ description: 'Entries already imported (from this or an overlapping statement): not added again' }),
    warnings: z.array(z.string()),
  })
  .openapi('BankStatementImport');

const Statement = z
  .object({
    id: Uuid,
    format: z.string(),
    bank_statement_id: z.string().nullable(),
    account: z.string(),
    currency: z.string(),
    period_start: DateString.nullable(),
    period_end: DateString.nullable(),
    opening_balance: z.number().nullable(),
    closing_balance: z.number().nullable(),
    file_name: z.string().nullable(),
    entries: z.number().int(),
    credits: z.number().int(),
    debits: z.number().int(),
    applied: z.number().int(),
    suggested: z.number().int(),
    unmatched: z.number().int(),
    ignored: z.number().int(),
    duplicates: z.number().int(),
    warnings: z.array(z.string()),
    imported_by: z.string().nullable(),
    created_at: Timestamp,
  })
  .openapi('BankStatement');

const Candidate = z
  .object({
    invoice_id: Uuid,
    invoice_number: z.string(),
    customer_id: Uuid,
    customer_name: z.string(),
    amount: z.number().openapi({ description: 'What this candidate would apply to the invoice' }),
    open_balance: z.number(),
    confidence: z.number().openapi({ description: '0 to 1' }),
    reasons: z.array(z.string()).openapi({ example: ['reference INV-10231 in the remittance text', 'amount equals the open balance'] }),
  })
  .openapi('BankCandidate');

const Transaction = z
  .object({
    id: Uuid,
    statement_id: Uuid,
    booked_on: DateString,
    value_on: DateString.nullable(),
    amount: z.number(),
    direction: z.enum(['credit', 'debit']),
    currency: z.string(),
    state: z.enum(STATES),
    flag: z.enum(['foreign_currency']).nullable().openapi({ description: 'foreign_currency: not in the company currency, never applied automatically' }),
    bank_reference: z.string().nullable(),
    end_to_end_id: z.string().nullable(),
    structured_reference: z.string().nullable(),
    remittance_text: z.string(),
    counterparty_name: z.string().nullable(),
    counterparty_account: z.string().nullable(),
    bank_code: z.string().nullable(),
    customer_id: Uuid.nullable(),
    customer_name: z.string().nullable(),
    confidence: z.number().nullable(),
    top_candidate: Candidate.nullable(),
    note: z.string().nullable(),
  })
  .openapi('BankTransaction');

const Application = z
  .object({
    id: Uuid,
    kind: z.enum(['invoice', 'unapplied']),
    invoice_id: Uuid.nullable(),
    invoice_number: z.string().nullable(),
    customer_id: Uuid.nullable(),
    payment_id: Uuid.nullable(),
    amount: z.number(),
    automatic: z.boolean(),
    short_action: z.enum(['dispute', 'write_off']).nullable(),
    note: z.string().nullable(),
    applied_by: z.string().nullable(),
    created_at: Timestamp,
    reversed_at: Timestamp.nullable(),
  })
  .openapi('BankApplication');

const TransactionDetail = Transaction.extend({
  candidates: z.array(Candidate).openapi({ description: 'Ranked, best first; weighed again against the ledger as it is now while the credit is to review' }),
  proposal: z
    .object({ customer_id: Uuid, allocations: z.array(z.object({ invoice_id: Uuid, amount: z.number() })), unapplied_amount: z.number() })
    .nullable()
    .openapi({ description: 'What applying the top candidate applies (one or several invoices, any rest as unapplied cash)' }),
  applications: z.array(Application),
}).openapi('BankTransactionDetail');

const TransactionList = z
  .object({
    count: z.number().int().nullable().openapi({ description: 'Entries matching the filters; first page only (null on later pages)' }),
    limit: z.number().int(),
    has_more: z.boolean(),
    next_cursor: z.string().nullable(),
    data: z.array(Transaction),
  })
  .openapi('BankTransactionList');

const ListQuery = z.object({
  state: z.enum(STATES).optional(),
  statement_id: UuidValue.optional(),
  sort: z.enum(TRANSACTION_SORTS).optional().openapi({ description: 'date, amount or confidence; a leading - for descending. Default: newest import first, in booking order' }),
  limit: z
    .string()
    .regex(/^\d{1,9}$/, 'Must be a whole number')
    .transform(Number)
    .refine((n) => n >= 1, 'Must be at least 1')
    .transform((n) => Math.min(n, PAGE_MAX))
    .optional()
    .openapi({ type: 'integer', description: `Page size, default ${PAGE_DEFAULT}; at most ${PAGE_MAX}` }),
  cursor: Text(500).optional().openapi({ description: 'next_cursor of the previous page' }),
});

const ApplyBody = z
  .strictObject({
    allocations: z.array(z.strictObject({ invoice_id: UuidValue, amount: MoneyValue })).max(200),
    unapplied_amount: z.number().min(0).max(1_000_000_000_000).optional().openapi({ description: 'Kept as unapplied cash on the customer; default what the allocations leave of the credit' }),
    customer_id: UuidValue.optional().openapi({ description: 'Whose unapplied cash it is when no invoice is named' }),
    note: Text(2000).nullable().optional(),
    short_payment: z
      .strictObject({ action: z.enum(['dispute', 'write_off']), reason: Text(2000) })
      .optional()
      .openapi({ description: 'For invoices left partly open: open a dispute on them, or write the rest off, with the reason' }),
  })
  .openapi('BankApplyRequest');

const IgnoreBody = z.strictObject({ note: Text(2000).nullable().optional() }).openapi('BankIgnoreRequest');

const StatementParams = idParams('statement_id');
const TransactionParams = idParams('transaction_id');

const multipartOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!(c.req.header('content-type') ?? '').toLowerCase().startsWith('multipart/form-data')) {
    return problem(415, 'unsupported_media_type', 'Send the statement as multipart/form-data with the file in the field "file"');
  }
  await next();
};

const importRoute = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/bank-statements',
  tags: TAGS,
  summary: 'Import a bank statement; its credits are matched to open invoices and applied when unambiguous',
  description:
    'Entries already imported (the same or an overlapping statement) are counted as duplicates and not added. A credit is applied automatically only when an invoice reference and the amount agree, or a learned payer account and an amount equal to exactly one open invoice of that customer; the rest are suggested with ranked candidates, or unmatched. Debits are listed, never applied; a credit in another currency is flagged and never applied automatically.',
  security: SECURITY,
  middleware: [multipartOnly] as const,
  request: { params: CompanyParams, query: ImportQuery, body: { required: true, content: { 'multipart/form-data': { schema: ImportForm } } } },
  responses: {
    201: json(ImportResult, 'The statement imported, and what became of its entries'),
    200: json(ImportResult, 'A dry run: what the import would do'),
    ...problems(400, 401, 403, 404, 413, 429),
    415: { description: 'Not a multipart/form-data request', content: { 'application/problem+json': { schema: ProblemSchema } } },
  },
});

const previewRoute = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/bank-statements/preview',
  tags: TAGS,
  summary: "A CSV or XLSX bank export's columns and first rows, the mapping kept for it and a guessed one",
  description: 'Writes nothing. What the mapping dialog starts from: the guess reads the headers (Date, Buchungstag, Paid in, IBAN, Verwendungszweck...) and checks the cells agree.',
  security: SECURITY,
  middleware: [multipartOnly] as const,
  request: { params: CompanyParams, body: { required: true, content: { 'multipart/form-data': { schema: PreviewForm } } } },
  responses: {
    200: json(PreviewResult, 'The preview'),
    ...problems(400, 401, 403, 404, 413, 429),
    415: { description: 'Not a multipart/form-data request', content: { 'application/problem+json': { schema: ProblemSchema } } },
  },
});

const listStatementsRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/bank-statements',
  tags: TAGS,
  summary: 'Bank statements imported, newest first',
  security: SECURITY,
  request: { params: CompanyParams },
  responses: { 200: json(z.object({ count: z.number().int(), data: z.array(Statement) }).openapi('BankStatementList'), 'Statements'), ...problems(401, 403, 404) },
});

const getStatementRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/bank-statements/{statement_id}',
  tags: TAGS,
  summary: 'One bank statement with its entries counted by state',
  security: SECURITY,
  request: { params: StatementParams },
  responses: { 200: json(Statement, 'The statement'), ...problems(401, 403, 404) },
});

function exportRoute(format: 'csv' | 'xlsx') {
  return createRoute({
    method: 'get',
    path: `/api/companies/{company_id}/bank-statements/{statement_id}/applications.${format}`,
    tags: TAGS,
    summary: `What the statement's credits were applied to, as ${format.toUpperCase()} for the accounting system`,
    security: SECURITY,
    request: { params: StatementParams },
    responses: {
      200: {
        description: 'The file, as an attachment',
        content:
          format === 'csv'
            ? { 'text/csv': { schema: z.string() } }
            : { 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': { schema: z.string().openapi({ format: 'binary' }) } },
      },
      ...problems(401, 403, 404),
    },
  });
}

const listTransactionsRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/bank-transactions',
  tags: TAGS,
  summary: 'Bank entries to review (or applied, ignored, debits), cursor-paged',
  security: SECURITY,
  request: { params: CompanyParams, query: ListQuery },
  responses: { 200: json(TransactionList, 'One page of entries'), ...problems(400, 401, 403, 404) },
});

const getTransactionRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/bank-transactions/{transaction_id}',
  tags: TAGS,
  summary: 'One bank entry with its ranked candidates and what it was applied to',
  security: SECURITY,
  request: { params: TransactionParams },
  responses: { 200: json(TransactionDetail, 'The entry'), ...problems(401, 403, 404) },
});

const applyRoute = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/bank-transactions/{transaction_id}/apply',
  tags: TAGS,
  summary: 'Apply a credit to one or several invoices (payments dated the booking day), any rest as unapplied cash',
  description:
    'The allocations and unapplied_amount must add up to the credit. An allocation may not exceed the invoice\'s open balance; an invoice left partly open can have a dispute opened or the rest written off (short_payment). One transaction: nothing is written if any part is refused.',
  security: SECURITY,
  request: { params: TransactionParams, body: jsonBody(ApplyBody) },
  responses: { 200: json(TransactionDetail, 'The entry, applied'), ...problems(400, 401, 403, 404, 409) },
});

const unapplyRoute = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/bank-transactions/{transaction_id}/unapply',
  tags: TAGS,
  summary: "Undo a credit's application: its payments are voided and the invoices reopen",
  security: SECURITY,
  request: { params: TransactionParams },
  responses: { 200: json(TransactionDetail, 'The entry, to review again'), ...problems(401, 403, 404, 409) },
});

const ignoreRoute = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/bank-transactions/{transaction_id}/ignore',
  tags: TAGS,
  summary: "Set a credit aside (interest, a refund): it is not a customer's payment",
  security: SECURITY,
  request: { params: TransactionParams, body: jsonBody(IgnoreBody, false) },
  responses: { 200: json(TransactionDetail, 'The entry, ignored'), ...problems(400, 401, 403, 404, 409) },
});

export function bankRoutes() {
  const router = createRouter();
  router.openapi(importRoute, async (c) => {
    const form = c.req.valid('form');
    const dryRun = form.dry_run ?? c.req.valid('query').dry_run ?? false;
    const bytes = Buffer.from(await form.file.arrayBuffer());
    const { statement, keep } = await readUpload(c.var.engine.db, scopeOf(c).companyId, bytes, form.file.name, form.mapping);
    const summary = await importStatement(c.var.engine, { ...scopeOf(c), statement, fileName: form.file.name || null, dryRun });
    if (!dryRun) await keep(c.var.engine, scopeOf(c));
    return c.json(summary, dryRun ? 200 : 201);
  });
  router.openapi(previewRoute, async (c) => {
    const file = c.req.valid('form').file;
    return c.json(await previewBankTable(c.var.engine.db, scopeOf(c).companyId, Buffer.from(await file.arrayBuffer()), file.name), 200);
  });
  router.openapi(listStatementsRoute, async (c) => c.json(await listStatements(c.var.engine.db, scopeOf(c).companyId), 200));
  router.openapi(getStatementRoute, async (c) => c.json(await getStatement(c.var.engine.db, scopeOf(c).companyId, c.req.valid('param').statement_id), 200));
  router.openapi(exportRoute('csv'), async (c) => {
    const id = c.req.valid('param').statement_id;
    const rows = await statementApplications(c.var.engine.db, scopeOf(c).companyId, id);
    return c.body(applicationsCsv(rows), 200, { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="bank-applications-${id}.csv"` });
  });
  router.openapi(exportRoute('xlsx'), async (c) => {
    const id = c.req.valid('param').statement_id;
    const rows = await statementApplications(c.var.engine.db, scopeOf(c).companyId, id);
    return c.body(new Uint8Array(await applicationsXlsx(rows)), 200, {
      'content-type': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'content-disposition': `attachment; filename="bank-applications-${id}.xlsx"`,
    });
  });
  router.openapi(listTransactionsRoute, async (c) => {
    const q = c.req.valid('query');
    return c.json(await listTransactions(c.var.engine.db, scopeOf(c).companyId, { state: q.state, statementId: q.statement_id, sort: q.sort, limit: q.limit ?? PAGE_DEFAULT, cursor: q.cursor }), 200);
  });
  const detail = (c: { var: AppEnv['Variables'] }, id: string) => getTransaction(c.var.engine.db, c.var.engine.database.sqlite, c.var.membership.company_id, id);
  router.openapi(getTransactionRoute, async (c) => c.json(await detail(c, c.req.valid('param').transaction_id), 200));
  router.openapi(applyRoute, async (c) => {
    const id = c.req.valid('param').transaction_id;
    await applyTransaction(c.var.engine, scopeOf(c), id, c.req.valid('json'));
    return c.json(await detail(c, id), 200);
  });
  router.openapi(unapplyRoute, async (c) => {
    const id = c.req.valid('param').transaction_id;
    await unapplyTransaction(c.var.engine, scopeOf(c), id);
    return c.json(await detail(c, id), 200);
  });
  router.openapi(ignoreRoute, async (c) => {
    const id = c.req.valid('param').transaction_id;
    const body = (c.req.valid('json') as { note?: string | null } | undefined) ?? {};
    await ignoreTransaction(c.var.engine, scopeOf(c), id, body.note ?? null);
    return c.json(await detail(c, id), 200);
  });
  return router;
}
