/**
 * Importing a bank statement: its new entries stored (entries already known are counted as
 * duplicates), then every credit matched and, when unambiguous, applied. It runs on a database
 * connection of its own and hands the event loop back between batches, so a 10,000-entry file
 * never holds other requests up. The entries are stored in one transaction; each batch of
 * matches (the payments of its automatic applications with them) in one more. A process killed
 * in between leaves entries waiting ('pending'), matched by the next import of any statement.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { chunks } from '../chunks';
import { timestamp } from '../clock';
import { type Db, openDatabase } from '../db/connection';
import type { BankTransactionState } from '../db/schema';
import { type Actor, type Engine, runCommand } from '../engine';
import { NotFoundError } from '../errors';
import { newId } from '../ids';
import { yieldToEventLoop } from '../yielding';
import { applyAutomatic } from './apply-many';
import { importOffThread } from './import-off-thread';
import { type Consumed, type CreditToMatch, customerIndex, gatherFacts } from './facts';
import { entryIdentities } from './identity';
import { type Decision, decide } from './match';
import type { ImportStatementOptions, ImportSummary } from './import-shapes';

export type { ImportStatementOptions, ImportSummary } from './import-shapes';

/**
 * Credits written per transaction: each commit waits for the disk (FULL sync), so fewer and larger
 * transactions, the import handing the event loop back inside them (its own connection: nothing
 * else runs in its transaction).
 */
export const WRITE_BATCH = 150;
/**
 * Credits read and decided, or written, between two turns of the event loop: well under 100 ms
 * (the server imports in its own thread only statements of up to IN_PROCESS_ENTRIES). Each step's
 * facts are a few reads for all its credits, so larger steps read the ledger fewer times.
 */
const STEP = 50;
/** Entries stored per insert before the event loop gets a turn. */
const STORE_BATCH = 200;
/** As core/db/checkpointer.ts leaves the server's connection: about 80 MB of log. */
const CHECKPOINT_BACKSTOP_PAGES = 20_000;

type Engineish = Pick<Engine, 'clock'> & Partial<Pick<Engine, 'writeWait'>>;

interface PendingRow extends CreditToMatch {
  id: string;
  state: BankTransactionState;
  direction: 'credit' | 'debit';
  bank_reference: string | null;
  bank_code: string | null;
}

async function existingIdentities(db: Db, companyId: string, identities: string[]): Promise<Set<string>> {
  const known = new Set<string>();
  for (const part of chunks(identities, 500)) {
    const rows = await db.selectFrom('bank_transactions').select('identity').where('company_id', '=', companyId).where('identity', 'in', part).execute();
    for (const r of rows) known.add(r.identity);
  }
  return known;
}

async function stillPending(db: Db, ids: string[]): Promise<Set<string>> {
  const rows = await db.selectFrom('bank_transactions').select('id').where('id', 'in', ids).where('state', '=', 'pending').execute();
  return new Set(rows.map((r) => r.id));
}

/**
 * Matches credits in batches against the ledger as it is, each credit seeing what the earlier ones
 * applied; `onBatch` gets each batch's decisions (and writes them, or not on a dry run).
 */
async function matchInBatches(
  sqlite: BetterSqlite3.Database,
  companyId: string,
  companyCurrency: string,
  credits: PendingRow[],
  onBatch: (batch: Array<{ row: PendingRow; decision: Decision }>) => Promise<void>,
): Promise<void> {
  if (!credits.length) return;
  const customers = await customerIndex(sqlite, companyId);
  const consumed: Consumed = new Map();
  for (const batch of chunks(credits, WRITE_BATCH)) {
    const decided: Array<{ row: PendingRow; decision: Decision }> = [];
    for (const step of chunks(batch, STEP)) {
      const { facts, invoiceOf } = gatherFacts(sqlite, companyId, step, customers, consumed);
      step.forEach((row, n) => {
        const decision = decide({ amount: row.amount, currency: row.currency, direction: 'credit', companyCurrency }, facts[n], invoiceOf);
        if (decision.state === 'applied') {
          for (const a of decision.proposal!.allocations) {
            consumed.set(a.invoice_id, (consumed.get(a.invoice_id) ?? 0) + a.amount);
            const invoice = invoiceOf(a.invoice_id)!;
            invoice.balance -= a.amount;
            if (invoice.balance <= 0) invoice.closing_reason = 'paid';
          }
        }
        decided.push({ row, decision });
      });
      await yieldToEventLoop();
    }
    await onBatch(decided);
  }
}

/**
 * Writes one batch's decisions in one transaction: the automatic applications together (each
 * checked again against the ledger first, apply-many.ts) and the others' candidates.
 * `yieldInside`: the import's own connection, where handing the event loop back mid-transaction
 * lets nothing else in.
 */
async function writeDecisions(engine: Engineish & { db: Db }, companyId: string, actor: Actor, batch: Array<{ row: PendingRow; decision: Decision }>, yieldInside: boolean): Promise<void> {
  await runCommand(engine, 'match_bank_transactions', { actor, companyId }, async (tx) => {
    const changes: Parameters<typeof tx.recordMany>[0] = [];
    // Another import (or a person) may have taken some of these credits since they were read: theirs stay as they are.
    const waiting = await stillPending(tx.db, batch.map((b) => b.row.id));
    const mine = batch.filter((b) => waiting.has(b.row.id));
    const automatic = mine.filter((b) => b.decision.state === 'applied');
    const applied = await applyAutomatic(
      tx,
      { companyId, actor },
      automatic.map(({ row, decision }) => ({
        entry: { ...row, state: 'pending' },
        allocations: decision.proposal!.allocations,
        matched: { confidence: decision.confidence, candidates: JSON.stringify(decision.candidates), flag: decision.flag },
      })),
      changes,
    );
    for (const [n, { row, decision }] of mine.entries()) {
      if (applied.has(row.id)) continue;
      if (yieldInside && n % STEP === STEP - 1) await yieldToEventLoop();
      // An automatic application the ledger no longer allows (an invoice paid meanwhile) is left to review.
      const state = decision.state === 'applied' ? 'suggested' : decision.state;
      const matched = { customer_id: decision.customer_id, confidence: decision.confidence, candidates: JSON.stringify(decision.candidates), flag: decision.flag, updated_at: tx.now, state };
      await tx.db.updateTable('bank_transactions').set(matched).where('id', '=', row.id).execute();
      changes.push({ entity: 'bank_transaction', entityId: row.id, op: 'update', data: matched });
    }
    await tx.recordMany(changes);
  });
}

const PENDING_COLUMNS = [
  'id',
  'state',
  'direction',
  'amount',
  'currency',
  'booked_on',
  'remittance_text',
  'structured_reference',
  'end_to_end_id',
  'counterparty_name',
  'counterparty_account',
  'bank_reference',
  'bank_code',
] as const;

/** Matches every credit of the company still waiting (this import's, and any a killed import left). */
export async function matchPending(engine: Engineish & { db: Db; sqlite: BetterSqlite3.Database }, companyId: string, actor: Actor, currency: string): Promise<void> {
  const pending = (await engine.db.selectFrom('bank_transactions').select(PENDING_COLUMNS).where('company_id', '=', companyId).where('state', '=', 'pending').orderBy('created_at').orderBy('position').execute()) as PendingRow[];
  await matchInBatches(engine.sqlite, companyId, currency, pending, (batch) => writeDecisions(engine, companyId, actor, batch, !engine.db.isTransaction));
}

/**
 * Entries past which a statement is imported on a thread of its own: a few hundred credits match
 * and apply in well under a second, less than the thread takes to start.
 */
const IN_PROCESS_ENTRIES = 200;

/** Imports a statement read by one of core/bank/read's readers. */
export async function importStatement(engine: Pick<Engine, 'db' | 'database' | 'clock' | 'writeWait'>, options: ImportStatementOptions): Promise<ImportSummary> {
  // A synced write (or its replay on the team server) already runs in a transaction on this connection: the import joins it.
  if (engine.db.isTransaction) return importOn({ db: engine.db, sqlite: engine.database.sqlite, clock: engine.clock, writeWait: engine.writeWait }, options);
  const own = { file: engine.database.file, clock: engine.clock, writeWait: engine.writeWait };
  if (options.statement.entries.length > IN_PROCESS_ENTRIES && engine.database.file !== ':memory:') return importOffThread(own, options);
  return importOnOwnConnection(own, options);
}

/** Imports on a connection of its own to the database file (this thread's, or the import thread's). */
export async function importOnOwnConnection(engine: { file: string } & Engineish, options: ImportStatementOptions): Promise<ImportSummary> {
  const own = openDatabase(engine.file);
  // Checkpoints are the server's checkpointer's (a worker thread): one run inside this connection's
  // commit copied the log into a 2 GB file on the event loop (a second). The backstop stays, as on
  // the server's own connection.
  own.sqlite.pragma(`wal_autocheckpoint = ${CHECKPOINT_BACKSTOP_PAGES}`);
  try {
    return await importOn({ db: own.db, sqlite: own.sqlite, clock: engine.clock, writeWait: engine.writeWait }, options);
  } finally {
    await own.close();
  }
}

async function importOn(engine: Engineish & { db: Db; sqlite: BetterSqlite3.Database }, options: ImportStatementOptions): Promise<ImportSummary> {
  const { companyId, statement } = options;
  const company = await engine.db.selectFrom('companies').select(['id', 'currency']).where('id', '=', companyId).executeTakeFirst();
  if (!company) throw new NotFoundError('Company', companyId);
  const identities = entryIdentities(statement);
  const freshOf = async (db: Db) => {
    const known = await existingIdentities(db, companyId, identities);
    return statement.entries.map((e, position) => ({ e, position, identity: identities[position] })).filter((x) => !known.has(x.identity));
  };
  const summary: ImportSummary = {
    id: null,
    dry_run: options.dryRun,
    format: statement.format,
    account: statement.account,
    currency: statement.currency,
    period_start: statement.period_start,
    period_end: statement.period_end,
    entries: statement.entries.length,
    credits: statement.entries.filter((e) => e.direction === 'credit').length,
    debits: statement.entries.filter((e) => e.direction === 'debit').length,
    applied: 0,
    suggested: 0,
    unmatched: 0,
    duplicates: 0,
    warnings: statement.warnings,
  };
  const count = (state: string) => {
    if (state === 'applied' || state === 'suggested' || state === 'unmatched') summary[state]++;
  };

  if (options.dryRun) {
    const fresh = await freshOf(engine.db);
    summary.duplicates = statement.entries.length - fresh.length;
    const credits = fresh.filter((x) => x.e.direction === 'credit').map((x): PendingRow => ({ id: x.identity, state: 'pending', ...x.e, amount: x.e.amount_cents }));
    await matchInBatches(engine.sqlite, companyId, company.currency, credits, async (batch) => {
      for (const { decision } of batch) count(decision.state);
    });
    return summary;
  }

  const statementId = newId();
  const createdAt = timestamp(engine.clock);
  await runCommand(engine, 'import_bank_statement', { actor: options.actor, companyId }, async (tx) => {
    // Known entries are looked for under the write lock: the same file imported twice at once stores its entries once.
    const fresh = await freshOf(tx.db);
    summary.duplicates = statement.entries.length - fresh.length;
    const row = {
      id: statementId,
      company_id: companyId,
      format: statement.format,
      bank_statement_id: statement.statement_id,
      account: statement.account,
      currency: statement.currency,
      period_start: statement.period_start,
      period_end: statement.period_end,
      opening_balance: statement.opening_balance_cents,
      closing_balance: statement.closing_balance_cents,
      file_name: options.fileName,
      entries: summary.entries,
      credits: summary.credits,
      debits: summary.debits,
      duplicates: summary.duplicates,
      warnings: JSON.stringify(statement.warnings),
      imported_by: options.actor.name,
      created_at: tx.now,
      updated_at: tx.now,
    };
    await tx.db.insertInto('bank_statements').values(row).execute();
    await tx.record('bank_statement', row.id, 'insert', row);
    for (const part of chunks(fresh, STORE_BATCH)) {
      const rows = part.map(({ e, position, identity }) => ({
        id: newId(),
        company_id: companyId,
        statement_id: statementId,
        identity,
        position,
        account: statement.account,
        booked_on: e.booked_on,
        value_on: e.value_on,
        amount: e.amount_cents,
        direction: e.direction,
        currency: e.currency,
        bank_reference: e.bank_reference,
        end_to_end_id: e.end_to_end_id,
        structured_reference: e.structured_reference,
        remittance_text: e.remittance_text,
        counterparty_name: e.counterparty_name,
        counterparty_account: e.counterparty_account,
        bank_code: e.bank_code,
        state: (e.direction === 'debit' ? 'debit' : 'pending') as BankTransactionState,
        flag: null,
        customer_id: null,
        confidence: null,
        candidates: '[]',
        note: null,
        created_at: createdAt,
        updated_at: createdAt,
      }));
      for (const few of chunks(rows, 100)) await tx.db.insertInto('bank_transactions').values(few).execute();
      await tx.recordMany(rows.map((r) => ({ entity: 'bank_transaction', entityId: r.id, op: 'insert' as const, data: r })));
      // On its own connection nothing else runs in this transaction while the event loop serves others.
      if (!engine.db.isTransaction) await yieldToEventLoop();
    }
  });
  summary.id = statementId;
  await matchPending(engine, companyId, options.actor, company.currency);
  const states = await engine.db
    .selectFrom('bank_transactions')
    .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
    .where('statement_id', '=', statementId)
    .groupBy('state')
    .execute();
  for (const s of states) if (s.state === 'applied' || s.state === 'suggested' || s.state === 'unmatched') summary[s.state] = Number(s.n);
  return summary;
}
