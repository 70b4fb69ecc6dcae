/**
 * Drawing documents off the server's event loop, in bounded memory. Reading a document's figures
 * is quick (SQLite); drawing and compressing it is not (a 5,000-invoice statement, or a job making
 * 1,000 invoice copies, held every request for as long). So a small pool of worker threads draws:
 * each gets plain data (the figures, the company details with a bounded logo) and answers with the
 * file.
 *
 * Bounds: at most POOL_SIZE documents are read and drawn at once, each thread under a heap limit;
 * further documents wait in a queue of at most MAX_WAITING (beyond it: 429 with Retry-After). A
 * document is read only once its turn comes, so twelve long statements asked for at once hold the
 * figures of two, not twelve. A thread that runs out of memory fails that document alone, with
 * words saying so, and the next document starts a fresh thread.
 *
 * Threads start on the first document and stop after a while without work; an idle thread never
 * keeps the process alive.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { DomainError, type FieldErrors, TooManyRequestsError } from '../errors';
import type { DocumentDetailsWithLogo } from './details';
import type { InvoiceDocumentData } from './draw-invoice';
import type { StatementData } from './draw-statement';
import type { StatementRequest } from './statement-data';
import { drawableLogo } from './logo';

/** What a thread is asked to draw: the figures as read, nothing it has to look up. */
export type RenderRequest =
  | { kind: 'invoice'; data: InvoiceDocumentData; details: DocumentDetailsWithLogo; today: string }
  | { kind: 'statement'; data: StatementData; details: DocumentDetailsWithLogo }
  /** A statement the thread reads itself, from the database file on a read-only connection of its own. */
  | { kind: 'statement-read'; file: string; companyId: string; customerId: string; request: StatementRequest; today: string; details: DocumentDetailsWithLogo };

/** What a thread read, for naming the file (statement-read). */
export interface ReadSummary {
  customer_name: string;
  as_of: string;
}

/** A refusal of the core (not found, too long) made on the thread, rebuilt as the same DomainError here. */
export interface ThreadProblem {
  status: number;
  code: string;
  message: string;
  errors?: FieldErrors;
}

export type RenderThreadMessage =
  | { id: number; pdf: Uint8Array; missing: string[]; read?: ReadSummary }
  | { id: number; error: string; problem?: ThreadProblem }
  /** A statement read on the thread is long: it waits for the heavy turn before drawing. */
  | { id: number; heavy: true };

/** What a thread is sent: a document, or the go-ahead for a long one that asked for the heavy turn. */
export type RenderThreadInput = { id: number; request: RenderRequest } | { id: number; go: true };

/** A statement with more lines than this (some 100 pages) draws only when no other such statement is drawing. */
export const HEAVY_LINES = 5_000;

/** A drawn file, with the characters no bundled font could draw (pdf.ts), for the reader to be told. */
export interface Rendered {
  pdf: Buffer;
  missing: string[];
  read?: ReadSummary;
}

/** Two threads: a statement asked for on the customer page is not queued behind a job's documents. */
const POOL_SIZE = Math.max(1, Math.min(2, availableParallelism()));
/** Documents waiting for a thread; more than this at once is a client to slow down. */
export const MAX_WAITING = 64;
/** A thread idle this long stops (each holds its parsed fonts, some tens of MB). */
const IDLE_MS = 30_000;
/**
 * Each thread's heap: the longest statement allowed (statement-data.ts MAX_STATEMENT_LINES, ~3,000
 * pages) draws within 160 MB, the default; past it the thread stops and the document fails, never the process.
 * A lower limit also makes V8 collect sooner, which keeps two long statements at once near 1 GB.
 */
export const THREAD_LIMITS = { maxOldGenerationSizeMb: heapLimitMb(process.env.ARDESK_DOCUMENT_THREAD_MB), maxYoungGenerationSizeMb: 16, stackSizeMb: 4 } as const;

/** The operator's ARDESK_DOCUMENT_THREAD_MB (16 to 4096), else 160. */
export function heapLimitMb(value: string | undefined): number {
  const mb = Number(value);
  return Number.isInteger(mb) && mb >= 16 && mb <= 4096 ? mb : 160;
}

/** A document that could not be drawn within a thread's memory: the request's 422, a job's error. */
export class DocumentTooLargeError extends DomainError {
  constructor() {
    super(
      422,
      'document_too_large',
      `This document needs more than the ${THREAD_LIMITS.maxOldGenerationSizeMb} MB one document may use and was not made. For a statement, ask for a shorter period or download it as CSV (statement.csv).`,
    );
  }
}

interface Thread {
  worker: Worker;
  idleTimer: NodeJS.Timeout | null;
  stopped: boolean;
  /** It drew a long statement: its heap grew to hold it, so it stops rather than keep that memory. */
  retire: boolean;
  /** The document in hand, settled by its answer or by the thread's death. */
  task: { id: number; heavy: boolean; resolve: (drawn: Rendered) => void; reject: (err: Error) => void } | null;
}

const idle: Thread[] = [];
let running = 0;
const queue: Array<() => void> = [];
let nextId = 1;

/** The bundled entry (the Electron build puts it beside its main bundle), else the source's. */
function entry(): string {
  const bundled = join(__dirname, 'render-thread.js');
  return existsSync(bundled) ? bundled : join(__dirname, 'render-thread.cjs');
}

function startThread(): Thread {
  const thread: Thread = { worker: new Worker(entry(), { resourceLimits: THREAD_LIMITS }), idleTimer: null, stopped: false, retire: false, task: null };
  thread.worker.on('message', (message: RenderThreadMessage) => {
    const task = thread.task;
    if (!task || task.id !== message.id) return;
    if ('heavy' in message) {
      task.heavy = true;
      thread.retire = true;
      void heavyTurn(task).then(() => (thread.task === task ? thread.worker.postMessage({ id: task.id, go: true } satisfies RenderThreadInput) : leaveHeavy(task)));
      return;
    }
    thread.task = null;
    if (task.heavy) leaveHeavy(task);
    if ('error' in message) {
      const p = message.problem;
      task.reject(p ? new DomainError(p.status, p.code, p.message, p.errors) : new Error(`Drawing the document failed: ${message.error}`));
    } else task.resolve({ pdf: Buffer.from(message.pdf.buffer, message.pdf.byteOffset, message.pdf.byteLength), missing: message.missing, read: message.read });
  });
  let failure: Error | null = null;
  thread.worker.on('error', (err: Error & { code?: string }) => {
    failure = err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new DocumentTooLargeError() : err;
  });
  thread.worker.on('exit', (code) => {
    thread.stopped = true;
    const index = idle.indexOf(thread);
    if (index >= 0) idle.splice(index, 1);
    if (thread.idleTimer) clearTimeout(thread.idleTimer);
    const task = thread.task;
    thread.task = null;
    if (task?.heavy) leaveHeavy(task);
    task?.reject(failure ?? new Error(`The document thread stopped (exit code ${code})`));
  });
  return thread;
}

/** A thread for the caller whose turn it is: an idle one, else a fresh one (the pool has room). */
function takeThread(): Thread {
  const thread = idle.pop() ?? startThread();
  if (thread.idleTimer) {
    clearTimeout(thread.idleTimer);
    thread.idleTimer = null;
  }
  thread.worker.ref();
  return thread;
}

function returnThread(thread: Thread): void {
  // A thread that died is not returned: the next document starts another.
  if (thread.stopped) return;
  if (thread.retire) {
    void thread.worker.terminate();
    return;
  }
  // An idle thread keeps no process alive (a stopped server exits at once); one drawing does.
  thread.worker.unref();
  thread.idleTimer = setTimeout(() => {
    // Out of the idle list first, so no document is handed to a thread on its way out.
    idle.splice(idle.indexOf(thread), 1);
    void thread.worker.terminate();
  }, IDLE_MS);
  thread.idleTimer.unref();
  idle.push(thread);
}

async function turn(): Promise<void> {
  if (running < POOL_SIZE) {
    running++;
    return;
  }
  if (queue.length >= MAX_WAITING) throw new TooManyRequestsError(`${MAX_WAITING} documents are waiting to be made; try again in a few seconds`, 5);
  await new Promise<void>((resolve) => queue.push(resolve));
}

function leave(): void {
  const next = queue.shift();
  if (next) next();
  else running--;
}

/**
 * The heavy turn: two 2,500-page statements drawing at once took some 400 MB each; one at a time
 * (the other document thread draws everything else meanwhile) keeps the process near half that.
 */
let heavyHolder: object | null = null;
const heavyQueue: Array<{ owner: object; go: () => void }> = [];

function heavyTurn(owner: object): Promise<void> {
  if (heavyHolder === null) {
    heavyHolder = owner;
    return Promise.resolve();
  }
  return new Promise((go) => heavyQueue.push({ owner, go }));
}

/** Gives the heavy turn back (or leaves its queue) for a task that is done. */
function leaveHeavy(owner: object): void {
  if (heavyHolder !== owner) {
    const index = heavyQueue.findIndex((w) => w.owner === owner);
    if (index >= 0) heavyQueue.splice(index, 1);
    return;
  }
  const next = heavyQueue.shift();
  heavyHolder = next ? next.owner : null;
  next?.go();
}

/** Runs `work` in its turn among the documents being made (a long CSV statement waits like a PDF). */
export async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  await turn();
  try {
    return await work();
  } finally {
    leave();
  }
}

function draw(thread: Thread, request: RenderRequest): Promise<Rendered> {
  const id = nextId++;
  return new Promise<Rendered>((resolve, reject) => {
    thread.task = { id, heavy: false, resolve, reject };
    thread.worker.postMessage({ id, request } satisfies RenderThreadInput);
  });
}

/**
 * Waits for a turn (bounded queue), then reads the document (`read`) and draws it on a thread:
 * the figures are held only while the document is made. Answers with the file and what was read.
 */
export function renderDocument<R extends RenderRequest>(read: () => Promise<R>): Promise<Rendered & { request: R }> {
  return inTurn(async () => {
    const request = await read();
    const logo = request.details.logoData && request.details.logo ? await drawableLogo(request.details.logoData, request.details.logo.type) : null;
    const details: DocumentDetailsWithLogo = { ...request.details, logoData: logo, logo: logo ? { type: 'image/png', bytes: logo.length } : null };
    const thread = takeThread();
    try {
      return { ...(await draw(thread, { ...request, details })), request };
    } finally {
      returnThread(thread);
    }
  });
}

/** Draws a document already read on a thread (its turn in the same queue). */
export async function renderOffThread(request: RenderRequest): Promise<Rendered> {
  const { pdf, missing, read } = await renderDocument(async () => request);
  return { pdf, missing, read };
}
