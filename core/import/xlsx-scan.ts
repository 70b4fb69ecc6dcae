/**
 * A look inside an XLSX workbook before it is loaded: a ZIP archive whose sheets are XML. Loading
 * builds an object per cell and unpacks every part in memory, so a small upload of a million empty
 * rows (XML compresses a thousandfold) would cost gigabytes. This reads the archive's directory,
 * then unpacks each part as a stream, counting bytes, rows and cells as they arrive and stopping at
 * the first limit passed; a sheet's declared dimension is checked before its rows are read.
 */
import { createInflateRaw } from 'node:zlib';
import { ValidationError } from '../errors';
import { yieldToEventLoop } from '../yielding';
import { overLimit, type ReadLimits } from './limits';

interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  /** Offset of the entry's local header. */
  offset: number;
}

/** The one refusal for a workbook that cannot be read, from the scan or from the row reader. */
export const unreadable = () => new ValidationError('The file is not a readable XLSX workbook', { file: ['Not a readable XLSX workbook'] });

/** The central directory at the end of the archive lists every part with its declared sizes. */
export function zipEntries(bytes: Uint8Array): ZipEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 65_535); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw unreadable();
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const entries: ZipEntry[] = [];
  for (let k = 0; k < count; k++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== 0x02014b50) throw unreadable();
    const nameLength = view.getUint16(at + 28, true);
    const name = Buffer.from(bytes.buffer, bytes.byteOffset + at + 46, nameLength).toString('utf8');
    entries.push({
      name,
      method: view.getUint16(at + 10, true),
      compressedSize: view.getUint32(at + 20, true),
      size: view.getUint32(at + 24, true),
      offset: view.getUint32(at + 42, true),
    });
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return entries;
}

async function* unpack(bytes: Uint8Array, entry: ZipEntry): AsyncGenerator<Buffer> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (entry.offset + 30 > bytes.length || view.getUint32(entry.offset, true) !== 0x04034b50) throw unreadable();
  const start = entry.offset + 30 + view.getUint16(entry.offset + 26, true) + view.getUint16(entry.offset + 28, true);
  if (start + entry.compressedSize > bytes.length) throw unreadable();
  const data = Buffer.from(bytes.buffer, bytes.byteOffset + start, entry.compressedSize);
  if (entry.method === 0) {
    yield data;
    return;
  }
  if (entry.method !== 8) throw unreadable();
  const inflater = createInflateRaw();
  inflater.end(data);
  try {
    for await (const chunk of inflater) yield chunk as Buffer;
  } catch {
    throw unreadable();
  } finally {
    inflater.destroy();
  }
}

/** "AB" -> 28. */
export function columnNumber(letters: string): number {
  let n = 0;
  for (const ch of letters) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n;
}

const SHEET = /^xl\/worksheets\/[^/]+\.xml$/;
const SHARED_STRINGS = /^xl\/sharedStrings\.xml$/;
const DIMENSION = /<(?:\w+:)?dimension\s+ref="[A-Z]*\d*(?::([A-Z]+)(\d+))?"/;
const TAG = /<(?:\w+:)?(row|c|si)(?=[\s>/])([^>]*)>/g;
const CELL_COLUMN = /\br="([A-Z]{1,3})\d/;
/** Longer than any tag a workbook writer makes: a tag that does not end within it is refused. */
const MAX_TAG = 64 * 1024;

/** Refuses (413) a workbook whose sheets pass a limit; a damaged archive is a 400. */
export async function checkWorkbook(bytes: Uint8Array, limits: ReadLimits): Promise<void> {
  const entries = zipEntries(bytes);
  if (entries.reduce((sum, e) => sum + e.size, 0) > limits.unpackedBytes) throw overLimit.unpackedBytes(limits);
  let unpacked = 0;
  let cells = 0;
  let strings = 0;
  for (const entry of entries) {
    const xml = SHEET.test(entry.name) || SHARED_STRINGS.test(entry.name);
    let rows = 0;
    let carry = '';
    let first = true;
    for await (const chunk of unpack(bytes, entry)) {
      unpacked += chunk.length;
      if (unpacked > limits.unpackedBytes) throw overLimit.unpackedBytes(limits);
      if (!xml) continue;
      let text = carry + chunk.toString('latin1');
      if (first && SHEET.test(entry.name)) {
        first = false;
        const dimension = DIMENSION.exec(text);
        if (dimension?.[2] && Number(dimension[2]) > limits.rows) throw overLimit.rows(limits);
        if (dimension?.[1] && columnNumber(dimension[1]) > limits.columns) throw overLimit.columns(limits, 1);
      }
      const lastOpen = text.lastIndexOf('<');
      if (lastOpen >= 0 && text.indexOf('>', lastOpen) < 0) {
        carry = text.slice(lastOpen);
        text = text.slice(0, lastOpen);
        if (carry.length > MAX_TAG) throw unreadable();
      } else carry = '';
      for (const match of text.matchAll(TAG)) {
        if (match[1] === 'row') {
          if (++rows > limits.rows) throw overLimit.rows(limits);
        } else if (match[1] === 'si') {
          if (++strings > limits.cells) throw overLimit.cells(limits);
        } else {
          if (++cells > limits.cells) throw overLimit.cells(limits);
          const column = CELL_COLUMN.exec(match[2]);
          if (column && columnNumber(column[1]) > limits.columns) throw overLimit.columns(limits, rows);
        }
      }
      await yieldToEventLoop();
    }
  }
}
