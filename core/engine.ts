import { CompiledQuery, sql, type Transaction } from 'kysely';
import { type Clock, systemClock, timestamp, today } from './clock';
import { startCheckpointer } from './db/checkpointer';
import { DatabaseBusyError, type Db, type OpenedDatabase, openDatabase } from './db/connection';
import { migrateToLatest, type MigrationReport } from './db/migrate';
import type { ChangesTable, Database } from './db/schema';
import { loadOrCreateKey, type SecretBox, secretBox } from './secrets';
import { DomainError } from './errors';
import { currentTrace } from './trace';

/**
 * How a write waits while another connection (another ardesk process, an import) is writing: it
 * retries for up to timeoutMs without blocking the event loop, and calls onWait once when it has
 * waited a second (the CLI says so).
 */
export interface WriteWait {
  timeoutMs: number;
  onWait?: () => void;
  /**
   * Called when a write first finds the lock taken; what it returns is called once that write got
   * the lock or gave up. The server tells its refresh process to hold off meanwhile (core/runtime/server.ts).
   */
  onBlocked?: () => () => void;
  /** The longest pause between two tries (default 100 ms). */
  maxPauseMs?: number;
}

export const DEFAULT_WRITE_WAIT: WriteWait = { timeoutMs: 30_000 };

export class DatabaseBusyTimeout extends DomainError {
  constructor(waitedMs: number) {
    super(503, 'database_busy', `The database stayed busy for ${Math.round(waitedMs / 1000)} s (another process is writing); try again`);
  }
}

/** Runs `attempt` (a write transaction) until it gets the write lock or the wait runs out. */
export async function whileBusy<T>(wait: WriteWait, attempt: () => Promise<T>): Promise<T> {
  const started = Date.now();
  let told = false;
  let unblocked: (() => void) | undefined;
  try {
    for (let pause = 5; ; pause = Math.min(pause * 2, wait.maxPauseMs ?? 100)) {
      try {
        return await attempt();
      } catch (err) {
        if (!(err instanceof DatabaseBusyError)) throw err;
        unblocked ??= wait.onBlocked?.();
        const waited = Date.now() - started;
        if (waited >= wait.timeoutMs) throw new DatabaseBusyTimeout(waited);
        if (!told && waited >= 1000) {
          told = true;
          wait.onWait?.();
        }
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  } finally {
    unblocked?.();
  }
}

/**
 * Runs `body` in a write transaction, waiting (without blocking) while another connection writes:
 * the intelligence refresh beside the server, the CLI. Every write transaction starts here, or it
 * fails at once with DatabaseBusyError whenever another writer is mid-transaction.
 */
export function inWriteTransaction<T>(engine: { db: Db; writeWait?: WriteWait }, body: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return whileBusy(engine.writeWait ?? DEFAULT_WRITE_WAIT, () => engine.db.transaction().execute(body));
}

/** The core engine: one database, one clock. Both entry points (desktop, headless) build one. */
export interface Engine {
  db: Db;
  database: OpenedDatabase;
  clock: Clock;
  /** Encrypts secrets stored in the database (SMTP passwords). */
  secrets: SecretBox;
  migration: MigrationReport;
  writeWait: WriteWait;
  close(): Promise<void>;
}

export interface EngineOptions {
  file: string;
  clock?: Clock;
  writeWait?: WriteWait;
  /** WAL checkpoints on a worker thread, off the event loop (the server's engine: core/db/checkpointer.ts). */
  checkpointInBackground?: boolean;
  /**
   * Runs on the connection after the migrations, on every open: the hook through which a
   * composition root keeps schema-derived objects in step (sync's triggers, core/runtime/engine.ts).
   */
  afterMigrate?: (sqlite: OpenedDatabase['sqlite']) => void;
}

export async function createEngine(options: EngineOptions): Promise<Engine> {
  const database = openDatabase(options.file);
  const writeWait = options.writeWait ?? DEFAULT_WRITE_WAIT;
  try {
    const migration = await whileBusy(writeWait, () => migrateToLatest(database));
    options.afterMigrate?.(database.sqlite);
    const checkpointer = options.checkpointInBackground ? startCheckpointer(database.sqlite, options.file) : null;
    return {
      db: database.db,
      database,
      clock: options.clock ?? systemClock,
      secrets: secretBox(loadOrCreateKey(options.file)),
      migration,
      writeWait,
      async close() {
        await checkpointer?.close();
        await database.close();
      },
    };
  } catch (err) {
    await database.close();
    throw err;
  }
}

/** Who runs a command: recorded with every change. */
export interface Actor {
  userId: string | null;
  name: string | null;
}

export const systemActor: Actor = { userId: null, name: 'ardesk' };

/** Who runs a command, in which company: the scope of every company command. */
export interface Scope {
  companyId: string;
  actor: Actor;
}

export interface CommandTx {
  db: Transaction<Database>;
  /** The command's single timestamp, used for every row it writes. */
  now: string;
  today: string;
  actor: Actor;
  record(entity: string, entityId: string, op: ChangesTable['op'], data: Record<string, unknown>): Promise<void>;
  /** Many change records in a few multi-row inserts (bulk writers such as the intelligence refresh). */
  recordMany(entries: Array<{ entity: string; entityId: string; op: ChangesTable['op']; data: Record<string, unknown> }>): Promise<void>;
}

/** Change rows per INSERT: 8 columns each stays far below SQLite's bound-parameter limit. */
const RECORD_CHUNK = 512;

/**
 * The rows of the next INSERT of `left`: a full chunk, else the largest power of two that fits. A
 * statement is prepared and cached per text (core/db/statements.ts), and one per remainder length
 * (up to 500 of them, each hundreds of KB of SQLite's memory) filled the cache of a long refresh.
 */
function batchSize(left: number): number {
  if (left >= RECORD_CHUNK) return RECORD_CHUNK;
  return 2 ** Math.floor(Math.log2(left));
}

const CHANGE_COLUMNS = ['company_id', 'user_id', 'command', 'entity', 'entity_id', 'op', 'data', 'created_at'] as const satisfies readonly (keyof ChangesTable)[];
const insertChangesTexts = new Map<number, string>();

/**
 * The INSERT of `n` change rows, written out once per length: the bulk writers (the intelligence
 * refresh records hundreds of thousands of rows) spent more time in Kysely building and compiling
 * each multi-row statement than in SQLite running it.
 */
function insertChangesSql(n: number): string {
  let text = insertChangesTexts.get(n);
  if (!text) {
    const marks = `(${CHANGE_COLUMNS.map(() => '?').join(', ')})`;
    text = `insert into "changes" (${CHANGE_COLUMNS.map((c) => `"${c}"`).join(', ')}) values ${new Array(n).fill(marks).join(', ')}`;
    insertChangesTexts.set(n, text);
  }
  return text;
}

/**
 * Every write is a named command: it validates, runs in one transaction, and records each row it
 * changes in `changes` (the audit trail now, the sync feed later). Throwing rolls everything back.
 * Given an engine whose db is already a transaction (a synced operation, see core/sync), the
 * command joins it inside a savepoint, so its failure still undoes exactly its own writes.
 */
export async function runCommand<T>(
  engine: Pick<Engine, 'db' | 'clock'> & Partial<Pick<Engine, 'writeWait'>>,
  command: string,
  scope: { actor: Actor; companyId: string | null },
  fn: (tx: CommandTx) => Promise<T>,
): Promise<T> {
  const now = timestamp(engine.clock);
  currentTrace()?.commands.push(command);
  const body = (trx: Transaction<Database>) => fn(commandTx(trx, engine.clock, command, scope, now));
  // A synced operation already holds the write lock in its transaction: nothing to wait for.
  if (engine.db.isTransaction) return inSavepoint(engine.db as Transaction<Database>, body);
  return inWriteTransaction(engine, body);
}

let savepoints = 0;

async function inSavepoint<T>(trx: Transaction<Database>, body: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  const name = sql.raw(`command_${++savepoints}`);
  await sql`SAVEPOINT ${name}`.execute(trx);
  try {
    const result = await body(trx);
    await sql`RELEASE ${name}`.execute(trx);
    return result;
  } catch (err) {
    await sql`ROLLBACK TO ${name}`.execute(trx);
    await sql`RELEASE ${name}`.execute(trx);
    throw err;
  }
}

function commandTx(trx: Transaction<Database>, clock: Clock, command: string, scope: { actor: Actor; companyId: string | null }, now: string): CommandTx {
  const row = (e: { entity: string; entityId: string; op: ChangesTable['op']; data: Record<string, unknown> }) => ({
    company_id: scope.companyId,
    user_id: scope.actor.userId,
    command,
    entity: e.entity,
    entity_id: e.entityId,
    op: e.op,
    data: JSON.stringify(e.data),
    created_at: now,
  });
  return {
    db: trx,
    now,
    today: today(clock),
    actor: scope.actor,
    async record(entity, entityId, op, data) {
      await trx.insertInto('changes').values(row({ entity, entityId, op, data })).execute();
    },
    async recordMany(entries) {
      for (let i = 0; i < entries.length; ) {
        const n = batchSize(entries.length - i);
        const params: unknown[] = [];
        for (let k = i; k < i + n; k++) {
          const r = row(entries[k]);
          for (const column of CHANGE_COLUMNS) params.push(r[column]);
        }
        await trx.executeQuery(CompiledQuery.raw(insertChangesSql(n), params));
        i += n;
      }
    },
  };
}
