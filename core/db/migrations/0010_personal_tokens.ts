/**
 * Personal API tokens for scripts sit beside the session tokens of logins and desktop launches in
 * api_tokens: `kind` tells them apart, so the token list shows only what a person made.
 */
import { type Kysely, sql } from 'kysely';

const statements = [
  `ALTER TABLE api_tokens ADD COLUMN kind TEXT NOT NULL DEFAULT 'session' CHECK (kind IN ('session','personal'))`,
  `CREATE INDEX api_tokens_user_kind ON api_tokens(user_id, kind, created_at)`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
