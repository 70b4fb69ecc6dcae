/**
 * The trace of one API operation as sync sees it: the named commands it ran and the identifiers it
 * created. On a desktop the trace of a local write is stored in the outbox; when the operation is
 * replayed (on the team server, or on the desktop to rebase it) the same identifiers are handed
 * out again in the same order, so a row created offline keeps its id everywhere.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface OperationTrace {
  /** Identifiers to hand out first, in order (those of the original run). */
  supply: string[];
  /** Every identifier handed out during the operation. */
  made: string[];
  /** Names of the commands the operation ran, in order. */
  commands: string[];
}

const traces = new AsyncLocalStorage<OperationTrace>();

export function newTrace(supply: string[] = []): OperationTrace {
  return { supply: [...supply], made: [], commands: [] };
}

export function withTrace<T>(trace: OperationTrace, fn: () => T): T {
  return traces.run(trace, fn);
}

export function currentTrace(): OperationTrace | undefined {
  return traces.getStore();
}
