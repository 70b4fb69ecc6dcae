/**
 * What a company prints on its invoice copies and statements (core/documents): legal name,
 * address, tax id, logo, payment instructions, footer, locale and paper size. One row per company,
 * keyed by company_id, so it syncs like the company's other rows (core/sync/tables.ts). The logo is
 * base64 text, not a BLOB: the sync feed carries rows as JSON, which cannot hold a BLOB.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql
    .raw(
      `CREATE TABLE company_document_details (
        company_id TEXT PRIMARY KEY REFERENCES companies(id) ON DELETE CASCADE,
        legal_name TEXT,
        address TEXT,
        tax_id TEXT,
        logo_base64 TEXT,
        logo_type TEXT CHECK (logo_type IN ('image/png', 'image/jpeg', 'image/svg+xml')),
        payment_instructions TEXT,
        portal_link TEXT,
        footer TEXT,
        locale TEXT NOT NULL DEFAULT 'en-US',
        paper TEXT NOT NULL DEFAULT 'A4' CHECK (paper IN ('A4', 'Letter')),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        CHECK ((logo_base64 IS NULL) = (logo_type IS NULL))
      )`,
    )
    .execute(db);
}
