/**
 * A company made in the app (issue 40): its time zone and country beside its currency; a user
 * invited with a one-time setup code (only its sha256 is kept, until used or expired); and the
 * company role `manager` (a collector who also sees the team's users). SQLite cannot widen a
 * CHECK in place, so memberships is rebuilt with the same rows; its sync triggers are made again
 * at open (core/sync/triggers.ts ensureSyncTriggers).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE companies ADD COLUMN time_zone TEXT`.execute(db);
  await sql`ALTER TABLE companies ADD COLUMN country TEXT`.execute(db);
  await sql`ALTER TABLE users ADD COLUMN setup_code_hash TEXT`.execute(db);
  await sql`ALTER TABLE users ADD COLUMN setup_code_expires_at TEXT`.execute(db);
  await sql
    .raw(
      `CREATE TABLE memberships_0390 (
        id TEXT PRIMARY KEY,
        company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        role TEXT NOT NULL CHECK (role IN ('owner','manager','collector','viewer')),
        created_at TEXT NOT NULL,
        UNIQUE (company_id, user_id)
      )`,
    )
    .execute(db);
  await sql.raw(`INSERT INTO memberships_0390 (id, company_id, user_id, role, created_at) SELECT id, company_id, user_id, role, created_at FROM memberships`).execute(db);
  for (const trigger of (await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'memberships'`.execute(db)).rows) {
    await sql.raw(`DROP TRIGGER "${trigger.name}"`).execute(db);
  }
  await sql.raw('DROP TABLE memberships').execute(db);
  await sql.raw('ALTER TABLE memberships_0390 RENAME TO memberships').execute(db);
  await sql.raw('CREATE INDEX memberships_user ON memberships(user_id)').execute(db);
}
