/**
 * Inside a document thread (render.ts): draws each document it is sent, one at a time, and posts
 * the file back (its memory handed over, not copied). The fonts are parsed once per thread. A long
 * statement is read here too (statement-read), on a read-only connection of the thread's own, in
 * one read transaction: its rows never pass through the server's event loop.
 */
import { setPriority } from 'node:os';
import { type MessagePort, parentPort } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Db } from '../db/connection';
import { DomainError } from '../errors';
import { renderInvoice } from './draw-invoice';
import { renderStatement } from './draw-statement';
import type { DrawnDocument } from './pdf';
import { HEAVY_LINES, type ReadSummary, type RenderRequest, type RenderThreadInput, type RenderThreadMessage } from './render';
import { statementData } from './statement-data';

if (!parentPort) throw new Error('render-thread runs as a worker thread');
const port: MessagePort = parentPort;

// On Linux a priority set for "this process" from a thread applies to that thread alone: drawing
// yields the cores to the server's event loop, so its requests are answered first on a busy machine.
try {
  setPriority(10);
} catch {
  // Not permitted or not supported here: the thread draws at normal priority.
}

/** The thread's read-only connection to a database file, opened on its first statement. */
const readers = new Map<string, { sqlite: BetterSqlite3.Database; db: Db }>();

function reader(file: string): { sqlite: BetterSqlite3.Database; db: Db } {
  let found = readers.get(file);
  if (!found) {
    const sqlite = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
    sqlite.pragma('busy_timeout = 5000');
    found = { sqlite, db: new Kysely({ dialect: new SqliteDialect({ database: sqlite }) }) };
    readers.set(file, found);
  }
  return found;
}

/** Long statements waiting for the server's go-ahead to draw (render.ts, the heavy turn). */
const waitingToDraw = new Map<number, () => void>();

/** Asks the server for the heavy turn and waits for it. */
function heavyTurn(id: number): Promise<void> {
  port.postMessage({ id, heavy: true } satisfies RenderThreadMessage);
  return new Promise<void>((go) => waitingToDraw.set(id, go));
}

async function draw(id: number, request: RenderRequest): Promise<DrawnDocument & { read?: ReadSummary }> {
  // The logo arrives as a plain byte array (a bounded PNG, render.ts); the drawing reads it as a Buffer.
  const logo = request.details.logoData;
  const details = { ...request.details, logoData: logo ? Buffer.from(logo.buffer, logo.byteOffset, logo.byteLength) : null };
  if (request.kind === 'invoice') return renderInvoice(request.data, details, request.today);
  if (request.kind === 'statement') return renderStatement(request.data, details);
  const { sqlite, db } = reader(request.file);
  // A customer with many invoices waits for the heavy turn before its rows are read, so a statement
  // waiting its turn holds nothing; the count (every invoice issued by the date) is an upper bound.
  const issued = sqlite.prepare('SELECT count(*) FROM invoices WHERE company_id = ? AND customer_id = ? AND invoice_date <= ?').pluck().get(request.companyId, request.customerId, request.request.asOf) as number;
  const heavy = issued > HEAVY_LINES;
  if (heavy) await heavyTurn(id);
  // One snapshot for the statement's several queries: a payment saved meanwhile is in all or none.
  sqlite.exec('BEGIN');
  let data;
  try {
    data = await statementData(db, request.companyId, request.customerId, request.request, request.today);
  } finally {
    sqlite.exec('COMMIT');
  }
  if (!heavy && data.invoices.length + (data.activity?.entries.length ?? 0) > HEAVY_LINES) await heavyTurn(id);
  return { ...(await renderStatement(data, details)), read: { customer_name: data.customer.name, as_of: data.as_of } };
}

/** One document at a time: the shared fonts' glyph caches are reset per document (pdf.ts). */
let queue: Promise<void> = Promise.resolve();

port.on('message', (input: RenderThreadInput) => {
  const { id } = input;
  if ('go' in input) {
    waitingToDraw.get(id)?.();
    waitingToDraw.delete(id);
    return;
  }
  const { request } = input;
  queue = queue
    .then(() => draw(id, request))
    .then(
      ({ pdf, missing, read }) => {
        // A small Buffer may sit in Node's shared pool: hand over a copy of its own.
        const own = pdf.byteOffset === 0 && pdf.byteLength === pdf.buffer.byteLength ? pdf : Uint8Array.prototype.slice.call(pdf);
        port.postMessage({ id, pdf: own, missing, read } satisfies RenderThreadMessage, [own.buffer as ArrayBuffer]);
      },
      (err: unknown) =>
        port.postMessage({
          id,
          error: err instanceof Error ? err.message : String(err),
          problem: err instanceof DomainError ? { status: err.status, code: err.code, message: err.message, errors: err.errors } : undefined,
        } satisfies RenderThreadMessage),
    );
});
