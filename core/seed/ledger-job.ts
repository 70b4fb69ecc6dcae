/**
 * One company's generated ledger as a job that runs in this thread or in a worker thread: its
 * inputs are plain data (the random streams and the id sequence are rebuilt from their seeds and
 * position), and its rows leave as chunks for the writer. In a worker, generating the next rows
 * overlaps with SQLite writing the previous ones.
 */
import { join } from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { Calendar } from './calendar';
import { ChunkPacker, chunkRowsFor, type LedgerChunk } from './chunks';
import { generateLedger, type LedgerResult, type LedgerSink, type LedgerSpec } from './ledger';
import { createRng, idFactory } from './random';
import { type ReplicaState, TriggerReplica } from './replica';

/** A ledger's inputs as plain data: the spec without its live random stream, id sequence and calendar. */
export interface LedgerJob extends Omit<LedgerSpec, 'rng' | 'ids' | 'calendar'> {
  /** The ledger's random stream: createRng(seed, stream). */
  seed: number;
  stream: number;
  /** The seed's id sequence, resumed at `start`: idFactory(seed, baseMs, start). */
  ids: { seed: number; baseMs: number; start: number };
  /** The seed's today (its Calendar). */
  today: string;
  /** Also accumulate what the bulk path's set-aside triggers would have written. */
  replica: boolean;
}

export interface LedgerJobResult {
  ledger: LedgerResult;
  replica: ReplicaState | null;
  /** Ids the job drew from the sequence: the caller skips them. */
  idsDrawn: number;
}

export function runLedgerJob(job: LedgerJob, onChunk: (chunk: LedgerChunk) => void): LedgerJobResult {
  const ids = idFactory(job.ids.seed, job.ids.baseMs, job.ids.start);
  const packer = new ChunkPacker(onChunk, chunkRowsFor(job.invoices));
  const replica = job.replica ? new TriggerReplica() : null;
  const sink: LedgerSink = replica
    ? {
        customer(row) {
          packer.customer(row);
          replica.customer(row);
        },
        contact: (row) => packer.contact(row),
        location: (row) => packer.location(row),
        invoiceLabel: (row) => packer.invoiceLabel(row),
        snapshot: (row) => packer.snapshot(row),
        invoice(row) {
          packer.invoice(row);
          replica.invoice(row);
        },
        payment(row) {
          packer.payment(row);
          replica.payment(row);
        },
      }
    : packer;
  const ledger = generateLedger(
    {
      companyId: job.companyId,
      companySlug: job.companySlug,
      invoices: job.invoices,
      customers: job.customers,
      curated: job.curated,
      arOwners: job.arOwners,
      salesOwners: job.salesOwners,
      labels: job.labels,
      rng: createRng(job.seed, job.stream),
      ids,
      calendar: new Calendar(job.today),
      firstInvoiceNumber: job.firstInvoiceNumber,
      spanDays: job.spanDays,
    },
    sink,
  );
  packer.flush();
  return { ledger, replica: replica?.state ?? null, idsDrawn: ids.drawn - job.ids.start };
}

/** What the worker thread posts: a chunk of rows, its result, or why it failed. */
export type LedgerThreadMessage = { type: 'chunk'; chunk: LedgerChunk } | { type: 'done'; result: LedgerJobResult } | { type: 'failed'; error: string };

/** Chunks the worker may run ahead of the writer: enough to keep both threads busy, bounded in memory. */
export const CHUNKS_AHEAD = 4;
/** Slots of the shared counters: chunks posted by the worker, chunks written by the caller. */
export const POSTED = 0;
export const WRITTEN = 1;
/** A worker silent this long (while the caller waits for it) is taken for dead. */
const SILENCE_LIMIT_MS = 120_000;

/**
 * Runs the job in a worker thread and hands each chunk to `write` in this thread, synchronously
 * (the caller holds a transaction open on its connection). The worker runs at most CHUNKS_AHEAD
 * chunks ahead. Needs tsx (the CLI's runtime): the worker loads the TypeScript sources.
 */
export function runLedgerJobInWorker(job: LedgerJob, write: (chunk: LedgerChunk) => void): LedgerJobResult {
  const { port1, port2 } = new MessageChannel();
  const flow = new Int32Array(new SharedArrayBuffer(8));
  const worker = new Worker(join(__dirname, 'ledger-worker.cjs'), { workerData: { job, port: port2, flow }, transferList: [port2] });
  try {
    let silentSince = performance.now();
    for (;;) {
      const posted = Atomics.load(flow, POSTED);
      const received = receiveMessageOnPort(port1);
      if (!received) {
        if (Atomics.wait(flow, POSTED, posted, 1000) === 'timed-out' && performance.now() - silentSince > SILENCE_LIMIT_MS) {
          throw new Error('The ledger generator thread stopped answering');
        }
        continue;
      }
      const message = received.message as LedgerThreadMessage;
      if (message.type === 'failed') throw new Error(`The ledger generator failed: ${message.error}`);
      if (message.type === 'done') return message.result;
      write(message.chunk);
      Atomics.add(flow, WRITTEN, 1);
      Atomics.notify(flow, WRITTEN);
      silentSince = performance.now();
    }
  } finally {
    port1.close();
    void worker.terminate();
  }
}
