import { isIP } from 'node:net';
import type { Clock } from '../clock';

export interface ThrottleLimits {
  /** Failed or in-flight password checks allowed for one username (from anywhere) within the window. */
  perUser: number;
  /** Failed or in-flight password checks allowed from one address (all loopback is one) within the window. */
  perAddress: number;
  windowMs: number;
}

export const DEFAULT_THROTTLE: ThrottleLimits = { perUser: 5, perAddress: 30, windowMs: 15 * 60_000 };

/**
 * The throttle key of a peer address. Every loopback address (127.0.0.0/8, ::1, and their
 * IPv4-mapped forms) is one client: spreading guesses over 127.0.0.x gains nothing. An IPv6 peer
 * is keyed by its /64, the block one host can pick addresses from.
 */
export function addressKey(address: string): string {
  const plain = address.toLowerCase().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
  if (plain === '::1' || plain === 'local' || (isIP(plain) === 4 && plain.startsWith('127.'))) return 'loopback';
  if (isIP(plain) === 6) {
    const [head, tail = ''] = plain.split('::');
    const left = head ? head.split(':') : [];
    const right = tail ? tail.split(':') : [];
    const groups = plain.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
    return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
  }
  return plain;
}

/** A password check that was allowed to run: settle it exactly once with its outcome. */
export interface LoginAttempt {
  succeeded(): void;
  failed(): void;
}

/**
 * Failed-login throttle. An attempt is reserved (counted) before the password is hashed, in the
 * same synchronous step as the check, so a concurrent burst cannot get more checks than the
 * budget: a check in flight counts as a failure until it settles. Kept in memory: a restart
 * forgets it, which only gives an attacker one more window, and it keeps the login path free of
 * writes.
 */
export class LoginThrottle {
  /** Times of failures (settled) per key. */
  private readonly failures = new Map<string, number[]>();
  /** Password checks in flight per key. */
  private readonly inFlight = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly limits: ThrottleLimits = DEFAULT_THROTTLE,
  ) {}

  /**
   * Reserves one password check for this username and address, or says how many seconds to wait
   * (a number) when either budget is spent by failures and checks in flight.
   */
  reserve(username: string, address: string): LoginAttempt | number {
    const now = this.clock.now().getTime();
    const user = `u:${username.toLowerCase()}`;
    const addr = `a:${addressKey(address)}`;
    const wait = Math.max(this.wait(user, this.limits.perUser, now), this.wait(addr, this.limits.perAddress, now));
    if (wait > 0) return wait;
    for (const key of [user, addr]) this.inFlight.set(key, (this.inFlight.get(key) ?? 0) + 1);
    let settled = false;
    const settle = (failed: boolean) => {
      if (settled) return;
      settled = true;
      const at = this.clock.now().getTime();
      for (const key of [user, addr]) {
        const left = (this.inFlight.get(key) ?? 1) - 1;
        if (left > 0) this.inFlight.set(key, left);
        else this.inFlight.delete(key);
        if (failed) this.failures.set(key, [...this.recent(key, at), at]);
      }
      // A success clears the user's failures (not the address's: one right password among many
      // usernames does not refill a sprayer's budget).
      if (!failed) this.failures.delete(user);
    };
    return { succeeded: () => settle(false), failed: () => settle(true) };
  }

  /** Seconds until one more check fits in the key's budget, 0 when it fits now. */
  private wait(key: string, limit: number, now: number): number {
    const failures = this.recent(key, now);
    const pending = this.inFlight.get(key) ?? 0;
    if (failures.length + pending < limit) return 0;
    // The oldest failures expire first; checks in flight settle within a second.
    const lastToExpire = failures.length + pending - limit;
    if (lastToExpire >= failures.length) return 1;
    return Math.max(1, Math.ceil((failures[lastToExpire] + this.limits.windowMs - now) / 1000));
  }

  private recent(key: string, now: number): number[] {
    const list = (this.failures.get(key) ?? []).filter((t) => now - t < this.limits.windowMs);
    if (list.length === 0) this.failures.delete(key);
    else this.failures.set(key, list);
    return list;
  }
}
