/**
 * Mail servers' certificates are verified from now on (issue 44). A connection can require TLS,
 * and can trust exactly one certificate per server (the PEM, pinned by its SHA-256 fingerprint)
 * for a self-hosted server with its own. Connections made before this were never verified: they
 * are marked for an owner's review (tls_review), so a send their server's certificate fails says
 * why it waits instead of failing without a word, until an owner trusts it in Settings.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  for (const column of [
    'require_tls INTEGER NOT NULL DEFAULT 0',
    'smtp_tls_cert TEXT',
    'smtp_tls_trusted_at TEXT',
    'imap_tls_cert TEXT',
    'imap_tls_trusted_at TEXT',
    'tls_review INTEGER NOT NULL DEFAULT 0',
  ]) {
    await sql.raw(`ALTER TABLE email_connections ADD COLUMN ${column}`).execute(db);
  }
  // A relay on this machine without TLS is still allowed as it is: nothing to review there.
  await sql`UPDATE email_connections SET tls_review = 1 WHERE lower(smtp_host) NOT IN ('127.0.0.1', 'localhost', '::1', '[::1]')`.execute(db);
}
