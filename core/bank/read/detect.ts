/**
 * Which format a bank file is in, told from its bytes (the name only breaks a tie), and the
 * reader for it. CSV and XLSX exports have no fixed layout: they are read through a column
 * mapping (table.ts), so here they are recognised and sent back with a 400 asking for one.
 */
import { ValidationError } from '../../errors';
import type { ParsedStatement, StatementFormat } from '../statement';
import { readCamt } from './camt';
import { readMt940 } from './mt940';
import { readOfx } from './ofx';
import { checkSize } from './values';

const ZIP = [0x50, 0x4b, 0x03, 0x04];

/** UTF-8, else Windows-1252 (older MT940 and OFX 1.x files are Latin-1). */
export function decodeStatementText(bytes: Uint8Array): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    text = new TextDecoder('windows-1252').decode(bytes);
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export function detectStatementFormat(bytes: Uint8Array, fileName?: string): StatementFormat {
  if (ZIP.every((b, i) => bytes[i] === b)) return 'xlsx';
  // The first few kilobytes tell every format apart.
  const head = decodeStatementText(bytes.subarray(0, 4096)).trimStart();
  if (/^OFXHEADER:/i.test(head) || /<\?OFX\b/i.test(head) || /^<OFX>/i.test(head)) return 'ofx';
  if (head.startsWith('<')) {
    if (/BkToCstmrDbtCdtNtfctn|camt\.054\./.test(head)) return 'camt.054';
    if (/BkToCstmrStmt|camt\.053\./.test(head)) return 'camt.053';
    if (/<OFX>/i.test(head)) return 'ofx';
  }
  if (/^(?:\{1:|:20:|-\r?\n:20:)/.test(head) || (/(?:^|\n):20:/.test(head) && /(?:^|\n):60[FM]:/.test(head))) return 'mt940';
  if (/\.(csv|txt)$/i.test(fileName ?? '') || /^[^\n]*[,;\t][^\n]*\r?\n/.test(head)) return 'csv';
  throw new ValidationError(
    'The file is not a bank statement ardesk reads: camt.053, camt.054, MT940, OFX, or a CSV or XLSX export with a column mapping',
    { file: ['Unknown statement format'] },
    'unknown_statement_format',
  );
}

/** Reads a camt.053/054, MT940 or OFX file; a CSV or XLSX export is refused here: it needs a mapping. */
export function readStatement(bytes: Buffer, fileName?: string): ParsedStatement {
  checkSize(bytes);
  const format = detectStatementFormat(bytes, fileName);
  if (format === 'csv' || format === 'xlsx') {
    throw new ValidationError(
      `A ${format.toUpperCase()} bank export has no fixed layout: choose which columns hold the date, the amount, the payer and the reference`,
      { mapping: ['A column mapping is needed for a CSV or XLSX export'] },
      'statement_mapping_required',
    );
  }
  const text = decodeStatementText(bytes);
  if (format === 'ofx') return readOfx(text);
  if (format === 'mt940') return readMt940(text);
  return readCamt(text);
}
