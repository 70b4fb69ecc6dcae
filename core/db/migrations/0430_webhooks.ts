/**
 * Events for scripts (issue 42): the events table, read from the change record (and the team
 * server's rejected sync operations) by one materializer whose cursors live in event_cursor; the
 * webhook endpoints an owner registers; and one delivery row per endpoint and event, which is also
 * the delivery's durable queue (status, attempts, when to try next).
 */
import { type Kysely, sql } from 'kysely';

const statements = [
  `CREATE TABLE events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    company_id TEXT NOT NULL,
    type TEXT NOT NULL,
    resource_type TEXT NOT NULL,
    resource_id TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at TEXT NOT NULL
  )`,
  `CREATE INDEX events_company_seq ON events (company_id, seq)`,
  `CREATE TABLE event_cursor (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    changes_seq INTEGER NOT NULL,
    rejections_seq INTEGER NOT NULL
  )`,
  `CREATE TABLE webhook_endpoints (
    id TEXT PRIMARY KEY,
    company_id TEXT NOT NULL REFERENCES companies(id),
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    secret_enc TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    failing_since TEXT,
    disabled_at TEXT,
    disabled_reason TEXT,
    deleted_at TEXT
  )`,
  `CREATE INDEX webhook_endpoints_company ON webhook_endpoints (company_id)`,
  `CREATE TABLE webhook_deliveries (
    id TEXT PRIMARY KEY,
    company_id TEXT NOT NULL,
    endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id),
    event_seq INTEGER NOT NULL,
    event_id TEXT NOT NULL,
    resource_key TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT NOT NULL,
    last_attempt_at TEXT,
    response_status INTEGER,
    response_ms INTEGER,
    error TEXT,
    created_at TEXT NOT NULL,
    delivered_at TEXT
  )`,
  `CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, endpoint_id, event_seq)`,
  `CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, event_seq)`,
  `CREATE INDEX webhook_deliveries_resource ON webhook_deliveries (endpoint_id, resource_key, event_seq) WHERE status = 'pending'`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
  // Events start from now: the change record before this migration is history, not news.
  await sql.raw(
    `INSERT INTO event_cursor (id, changes_seq, rejections_seq) VALUES (1, (SELECT COALESCE(MAX(seq), 0) FROM changes), (SELECT COALESCE(MAX(seq), 0) FROM sync_mutations))`,
  ).execute(db);
}
