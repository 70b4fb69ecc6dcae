/**
 * Who holds a job's lease: this process, named by host, pid and a random id drawn when the process
 * started. The pid says whether the owner can still be running; the random id tells this process
 * from an earlier one that had the same pid (a restarted container often gets the same low pid).
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

export interface LeaseOwner {
  host: string;
  pid: number;
  id: string;
}

export const thisProcess: LeaseOwner = { host: hostname(), pid: process.pid, id: randomUUID() };

export function ownerToken(owner: LeaseOwner): string {
  return `${owner.pid}:${owner.id}@${owner.host}`;
}

export function parseOwner(token: string | null): LeaseOwner | null {
  const m = token ? /^(\d+):([^@]+)@(.*)$/.exec(token) : null;
  return m ? { pid: Number(m[1]), id: m[2], host: m[3] } : null;
}

/** Whether a process with this pid exists on this host (one we may not signal still exists). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the lease's owner is known to be gone: an earlier process with this process's pid, or a
 * pid no process of this host has. Unknown (another host's process, a lease from before owners
 * were recorded): false, and the lease's age decides.
 */
export function ownerGone(token: string | null, self: LeaseOwner, alive: (pid: number) => boolean = pidAlive): boolean {
  const owner = parseOwner(token);
  if (!owner || owner.host !== self.host) return false;
  if (owner.pid === self.pid) return owner.id !== self.id;
  return !alive(owner.pid);
}
