/**
 * Time is a dependency: statuses and aging are computed from "today", so every part of the core
 * takes a Clock and tests fix it.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export function fixedClock(iso: string): Clock & { set(iso: string): void } {
  let current = new Date(iso);
  return {
    now: () => new Date(current.getTime()),
    set(next: string) {
      current = new Date(next);
    },
  };
}

/** Today's date (UTC) as YYYY-MM-DD. */
export function today(clock: Clock): string {
  return clock.now().toISOString().slice(0, 10);
}

export function timestamp(clock: Clock): string {
  return clock.now().toISOString();
}
