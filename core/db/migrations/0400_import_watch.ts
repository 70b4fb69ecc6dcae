/**
 * The nightly re-import (issue 40, item 3): per company at most one watched file (or folder: its
 * newest CSV or XLSX), read by the job worker once a day, and a log of every run with what it
 * wrote or why it failed. A run of a file already imported unchanged (same SHA-256) writes nothing.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql
    .raw(
      `CREATE TABLE import_watches (
        company_id TEXT PRIMARY KEY REFERENCES companies(id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        preset TEXT,
        mapping TEXT,
        enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      )`,
    )
    .execute(db);
  await sql
    .raw(
      `CREATE TABLE import_runs (
        id TEXT PRIMARY KEY,
        company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        started_at TEXT NOT NULL,
        finished_at TEXT NOT NULL,
        file TEXT NOT NULL,
        sha256 TEXT,
        status TEXT NOT NULL CHECK (status IN ('imported', 'unchanged', 'failed')),
        preset TEXT,
        counts TEXT,
        notes TEXT,
        message TEXT
      )`,
    )
    .execute(db);
  await sql.raw(`CREATE INDEX import_runs_company ON import_runs(company_id, started_at)`).execute(db);
}
