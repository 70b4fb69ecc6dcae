import { createEngine, type Engine, type EngineOptions } from '../engine';
import { setPromiseReader } from '../holds/store';
import { readReply } from '../replies/reading';
import { ensureSyncTriggers } from '../sync/triggers';

/** The chase holds read a promise in a reply recorded before readings were kept the way replies are read (holds sit below replies). */
setPromiseReader((subject, body, saidAt) => {
  const reading = readReply(subject, body, saidAt);
  return reading.kind === 'promise' ? reading.date : null;
});

/**
 * The engine as every ardesk process opens it: the core engine, with sync's triggers replaced
 * whenever the schema or the database's sync role changed, so every writer stamps what sync sends,
 * and with the lower areas' hooks wired (above).
 */
export function openEngine(options: Omit<EngineOptions, 'afterMigrate'>): Promise<Engine> {
  return createEngine({ ...options, afterMigrate: ensureSyncTriggers });
}
