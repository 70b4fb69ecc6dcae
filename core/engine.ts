import { sql, type Transaction } from 'kysely';
import { type Clock, systemClock, timestamp, today } from './clock';
import { type Db, type OpenedDatabase, openDatabase } from './db/connection';
import { migrateToLatest, type MigrationReport } from './db/migrate';
import type { ChangesTable, Database } from './db/schema';
import { loadOrCreateKey, type SecretBox, secretBox } from './email/secrets';
import { currentTrace } from './sync/trace';
import { ensureSyncTriggers } from './sync/triggers';

/** The core engine: one database, one clock. Both entry points (desktop, headless) build one. */
export interface Engine {
  db: Db;
  database: OpenedDatabase;
  clock: Clock;
  /** Encrypts secrets stored in the database (SMTP passwords). */
  secrets: SecretBox;
  migration: MigrationReport;
  close(): Promise<void>;
}

export interface EngineOptions {
  file: string;
  clock?: Clock;
}

export async function createEngine(options: EngineOptions): Promise<Engine> {
  const database = openDatabase(options.file);
  try {
    const migration = await migrateToLatest(database);
    ensureSyncTriggers(database.sqlite);
    return {
      db: database.db,
      database,
      clock: options.clock ?? systemClock,
      secrets: secretBox(loadOrCreateKey(options.file)),
      migration,
      close: () => database.close(),
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

export interface CommandTx {
  db: Transaction<Database>;
  /** The command's single timestamp, used for every row it writes. */
  now: string;
  today: string;
  actor: Actor;
  record(entity: string, entityId: string, op: ChangesTable['op'], data: Record<string, unknown>): Promise<void>;
}

/**
 * Every write is a named command: it validates, runs in one transaction, and records each row it
 * changes in `changes` (the audit trail now, the sync feed later). Throwing rolls everything back.
 * Given an engine whose db is already a transaction (a synced operation, see core/sync), the
 * command joins it inside a savepoint, so its failure still undoes exactly its own writes.
 */
export async function runCommand<T>(
  engine: Pick<Engine, 'db' | 'clock'>,
  command: string,
  scope: { actor: Actor; companyId: string | null },
  fn: (tx: CommandTx) => Promise<T>,
): Promise<T> {
  const now = timestamp(engine.clock);
  currentTrace()?.commands.push(command);
  const body = (trx: Transaction<Database>) => fn(commandTx(trx, engine.clock, command, scope, now));
  if (engine.db.isTransaction) return inSavepoint(engine.db as Transaction<Database>, body);
  return engine.db.transaction().execute(body);
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
  return {
    db: trx,
    now,
    today: today(clock),
    actor: scope.actor,
    async record(entity, entityId, op, data) {
      await trx
        .insertInto('changes')
        .values({
          company_id: scope.companyId,
          user_id: scope.actor.userId,
          command,
          entity,
          entity_id: entityId,
          op,
          data: JSON.stringify(data),
          created_at: now,
        })
        .execute();
    },
  };
}
