/**
 * An uploaded bank file read into a statement, whatever its format: camt, MT940 and OFX by their
 * readers (a large file on a thread of its own), a CSV or XLSX export through its column mapping
 * (table-file.ts). A mapping sent with an export is kept for the company's next file once the
 * import has stored the statement (`keep`); a dry run keeps nothing.
 */
import type { Db } from '../db/connection';
import { type Engine, type Scope } from '../engine';
import { ValidationError } from '../errors';
import { saveBankMapping } from './mappings';
import { readStatementOffThread } from './read-off-thread';
import { detectStatementFormat } from './read/detect';
import type { ParsedStatement } from './statement';
import { tableStatement } from './table-file';
import { checkSize } from './read/values';

export interface ReadUpload {
  statement: ParsedStatement;
  /** Keeps the mapping sent for the next file of this layout; nothing to do when none was sent. */
  keep: (engine: Pick<Engine, 'db' | 'clock'>, scope: Scope) => Promise<void>;
}

export async function readUpload(db: Db, companyId: string, bytes: Buffer, fileName: string | undefined, mappingText: string | undefined): Promise<ReadUpload> {
  checkSize(bytes);
  const format = detectStatementFormat(bytes, fileName);
  if (format !== 'csv' && format !== 'xlsx') {
    if (mappingText !== undefined) throw new ValidationError(`A ${format} file has a fixed layout: send it without a mapping`, { mapping: ['Only a CSV or XLSX export takes a column mapping'] });
    return { statement: await readStatementOffThread(bytes, fileName), keep: async () => {} };
  }
  const read = await tableStatement(db, companyId, bytes, format, mappingText);
  return {
    statement: read.statement,
    keep: async (engine, scope) => {
      if (mappingText !== undefined) await saveBankMapping(engine, scope, read.headers, read.mapping);
    },
  };
}
