/**
 * The team server's change feed, per company, from a cursor. A first pull (no cursor) walks the
 * company's rows table by table (parents first) from a snapshot of the version counter; later
 * pulls read sync_rows after the cursor's version: rows changed and tombstones, each row as it is
 * now. Rows changed while a snapshot is walked are sent again by the pulls that follow it, so the
 * replica ends at the server's state whatever happened meanwhile. Only members get a company's
 * rows; the users sent are the companies' members, with the password hash of the puller only.
 */
import type { Engine } from '../engine';
import { ValidationError } from '../errors';
import { prepared } from '../db/statements';
import { type SyncedTable, syncSchema } from './tables';

export type Row = Record<string, unknown>;

export interface FeedChange {
  table: string;
  key: unknown[];
  /** The row as it is now; null for a deletion. */
  row: Row | null;
}

export interface FeedCompany {
  company_id: string;
  status: 'ok' | 'revoked';
  cursor: string | null;
  more: boolean;
  changes: FeedChange[];
}

export interface FeedRequest {
  client_id: string;
  companies: Array<{ company_id: string; cursor: string | null }>;
  /** The client's oldest pending mutation: rejections from there on are reported. */
  pending_from: number;
  limit: number;
}

export interface Feed {
  last_mutation_id: number;
  rejected: Array<{ mutation_id: number; company_id: string; command: string; reason: string }>;
  users: Row[];
  companies: FeedCompany[];
}

type Cursor = { kind: 'snapshot'; version: number; table: number; after: unknown[] | null } | { kind: 'version'; version: number };

export function encodeCursor(cursor: Cursor): string {
  if (cursor.kind === 'version') return `v.${cursor.version}`;
  const after = cursor.after ? Buffer.from(JSON.stringify(cursor.after)).toString('base64url') : '';
  return `s.${cursor.version}.${cursor.table}.${after}`;
}

export function decodeCursor(text: string): Cursor {
  const bad = () => new ValidationError('The cursor is not one this server gave', { cursor: ['unknown cursor'] });
  const version = /^v\.(\d{1,15})$/.exec(text);
  if (version) return { kind: 'version', version: Number(version[1]) };
  const snapshot = /^s\.(\d{1,15})\.(\d{1,4})\.([A-Za-z0-9_-]*)$/.exec(text);
  if (!snapshot) throw bad();
  let after: unknown[] | null = null;
  if (snapshot[3]) {
    try {
      after = JSON.parse(Buffer.from(snapshot[3], 'base64url').toString('utf8'));
    } catch {
      throw bad();
    }
    if (!Array.isArray(after)) throw bad();
  }
  return { kind: 'snapshot', version: Number(snapshot[1]), table: Number(snapshot[2]), after };
}

/** What a member may see of a row: secrets stay on the server, saved views are their owner's. */
function visible(table: string, row: Row, userId: string): Row | null {
  if (table === 'email_connections') return { ...row, smtp_password_enc: null, imap_password_enc: null };
  if (table === 'saved_views' && row.user_id !== userId) return null;
  return row;
}

function keyOf(table: SyncedTable, row: Row): unknown[] {
  return table.key.map((k) => row[k]);
}

function columnList(table: SyncedTable): string {
  return table.columns.map((c) => `"${c}"`).join(', ');
}

function snapshotPage(engine: Engine, companyId: string, cursor: Extract<Cursor, { kind: 'snapshot' }>, limit: number, userId: string) {
  const { feed } = syncSchema(engine.database.sqlite);
  const at = feed[cursor.table];
  const fits = cursor.table <= feed.length && (!cursor.after || (at && cursor.after.length === at.key.length && cursor.after.every((v) => typeof v === 'string' || typeof v === 'number')));
  if (!fits) throw new ValidationError('The cursor is not one this server gave', { cursor: ['unknown cursor'] });
  const changes: FeedChange[] = [];
  let { table: index, after } = cursor;
  while (index < feed.length && changes.length < limit) {
    const t = feed[index];
    const keyCols = t.key.map((k) => `"${k}"`).join(', ');
    const afterSql = after ? ` AND (${keyCols}) > (${t.key.map(() => '?').join(', ')})` : '';
    const want = limit - changes.length;
    // The unary + keeps SQLite off the company's own indexes: through one of them every page sorted
    // all the company's rows again (quadratic in its size); the key's index walks each row once.
    const rows = prepared(engine.database.sqlite, `SELECT ${columnList(t)} FROM "${t.name}" WHERE +"${t.companyColumn}" = ?${afterSql} ORDER BY ${keyCols} LIMIT ?`)
      .all(companyId, ...(after ?? []), want) as Row[];
    for (const row of rows) {
      const shown = visible(t.name, row, userId);
      if (shown) changes.push({ table: t.name, key: keyOf(t, row), row: shown });
    }
    if (rows.length < want) {
      index += 1;
      after = null;
    } else {
      after = keyOf(t, rows[rows.length - 1]);
    }
  }
  const done = index >= feed.length;
  const next: Cursor = done ? { kind: 'version', version: cursor.version } : { kind: 'snapshot', version: cursor.version, table: index, after };
  return { changes, cursor: encodeCursor(next) };
}

function versionPage(engine: Engine, companyId: string, from: number, limit: number, userId: string) {
  const schema = syncSchema(engine.database.sqlite);
  const stamps = prepared(engine.database.sqlite, 'SELECT tbl, key, deleted, version FROM sync_rows WHERE company_id = ? AND version > ? ORDER BY version LIMIT ?')
    .all(companyId, from, limit) as Array<{ tbl: string; key: string; deleted: number; version: number }>;
  const changes: FeedChange[] = [];
  for (const stamp of stamps) {
    const t = schema.byName.get(stamp.tbl);
    if (!t) continue;
    const key = JSON.parse(stamp.key) as unknown[];
    if (stamp.deleted) {
      changes.push({ table: t.name, key, row: null });
      continue;
    }
    const row = prepared(engine.database.sqlite, `SELECT ${columnList(t)} FROM "${t.name}" WHERE ${t.key.map((k) => `"${k}" = ?`).join(' AND ')}`)
      .get(...key) as Row | undefined;
    const shown = row ? visible(t.name, row, userId) : null;
    if (shown) changes.push({ table: t.name, key, row: shown });
  }
  const last = stamps.length ? stamps[stamps.length - 1].version : from;
  return { changes, cursor: encodeCursor({ kind: 'version', version: last }), more: stamps.length === limit };
}

export async function readFeed(engine: Engine, userId: string, request: FeedRequest): Promise<Feed> {
  const sqlite = engine.database.sqlite;
  // One synchronous read transaction on the held connection: a consistent view, and no other work
  // interleaved (fifty idle desktops pulling after a poke cost one short block each).
  return engine.db.connection().execute(async () => sqlite.transaction(() => feedIn(engine, userId, request)).deferred());
}

function feedIn(engine: Engine, userId: string, request: FeedRequest): Feed {
  const sqlite = engine.database.sqlite;
  const client = prepared(sqlite, 'SELECT last_mutation_id, user_id FROM sync_clients WHERE client_id = ?').get(request.client_id) as { last_mutation_id: number; user_id: string } | undefined;
  const mine = client !== undefined && client.user_id === userId;
  const rejected = mine
    ? (prepared(sqlite, "SELECT mutation_id, company_id, command, reason FROM sync_mutations WHERE client_id = ? AND status = 'rejected' AND mutation_id >= ? ORDER BY mutation_id")
        .all(request.client_id, request.pending_from) as Array<{ mutation_id: number; company_id: string; command: string; reason: string | null }>)
    : [];
  const memberOf = new Set((prepared(sqlite, 'SELECT company_id FROM memberships WHERE user_id = ?').all(userId) as Array<{ company_id: string }>).map((m) => m.company_id));
  const { version } = prepared(sqlite, 'SELECT version FROM sync_state WHERE id = 1').get() as { version: number };
  const companies: FeedCompany[] = [];
  for (const { company_id, cursor } of request.companies) {
    if (!memberOf.has(company_id)) {
      companies.push({ company_id, status: 'revoked', cursor: null, more: false, changes: [] });
      continue;
    }
    const at = cursor ? decodeCursor(cursor) : ({ kind: 'snapshot', version, table: 0, after: null } as const);
    if (at.kind === 'snapshot') {
      const page = snapshotPage(engine, company_id, at, request.limit, userId);
      companies.push({ company_id, status: 'ok', cursor: page.cursor, more: true, changes: page.changes });
    } else {
      const page = versionPage(engine, company_id, at.version, request.limit, userId);
      companies.push({ company_id, status: 'ok', ...page });
    }
  }
  const members = [...memberOf].filter((id) => request.companies.some((c) => c.company_id === id));
  const users = members.length
    ? (prepared(sqlite, 'SELECT * FROM users WHERE id IN (SELECT user_id FROM memberships WHERE company_id IN (SELECT value FROM json_each(?)))')
        .all(JSON.stringify(members)) as Row[])
    : [];
  return {
    last_mutation_id: mine ? client.last_mutation_id : 0,
    rejected: rejected.map((r) => ({ ...r, reason: r.reason ?? 'refused' })),
    users: users.map((u) => ({ ...u, password_hash: u.id === userId ? u.password_hash : '!' })),
    companies,
  };
}
