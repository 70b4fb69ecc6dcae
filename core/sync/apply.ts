/**
 * The desktop applies a pull in one transaction: put back the server's image of every row changed
 * locally since the last pull (sync_undo), apply the server's changes, drop the commands the server
 * has processed from the outbox (keeping the rejected ones' reasons), then replay the commands still
 * pending on top. So the local state is always "server state plus my pending commands", and a crash
 * anywhere before the commit leaves the previous state whole.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema';
import { ConflictError } from '../errors';
import { type Engine, inWriteTransaction } from '../engine';
import type { AuthenticatedUser } from '../auth/users';
import type { FeedChange, Row } from './feed';
import { type AppFetch, replayOperation } from './operation';
import { prepared } from '../db/statements';
import { type SyncedTable, syncSchema } from './tables';

export interface PulledCompany {
  company_id: string;
  status: 'ok' | 'revoked';
  cursor: string | null;
  changes: FeedChange[];
}

export interface PullToApply {
  last_mutation_id: number;
  rejected: Array<{ mutation_id: number; company_id: string; command: string; reason: string }>;
  users: Row[];
  companies: PulledCompany[];
}

/** Test hook: exits the process at a named point, to prove a crash there loses nothing. */
export function faultPoint(name: string): void {
  if (process.env.ARDESK_SYNC_FAULT === name) {
    process.stderr.write(`ardesk: fault injected at ${name}\n`);
    process.exit(86);
  }
}

function upsertSql(table: SyncedTable, columns: string[], rows: number): string {
  const update = columns.filter((c) => !table.key.includes(c));
  const conflict = update.length ? `DO UPDATE SET ${update.map((c) => `"${c}" = excluded."${c}"`).join(', ')}` : 'DO NOTHING';
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  return `INSERT INTO "${table.name}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES ${Array.from({ length: rows }, () => tuple).join(', ')} ON CONFLICT (${table.key.map((k) => `"${k}"`).join(', ')}) ${conflict}`;
}

function upsert(sqlite: BetterSqlite3.Database, table: SyncedTable, row: Row): void {
  const columns = table.columns.filter((c) => c in row);
  prepared(sqlite, upsertSql(table, columns, 1)).run(...columns.map((c) => row[c] as unknown));
}

/** Rows per multi-row upsert: the statement's fixed cost is paid once per batch, far below the bound-parameter limit. */
const BATCH_ROWS = 32;

/** Upserts rows of one table in order, a batch of rows with the same columns per statement. */
function upsertAll(sqlite: BetterSqlite3.Database, table: SyncedTable, rows: Row[]): void {
  let i = 0;
  while (i < rows.length) {
    const columns = table.columns.filter((c) => c in rows[i]);
    const sameColumns = (row: Row) => columns.every((c) => c in row) && table.columns.filter((c) => c in row).length === columns.length;
    let end = i + 1;
    while (end < rows.length && end - i < BATCH_ROWS && sameColumns(rows[end])) end += 1;
    const values: unknown[] = [];
    for (let r = i; r < end; r++) for (const c of columns) values.push(rows[r][c]);
    prepared(sqlite, upsertSql(table, columns, end - i)).run(values);
    i = end;
  }
}

function remove(sqlite: BetterSqlite3.Database, table: SyncedTable, key: unknown[]): void {
  prepared(sqlite, `DELETE FROM "${table.name}" WHERE ${table.key.map((k) => `"${k}" = ?`).join(' AND ')}`).run(...key);
}

/** Writes server changes: deletions children first, then rows parents first. */
export function writeChanges(sqlite: BetterSqlite3.Database, changes: FeedChange[]): void {
  const schema = syncSchema(sqlite);
  const order = new Map(schema.feed.map((t, i) => [t.name, i]));
  const known = changes.filter((c) => order.has(c.table));
  const deletions = known.filter((c) => c.row === null).sort((a, b) => order.get(b.table)! - order.get(a.table)!);
  const rows = known.filter((c) => c.row !== null).sort((a, b) => order.get(a.table)! - order.get(b.table)!);
  for (const d of deletions) remove(sqlite, schema.byName.get(d.table)!, d.key);
  for (let i = 0; i < rows.length; ) {
    let end = i + 1;
    while (end < rows.length && rows[end].table === rows[i].table) end += 1;
    upsertAll(sqlite, schema.byName.get(rows[i].table)!, rows.slice(i, end).map((c) => c.row!));
    i = end;
  }
}

/** Puts every locally changed row back as the server last sent it. */
function restoreServerImage(sqlite: BetterSqlite3.Database): void {
  const schema = syncSchema(sqlite);
  const entries = sqlite.prepare('SELECT tbl, key, row FROM sync_undo').all() as Array<{ tbl: string; key: string; row: string | null }>;
  for (const e of entries.filter((e) => e.row === null)) {
    const t = schema.byName.get(e.tbl);
    if (t) remove(sqlite, t, JSON.parse(e.key));
  }
  for (const e of entries.filter((e) => e.row !== null)) {
    const t = schema.byName.get(e.tbl);
    if (t) upsert(sqlite, t, JSON.parse(e.row!));
  }
  sqlite.prepare('DELETE FROM sync_undo').run();
}

export function writeUsers(sqlite: BetterSqlite3.Database, users: Row[]): void {
  const table: SyncedTable = { name: 'users', columns: ['id', 'username', 'display_name', 'email', 'password_hash', 'created_at', 'updated_at'], key: ['id'], companyColumn: 'id' };
  const taken = prepared(sqlite, 'SELECT 1 FROM users WHERE username = ? AND id != ?');
  for (const u of users) {
    // Said in words rather than as the UNIQUE constraint failing: usernames are one namespace per database.
    if (taken.get(u.username, u.id)) {
      throw new ConflictError(
        `This database has a user of its own named ${String(u.username)}, and the team server has another user of that name in a company being synced: rename one of them, or use a new data folder`,
        'username_taken',
      );
    }
    upsert(sqlite, table, u);
  }
}

/** Removes every local row of a company this user may no longer see. */
export function forgetCompany(sqlite: BetterSqlite3.Database, companyId: string): void {
  const schema = syncSchema(sqlite);
  for (const t of [...schema.undoable].reverse()) sqlite.prepare(`DELETE FROM "${t.name}" WHERE "${t.companyColumn}" = ?`).run(companyId);
  sqlite.prepare('DELETE FROM sync_companies WHERE company_id = ?').run(companyId);
}

export interface ApplyResult {
  pulled: number;
  /** Rejections learned from this pull (not already known from the push). */
  rejected: Array<{ mutation_id: number; command: string; reason: string }>;
  revoked: string[];
}

async function localUser(trx: Transaction<Database>): Promise<AuthenticatedUser> {
  return trx
    .selectFrom('users')
    .innerJoin('sync_state', 'sync_state.user_id', 'users.id')
    .select(['users.id', 'users.username', 'users.display_name'])
    .executeTakeFirstOrThrow();
}

export async function applyPull(engine: Engine, localApp: AppFetch, pull: PullToApply, now: string): Promise<ApplyResult> {
  const sqlite = engine.database.sqlite;
  return inWriteTransaction(engine, async (trx) => {
    await sql`PRAGMA defer_foreign_keys = ON`.execute(trx);
    sqlite.prepare('UPDATE sync_state SET capture = 0 WHERE id = 1').run();
    restoreServerImage(sqlite);
    writeUsers(sqlite, pull.users);
    const revoked: string[] = [];
    let pulled = 0;
    for (const company of pull.companies) {
      if (company.status === 'revoked') {
        revoked.push(company.company_id);
        forgetCompany(sqlite, company.company_id);
        continue;
      }
      writeChanges(sqlite, company.changes);
      pulled += company.changes.length;
      sqlite.prepare('UPDATE sync_companies SET cursor = ?, pulled_at = ? WHERE company_id = ?').run(company.cursor, now, company.company_id);
    }
    const acked = sqlite.prepare('SELECT mutation_id, company_id, command FROM sync_outbox WHERE mutation_id <= ?').all(pull.last_mutation_id) as Array<{ mutation_id: number; company_id: string; command: string }>;
    const rejectedNow: ApplyResult['rejected'] = [];
    const addRejection = sqlite.prepare('INSERT OR IGNORE INTO sync_rejections (mutation_id, company_id, command, reason, created_at) VALUES (?, ?, ?, ?, ?)');
    for (const r of pull.rejected) {
      if (!acked.some((a) => a.mutation_id === r.mutation_id)) continue;
      if (addRejection.run(r.mutation_id, r.company_id, r.command, r.reason, now).changes) rejectedNow.push(r);
    }
    // Commands of a company no longer visible can never be applied: the person is told why.
    const orphaned = sqlite
      .prepare(`SELECT mutation_id, company_id, command FROM sync_outbox WHERE company_id IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(revoked)) as Array<{ mutation_id: number; company_id: string; command: string }>;
    for (const o of orphaned) {
      const reason = 'You are no longer a member of this company on the team server';
      if (addRejection.run(o.mutation_id, o.company_id, o.command, reason, now).changes) rejectedNow.push({ ...o, reason });
    }
    sqlite.prepare('DELETE FROM sync_outbox WHERE mutation_id <= ? OR company_id IN (SELECT value FROM json_each(?))').run(pull.last_mutation_id, JSON.stringify(revoked));
    sqlite.prepare('UPDATE sync_state SET capture = 1, last_sync_at = ?, last_error = NULL WHERE id = 1').run(now);
    await rebase(engine, trx, localApp);
    faultPoint('pull-before-commit');
    return { pulled, rejected: rejectedNow, revoked };
  });
}

/** Replays the pending commands, in order, on top of the server state just written. */
async function rebase(engine: Engine, trx: Transaction<Database>, localApp: AppFetch): Promise<void> {
  const pending = await trx.selectFrom('sync_outbox').selectAll().orderBy('mutation_id').execute();
  if (pending.length === 0) return;
  const user = await localUser(trx);
  for (const op of pending) {
    // A command the new server state refuses stays queued: the server gives the verdict.
    await replayOperation(localApp, { ...op, ids: JSON.parse(op.ids) as string[] }, { user, engine: { ...engine, db: trx } });
  }
}
