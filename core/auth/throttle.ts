import type { Clock } from '../clock';

export interface ThrottleLimits {
  /** Failures allowed for one username from one address within the window. */
  perUserAndAddress: number;
  /** Failures allowed from one address over all usernames within the window. */
  perAddress: number;
  windowMs: number;
}

export const DEFAULT_THROTTLE: ThrottleLimits = { perUserAndAddress: 5, perAddress: 30, windowMs: 15 * 60_000 };

/**
 * Failed-login throttle. Kept in memory: a restart forgets it, which only gives an attacker one
 * more window, and it keeps the login path free of writes.
 */
export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly clock: Clock,
    private readonly limits: ThrottleLimits = DEFAULT_THROTTLE,
  ) {}

  /** Seconds the caller must wait, or 0 when a login attempt may proceed. */
  retryAfter(username: string, address: string): number {
    const now = this.clock.now().getTime();
    const wait = (key: string, limit: number) => {
      const list = this.recent(key, now);
      if (list.length < limit) return 0;
      return Math.max(1, Math.ceil((list[list.length - limit] + this.limits.windowMs - now) / 1000));
    };
    return Math.max(wait(this.userKey(username, address), this.limits.perUserAndAddress), wait(`a:${address}`, this.limits.perAddress));
  }

  recordFailure(username: string, address: string): void {
    const now = this.clock.now().getTime();
    for (const key of [this.userKey(username, address), `a:${address}`]) {
      const list = this.recent(key, now);
      list.push(now);
      this.failures.set(key, list);
    }
  }

  recordSuccess(username: string, address: string): void {
    this.failures.delete(this.userKey(username, address));
  }

  private userKey(username: string, address: string): string {
    return `u:${username.toLowerCase()}|${address}`;
  }

  private recent(key: string, now: number): number[] {
    const list = (this.failures.get(key) ?? []).filter((t) => now - t < this.limits.windowMs);
    if (list.length === 0) this.failures.delete(key);
    return list;
  }
}
