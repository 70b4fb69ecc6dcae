/**
 * Work that is queued on a clock while the app stays open (the day's snapshots and promise
 * follow-ups, the week's digests, the night's re-imports, the replies to read): each queuer runs
 * at start and then every `everyMs`. A queuer only adds idempotent jobs, so a tick that finds its
 * day's job already queued adds nothing; the jobs themselves run on the worker lanes.
 */
export interface Recurring {
  /** Stops the timer and waits for a queuing in progress, so the database can be closed after. */
  stop(): Promise<void>;
}

/** Runs every queuer now and then every `everyMs`; an `everyMs` of 0 runs none of them, not even now. */
export function startRecurring(queuers: Array<() => Promise<unknown>>, everyMs: number, onError: (err: unknown) => void): Recurring {
  let inFlight: Promise<unknown> = Promise.resolve();
  const tick = () => {
    inFlight = Promise.all(queuers.map((queue) => queue().catch(onError)));
  };
  let timer: NodeJS.Timeout | undefined;
  if (everyMs > 0) {
    tick();
    timer = setInterval(tick, everyMs);
    timer.unref();
  }
  return {
    async stop() {
      clearInterval(timer);
      await inFlight;
    },
  };
}
