import { createEngine, type Engine, type EngineOptions } from '../engine';
import { promiseIn } from '../intelligence/promises';
import { setPromiseReader } from '../holds/store';
import { ensureSyncTriggers } from '../sync/triggers';

/** The chase holds read a promise in a customer's reply the way the engine reads it (sequences sit below intelligence). */
setPromiseReader((text, saidAt) => promiseIn({ id: '', invoiceId: null, kind: 'email', direction: 'inbound', subject: null, body: text, occurredAt: saidAt, authorName: null, promiseDate: null, promiseAmount: null })?.date ?? null);

/**
 * The engine as every ardesk process opens it: the core engine, with sync's triggers replaced
 * whenever the schema or the database's sync role changed, so every writer stamps what sync sends,
 * and with the lower areas' hooks wired (above).
 */
export function openEngine(options: Omit<EngineOptions, 'afterMigrate'>): Promise<Engine> {
  return createEngine({ ...options, afterMigrate: ensureSyncTriggers });
}
