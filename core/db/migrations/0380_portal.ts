/**
 * The customer's payment portal (issue 39, core/portal): the signed links (only the token's SHA-256
 * is kept), each company's link lifetime, what customers sent through the portal and the files they
 * attached. Every table has company_id, so a submission on the team server reaches the desktops
 * like any row (core/sync/tables.ts). A file is base64 text, as a logo is: the sync feed carries
 * rows as JSON, which cannot hold a BLOB.
 */
import { type Kysely, sql } from 'kysely';

const statements = [
  `CREATE TABLE portal_links (
    id TEXT PRIMARY KEY,
    company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    customer_id TEXT NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
    token_hash TEXT NOT NULL UNIQUE,
    expires_at TEXT NOT NULL,
    revoked_at TEXT,
    viewed_on TEXT,
    created_by TEXT,
    created_at TEXT NOT NULL
  )`,
  `CREATE INDEX portal_links_customer ON portal_links(company_id, customer_id)`,
  `CREATE TABLE portal_settings (
    company_id TEXT PRIMARY KEY REFERENCES companies(id) ON DELETE CASCADE,
    link_days INTEGER NOT NULL CHECK (link_days BETWEEN 1 AND 365),
    updated_at TEXT NOT NULL
  )`,
  `CREATE TABLE portal_files (
    id TEXT PRIMARY KEY,
    company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    customer_id TEXT NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
    file_name TEXT NOT NULL,
    media_type TEXT NOT NULL CHECK (media_type IN ('application/pdf', 'image/png', 'image/jpeg')),
    size INTEGER NOT NULL,
    content_base64 TEXT NOT NULL,
    created_at TEXT NOT NULL
  )`,
  `CREATE TABLE portal_submissions (
    id TEXT PRIMARY KEY,
    company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    customer_id TEXT NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
    link_id TEXT REFERENCES portal_links(id) ON DELETE SET NULL,
    kind TEXT NOT NULL CHECK (kind IN ('promise', 'dispute', 'paid', 'contact')),
    invoice_ids TEXT NOT NULL,
    details TEXT NOT NULL,
    file_id TEXT REFERENCES portal_files(id) ON DELETE SET NULL,
    status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'accepted', 'declined')),
    decided_by TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  )`,
  `CREATE INDEX portal_submissions_customer ON portal_submissions(company_id, customer_id, created_at)`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
