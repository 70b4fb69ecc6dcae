/**
 * Drawing documents off the server's event loop. Reading a document's figures is quick (SQLite);
 * drawing and compressing it is not (a 5,000-invoice statement, or a job making 1,000 invoice
 * copies, held every request for as long). So the caller reads the data here and a small pool of
 * worker threads draws: each gets plain data (the figures, the company details with its logo) and
 * answers with the file.
 *
 * Threads start on the first document and stop after a while without work; an idle thread never
 * keeps the process alive. A thread that dies fails the document in hand (the route answers 500, a
 * job retries) and the next document starts a fresh one.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { DocumentDetailsWithLogo } from './details';
import type { InvoiceDocumentData } from './draw-invoice';
import type { StatementData } from './draw-statement';

/** What a thread is asked to draw: the figures as read, nothing it has to look up. */
export type RenderRequest =
  | { kind: 'invoice'; data: InvoiceDocumentData; details: DocumentDetailsWithLogo; today: string }
  | { kind: 'statement'; data: StatementData; details: DocumentDetailsWithLogo };

export type RenderThreadMessage = { id: number; pdf: Uint8Array } | { id: number; error: string };

/** Two threads: a statement asked for on the customer page is not queued behind a job's documents. */
const POOL_SIZE = Math.max(1, Math.min(2, availableParallelism()));
/** A thread idle this long stops (each holds its parsed fonts, some tens of MB). */
const IDLE_MS = 30_000;

interface Slot {
  worker: Worker;
  busy: number;
  idleTimer: NodeJS.Timeout | null;
}

const slots: Slot[] = [];
const waiting = new Map<number, { slot: Slot; resolve: (pdf: Buffer) => void; reject: (err: Error) => void }>();
let nextId = 1;

/** The bundled entry (the Electron build puts it beside its main bundle), else the source's. */
function entry(): string {
  const bundled = join(__dirname, 'render-thread.js');
  return existsSync(bundled) ? bundled : join(__dirname, 'render-thread.cjs');
}

function startSlot(): Slot {
  const slot: Slot = { worker: new Worker(entry()), busy: 0, idleTimer: null };
  slot.worker.on('message', (message: RenderThreadMessage) => {
    const task = waiting.get(message.id);
    if (!task) return;
    waiting.delete(message.id);
    done(slot);
    if ('error' in message) task.reject(new Error(`Drawing the document failed: ${message.error}`));
    else task.resolve(Buffer.from(message.pdf.buffer, message.pdf.byteOffset, message.pdf.byteLength));
  });
  const fail = (err: Error) => {
    const index = slots.indexOf(slot);
    if (index >= 0) slots.splice(index, 1);
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    for (const [id, task] of waiting) {
      if (task.slot !== slot) continue;
      waiting.delete(id);
      task.reject(err);
    }
  };
  slot.worker.on('error', fail);
  slot.worker.on('exit', (code) => fail(new Error(`The document thread stopped (exit code ${code})`)));
  slots.push(slot);
  return slot;
}

function done(slot: Slot): void {
  slot.busy--;
  if (slot.busy > 0) return;
  // An idle thread keeps no process alive (a stopped server exits at once); one drawing does.
  slot.worker.unref();
  slot.idleTimer = setTimeout(() => void slot.worker.terminate(), IDLE_MS);
  slot.idleTimer.unref();
}

/** The least busy thread, a new one while the pool is not full and every thread has work. */
function pick(): Slot {
  const idle = slots.find((s) => s.busy === 0);
  if (idle) return idle;
  if (slots.length < POOL_SIZE) return startSlot();
  return slots.reduce((a, b) => (b.busy < a.busy ? b : a));
}

/** Draws the document on a worker thread and resolves with the PDF file. */
export function renderOffThread(request: RenderRequest): Promise<Buffer> {
  const slot = pick();
  if (slot.idleTimer) {
    clearTimeout(slot.idleTimer);
    slot.idleTimer = null;
  }
  slot.busy++;
  slot.worker.ref();
  const id = nextId++;
  return new Promise<Buffer>((resolve, reject) => {
    waiting.set(id, { slot, resolve, reject });
    slot.worker.postMessage({ id, request });
  });
}
