/**
 * A company's brand colours (issue 39): a primary and an accent colour, each `#rrggbb` or null, on
 * its document details, so the portal page and the invoice and statement PDFs carry them and they
 * sync with the rest of the details. What is stored is the colour as chosen; the shades that keep
 * text readable are derived when drawn (core/documents/colours.ts).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  for (const column of ['brand_primary', 'brand_accent']) {
    await sql.raw(`ALTER TABLE company_document_details ADD COLUMN ${column} TEXT CHECK (${column} IS NULL OR (length(${column}) = 7 AND ${column} GLOB '#[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'))`).execute(db);
  }
}
