/**
 * The team server tells connected desktops when a company changed, so they pull at once. It
 * watches the version counter (every writer bumps it: pushes, scripts, jobs, other processes) and
 * pokes the subscribers of the companies whose rows moved past the last version it saw. The pokes
 * of one change are spread evenly over half the polling interval: fifty desktops poked at once
 * pulled at once, and a push arriving then waited behind all fifty pulls.
 */
import type { Engine } from '../engine';

type Listener = (companyId: string) => void;

export interface PokeHub {
  subscribe(companyIds: string[], listener: Listener): () => void;
  stop(): void;
}

export function createPokeHub(engine: Engine, pollMs = 1_000): PokeHub {
  const subscribers = new Set<{ companies: Set<string>; listener: Listener }>();
  let seen: number | null = null;
  let timer: NodeJS.Timeout | null = null;
  const versionNow = () => (engine.database.sqlite.prepare('SELECT version FROM sync_state WHERE id = 1').get() as { version: number }).version;

  function check() {
    const version = versionNow();
    if (seen === null || version === seen) {
      seen = version;
      return;
    }
    // The unary + keeps SQLite on the version index: otherwise it walks the whole (company, version)
    // index for its order, every second, however few rows changed.
    const changed = engine.database.sqlite.prepare('SELECT DISTINCT +company_id AS company_id FROM sync_rows WHERE version > ?').all(seen) as Array<{ company_id: string | null }>;
    seen = version;
    const pokes: Array<() => void> = [];
    for (const { company_id } of changed) {
      if (!company_id) continue;
      for (const s of subscribers) if (s.companies.has(company_id)) pokes.push(() => s.listener(company_id));
    }
    const gap = pollMs / 2 / Math.max(pokes.length, 1);
    pokes.forEach((poke, i) => (i === 0 ? poke() : setTimeout(poke, i * gap).unref()));
  }

  return {
    subscribe(companyIds, listener) {
      const entry = { companies: new Set(companyIds), listener };
      subscribers.add(entry);
      if (!timer) {
        seen = versionNow();
        timer = setInterval(() => {
          try {
            check();
          } catch (err) {
            console.error(`ardesk: sync pokes: ${err instanceof Error ? err.message : String(err)}`);
          }
        }, pollMs);
        timer.unref();
      }
      return () => {
        subscribers.delete(entry);
        if (subscribers.size === 0 && timer) {
          clearInterval(timer);
          timer = null;
        }
      };
    },
    stop() {
      subscribers.clear();
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
