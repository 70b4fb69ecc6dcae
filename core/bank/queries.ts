/**
 * Reading bank statements and their entries: lists (keyset-paged, so the review's first page is
 * one index walk whatever the size of the statement), one entry with its candidates weighed
 * again against the ledger as it is now, and what was applied, for the accounting system.
 */
import { sql } from 'kysely';
import type { Db } from '../db/connection';
import type BetterSqlite3 from 'better-sqlite3';
import { NotFoundError, ValidationError } from '../errors';
import { fromMinor } from '../money';
import type { BankTransactionState } from '../db/schema';
import { customerIndex, gatherFacts } from './facts';
import { type Candidate, decide } from './match';

export interface StatementView {
  id: string;
  format: string;
  bank_statement_id: string | null;
  account: string;
  currency: string;
  period_start: string | null;
  period_end: string | null;
  opening_balance: number | null;
  closing_balance: number | null;
  file_name: string | null;
  entries: number;
  credits: number;
  debits: number;
  applied: number;
  suggested: number;
  unmatched: number;
  ignored: number;
  duplicates: number;
  warnings: string[];
  imported_by: string | null;
  created_at: string;
}

const STATEMENT_COLUMNS = [
  'id',
  'format',
  'bank_statement_id',
  'account',
  'currency',
  'period_start',
  'period_end',
  'opening_balance',
  'closing_balance',
  'file_name',
  'entries',
  'credits',
  'debits',
  'duplicates',
  'warnings',
  'imported_by',
  'created_at',
] as const;

async function stateCounts(db: Db, statementIds: string[]): Promise<Map<string, Record<string, number>>> {
  const counts = new Map<string, Record<string, number>>();
  if (!statementIds.length) return counts;
  const rows = await db
    .selectFrom('bank_transactions')
    .select(['statement_id', 'state', (eb) => eb.fn.countAll<number>().as('n')])
    .where('statement_id', 'in', statementIds)
    .groupBy(['statement_id', 'state'])
    .execute();
  for (const r of rows) counts.set(r.statement_id, { ...counts.get(r.statement_id), [r.state]: Number(r.n) });
  return counts;
}

function statementView(row: Record<(typeof STATEMENT_COLUMNS)[number], unknown>, counts: Record<string, number> = {}): StatementView {
  const r = row as { [K in keyof StatementView]: StatementView[K] } & { warnings: string; opening_balance: number | null; closing_balance: number | null };
  return {
    ...r,
    opening_balance: r.opening_balance === null ? null : fromMinor(r.opening_balance),
    closing_balance: r.closing_balance === null ? null : fromMinor(r.closing_balance),
    warnings: JSON.parse(r.warnings) as string[],
    applied: counts.applied ?? 0,
    suggested: (counts.suggested ?? 0) + (counts.pending ?? 0),
    unmatched: counts.unmatched ?? 0,
    ignored: counts.ignored ?? 0,
  };
}

export async function listStatements(db: Db, companyId: string): Promise<{ count: number; data: StatementView[] }> {
  const rows = await db.selectFrom('bank_statements').select(STATEMENT_COLUMNS).where('company_id', '=', companyId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
  const counts = await stateCounts(db, rows.map((r) => r.id));
  return { count: rows.length, data: rows.map((r) => statementView(r, counts.get(r.id))) };
}

export async function getStatement(db: Db, companyId: string, id: string): Promise<StatementView> {
  const row = await db.selectFrom('bank_statements').select(STATEMENT_COLUMNS).where('company_id', '=', companyId).where('id', '=', id).executeTakeFirst();
  if (!row) throw new NotFoundError('Bank statement', id);
  const counts = await stateCounts(db, [id]);
  return statementView(row, counts.get(id));
}

export interface TransactionView {
  id: string;
  statement_id: string;
  booked_on: string;
  value_on: string | null;
  amount: number;
  direction: 'credit' | 'debit';
  currency: string;
  /** A credit still waiting to be matched (an import under way) shows as suggested. */
  state: Exclude<BankTransactionState, 'pending'>;
  flag: 'foreign_currency' | null;
  bank_reference: string | null;
  end_to_end_id: string | null;
  structured_reference: string | null;
  remittance_text: string;
  counterparty_name: string | null;
  counterparty_account: string | null;
  bank_code: string | null;
  customer_id: string | null;
  customer_name: string | null;
  confidence: number | null;
  top_candidate: Candidate | null;
  note: string | null;
}

const TRANSACTION_COLUMNS = [
  't.id',
  't.statement_id',
  't.booked_on',
  't.value_on',
  't.amount',
  't.direction',
  't.currency',
  't.state',
  't.flag',
  't.bank_reference',
  't.end_to_end_id',
  't.structured_reference',
  't.remittance_text',
  't.counterparty_name',
  't.counterparty_account',
  't.bank_code',
  't.customer_id',
  'c.name as customer_name',
  't.confidence',
  't.candidates',
  't.note',
] as const;

type TransactionRow = Omit<TransactionView, 'amount' | 'top_candidate' | 'state'> & { amount: number; candidates: string; state: BankTransactionState };

function transactionView(r: TransactionRow): TransactionView & { candidates: Candidate[] } {
  const candidates = JSON.parse(r.candidates) as Candidate[];
  return { ...r, state: r.state === 'pending' ? 'suggested' : r.state, amount: fromMinor(r.amount), top_candidate: candidates[0] ?? null, candidates };
}

export const TRANSACTION_SORTS = ['date', '-date', 'amount', '-amount', 'confidence', '-confidence'] as const;
export type TransactionSort = (typeof TRANSACTION_SORTS)[number];
const SORT_COLUMN = { date: 't.booked_on', amount: 't.amount', confidence: 't.confidence' } as const;

export interface TransactionFilter {
  state?: 'applied' | 'suggested' | 'unmatched' | 'ignored' | 'debit';
  statementId?: string;
  sort?: TransactionSort;
  limit: number;
  cursor?: string;
}

interface Cursor {
  v: string | number | null;
  id: string;
  s: string;
}

function readCursor(text: string, sort: string): Cursor {
  try {
    const c = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Cursor;
    if (typeof c.id === 'string' && c.s === sort && (c.v === null || typeof c.v === 'string' || typeof c.v === 'number')) return c;
  } catch {
    // Falls through to the problem below.
  }
  throw new ValidationError('The cursor is invalid: pass next_cursor from the previous page of the same query', { cursor: ['invalid cursor'] }, 'invalid_cursor');
}

/**
 * The entries in review order (default: booking order within each import, newest import first),
 * one page after the cursor. Nulls (no confidence) sort last either way.
 */
export async function listTransactions(db: Db, companyId: string, f: TransactionFilter): Promise<{ count: number | null; limit: number; has_more: boolean; next_cursor: string | null; data: TransactionView[] }> {
  const sort = f.sort ?? null;
  let q = db.selectFrom('bank_transactions as t').leftJoin('customers as c', 'c.id', 't.customer_id').where('t.company_id', '=', companyId);
  if (f.state === 'suggested') q = q.where('t.state', 'in', ['suggested', 'pending']);
  else if (f.state) q = q.where('t.state', '=', f.state);
  if (f.statementId) q = q.where('t.statement_id', '=', f.statementId);
  const count = f.cursor ? null : Number((await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  let ordered = q.select(TRANSACTION_COLUMNS);
  const sortName = sort ?? 'id';
  const cursor = f.cursor ? readCursor(f.cursor, sortName) : null;
  if (!sort) {
    if (cursor) ordered = ordered.where('t.id', '<', cursor.id);
    ordered = ordered.orderBy('t.id', 'desc');
  } else {
    const desc = sort.startsWith('-');
    const column = SORT_COLUMN[sort.replace('-', '') as keyof typeof SORT_COLUMN];
    const key = sql<string | number | null>`coalesce(${sql.ref(column)}, ${desc ? -1 : 1e18})`;
    if (cursor) {
      const op = desc ? sql`<` : sql`>`;
      ordered = ordered.where(sql<boolean>`(${key}, t.id) ${op} (${cursor.v}, ${cursor.id})`);
    }
    ordered = ordered.orderBy(key, desc ? 'desc' : 'asc').orderBy('t.id', desc ? 'desc' : 'asc');
  }
  const rows = (await ordered.limit(f.limit + 1).execute()) as unknown as TransactionRow[];
  const hasMore = rows.length > f.limit;
  const page = rows.slice(0, f.limit);
  const last = page[page.length - 1];
  let next: string | null = null;
  if (hasMore && last) {
    const v = !sort ? null : sort.includes('date') ? last.booked_on : sort.includes('amount') ? last.amount : (last.confidence ?? (sort.startsWith('-') ? -1 : 1e18));
    next = Buffer.from(JSON.stringify({ v, id: last.id, s: sortName } satisfies Cursor)).toString('base64url');
  }
  return { count, limit: f.limit, has_more: hasMore, next_cursor: next, data: page.map((r) => withoutCandidates(transactionView(r))) };
}

function withoutCandidates(v: TransactionView & { candidates: Candidate[] }): TransactionView {
  const { candidates: _candidates, ...rest } = v;
  return rest;
}

export interface ApplicationView {
  id: string;
  kind: 'invoice' | 'unapplied';
  invoice_id: string | null;
  invoice_number: string | null;
  customer_id: string | null;
  payment_id: string | null;
  amount: number;
  automatic: boolean;
  short_action: 'dispute' | 'write_off' | null;
  note: string | null;
  applied_by: string | null;
  created_at: string;
  reversed_at: string | null;
}

export interface TransactionDetail extends TransactionView {
  candidates: Candidate[];
  /** What applying the top candidate applies: one or several invoices, and any unapplied rest. */
  proposal: { customer_id: string; allocations: Array<{ invoice_id: string; amount: number }>; unapplied_amount: number } | null;
  applications: ApplicationView[];
}

async function applications(db: Db, transactionId: string): Promise<ApplicationView[]> {
  const rows = await db
    .selectFrom('bank_applications as a')
    .leftJoin('invoices as i', 'i.id', 'a.invoice_id')
    .select(['a.id', 'a.kind', 'a.invoice_id', 'i.invoice_number', 'a.customer_id', 'a.payment_id', 'a.amount', 'a.automatic', 'a.short_action', 'a.note', 'a.applied_by', 'a.created_at', 'a.reversed_at'])
    .where('a.transaction_id', '=', transactionId)
    .orderBy('a.created_at')
    .orderBy('a.id')
    .execute();
  return rows.map((r) => ({ ...r, amount: fromMinor(r.amount), automatic: r.automatic === 1 }));
}

/**
 * One entry. A credit still to review has its candidates weighed again now (what was applied since
 * the import changes them); an applied one shows what it was applied to.
 */
export async function getTransaction(db: Db, sqlite: BetterSqlite3.Database, companyId: string, id: string): Promise<TransactionDetail> {
  const row = (await db
    .selectFrom('bank_transactions as t')
    .leftJoin('customers as c', 'c.id', 't.customer_id')
    .select([...TRANSACTION_COLUMNS, 't.amount as amount_minor'])
    .where('t.company_id', '=', companyId)
    .where('t.id', '=', id)
    .executeTakeFirst()) as (TransactionRow & { amount_minor: number }) | undefined;
  if (!row) throw new NotFoundError('Bank transaction', id);
  const view = transactionView(row);
  let proposal: TransactionDetail['proposal'] = null;
  if (row.direction === 'credit' && row.state !== 'applied') {
    const full = await db.selectFrom('bank_transactions').select(['booked_on', 'remittance_text', 'structured_reference', 'end_to_end_id', 'counterparty_name', 'counterparty_account']).where('id', '=', id).executeTakeFirstOrThrow();
    const company = await db.selectFrom('companies').select('currency').where('id', '=', companyId).executeTakeFirstOrThrow();
    const credit = { ...full, amount: row.amount_minor, currency: row.currency };
    const { facts, invoiceOf } = gatherFacts(sqlite, companyId, [credit], await customerIndex(sqlite, companyId), new Map());
    const decision = decide({ amount: credit.amount, currency: credit.currency, direction: 'credit', companyCurrency: company.currency }, facts[0], invoiceOf);
    view.candidates = decision.candidates;
    view.top_candidate = decision.candidates[0] ?? null;
    if (decision.proposal) {
      proposal = {
        customer_id: decision.proposal.customer_id,
        allocations: decision.proposal.allocations.map((a) => ({ invoice_id: a.invoice_id, amount: fromMinor(a.amount) })),
        unapplied_amount: fromMinor(decision.proposal.unapplied),
      };
    }
  }
  const { amount_minor: _minor, ...rest } = view as typeof view & { amount_minor?: number };
  return { ...rest, proposal, applications: await applications(db, id) };
}

export interface ApplicationExportRow {
  booked_on: string;
  bank_reference: string | null;
  payer: string | null;
  customer: string | null;
  invoice_number: string | null;
  kind: 'invoice' | 'unapplied';
  amount: number;
  currency: string;
  payment_id: string | null;
  automatic: boolean;
  applied_by: string | null;
  applied_at: string;
  reversed_at: string | null;
}

/** Every application of a statement's credits, undone ones included (marked), in booking order. */
export async function statementApplications(db: Db, companyId: string, statementId: string): Promise<ApplicationExportRow[]> {
  await getStatement(db, companyId, statementId);
  const rows = await db
    .selectFrom('bank_applications as a')
    .innerJoin('bank_transactions as t', 't.id', 'a.transaction_id')
    .leftJoin('invoices as i', 'i.id', 'a.invoice_id')
    .leftJoin('customers as c', 'c.id', 'a.customer_id')
    .select([
      't.booked_on',
      't.bank_reference',
      't.end_to_end_id',
      't.counterparty_name as payer',
      'c.name as customer',
      'i.invoice_number',
      'a.kind',
      'a.amount',
      't.currency',
      'a.payment_id',
      'a.automatic',
      'a.applied_by',
      'a.created_at as applied_at',
      'a.reversed_at',
    ])
    .where('t.company_id', '=', companyId)
    .where('t.statement_id', '=', statementId)
    .orderBy('t.position')
    .orderBy('a.created_at')
    .orderBy('a.id')
    .execute();
  return rows.map(({ end_to_end_id, ...r }) => ({ ...r, bank_reference: r.bank_reference ?? end_to_end_id, amount: fromMinor(r.amount), automatic: r.automatic === 1 }));
}
