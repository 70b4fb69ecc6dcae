/**
 * The webhooks' own lane: a loop of the server, apart from the job worker's lanes, that turns new
 * changes into events and sends the deliveries due. Network waits are asynchronous and each write
 * is a short transaction, so neither requests nor customer sends wait behind it.
 */
import { timestamp } from '../clock';
import type { Engine } from '../engine';
import { deliverDue, type DeliveryOptions } from './deliver';
import { materializeEvents } from './materialize';
import { pruneEvents } from './retention';

export interface WebhookLoop {
  /** One pass now (tests and the loop itself). */
  pass(): Promise<void>;
  stop(): Promise<void>;
}

export function startWebhookLoop(engine: Engine, options: DeliveryOptions & { everyMs: number; onError: (err: unknown) => void }): WebhookLoop {
  let stopped = false;
  let prunedHour = '';
  const pass = async () => {
    await materializeEvents(engine);
    // Old events go once an hour (the first pass after a start too).
    const now = timestamp(engine.clock);
    if (now.slice(0, 13) !== prunedHour) {
      await pruneEvents(engine, now);
      prunedHour = now.slice(0, 13);
    }
    // A full batch delivered: the next one at once, not after the pause.
    for (let round = 0; round < 20 && !stopped; round++) {
      const { delivered, failed } = await deliverDue(engine, options);
      if (delivered + failed === 0) break;
    }
  };
  let inFlight: Promise<void> | null = null;
  const run = () => (inFlight ??= pass().finally(() => (inFlight = null)));
  const tick = () => {
    if (!inFlight) run().catch(options.onError);
  };
  const timer = setInterval(tick, options.everyMs);
  timer.unref();
  tick();
  return {
    async pass() {
      await inFlight?.catch(() => undefined);
      await run();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await inFlight?.catch(() => undefined);
    },
  };
}
