/**
 * The portal's rate limits, in memory (a restart forgets them, which gives a guesser one more window
 * and keeps every request free of writes). Per address: unknown links (a guesser) and all requests;
 * per link: all requests, and submissions. Each budget is a count within a sliding window. Keys are
 * bounded: past MAX_KEYS the oldest are dropped, so a flood of addresses cannot grow memory.
 */
import { addressKey } from '../auth/throttle';
import type { Clock } from '../clock';

export interface Budget {
  limit: number;
  windowMs: number;
}

export const PORTAL_LIMITS = {
  /** Unknown, expired or revoked links opened from one address. */
  misses: { limit: 20, windowMs: 15 * 60_000 },
  /** Every portal request of one address. */
  address: { limit: 600, windowMs: 10 * 60_000 },
  /** Every request on one link (pages, downloads). */
  link: { limit: 300, windowMs: 10 * 60_000 },
  /** Forms sent on one link. */
  submissions: { limit: 30, windowMs: 60 * 60_000 },
} as const satisfies Record<string, Budget>;

export type BudgetName = keyof typeof PORTAL_LIMITS;

export const MAX_KEYS = 50_000;

/** The times still inside the window, and whether one more fits. */
export function withinBudget(times: number[], now: number, budget: Budget): { recent: number[]; fits: boolean } {
  const recent = times.filter((t) => now - t < budget.windowMs);
  return { recent, fits: recent.length < budget.limit };
}

export class PortalLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    private readonly clock: Clock,
    private readonly limits: Record<BudgetName, Budget> = PORTAL_LIMITS,
  ) {}

  /** Whether one more request fits `name`'s budget for `subject` (an address or a link id); counts it when it does. */
  take(name: BudgetName, subject: string): boolean {
    const key = `${name}:${name === 'misses' || name === 'address' ? addressKey(subject) : subject}`;
    const now = this.clock.now().getTime();
    const { recent, fits } = withinBudget(this.hits.get(key) ?? [], now, this.limits[name]);
    if (fits) recent.push(now);
    this.hits.delete(key);
    if (recent.length) this.hits.set(key, recent);
    while (this.hits.size > MAX_KEYS) this.hits.delete(this.hits.keys().next().value as string);
    return fits;
  }

  /** Whether `name`'s budget for `subject` is spent, without counting. */
  spent(name: BudgetName, subject: string): boolean {
    const key = `${name}:${name === 'misses' || name === 'address' ? addressKey(subject) : subject}`;
    return !withinBudget(this.hits.get(key) ?? [], this.clock.now().getTime(), this.limits[name]).fits;
  }
}
