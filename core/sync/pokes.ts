/**
 * The team server tells connected desktops when a company changed, so they pull at once. It
 * watches the version counter (every writer bumps it: pushes, scripts, jobs, other processes) and
 * pokes the subscribers of the companies whose rows moved past the last version it saw.
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
    const changed = engine.database.sqlite.prepare('SELECT DISTINCT company_id FROM sync_rows WHERE version > ?').all(seen) as Array<{ company_id: string | null }>;
    seen = version;
    for (const { company_id } of changed) {
      if (!company_id) continue;
      for (const s of subscribers) if (s.companies.has(company_id)) s.listener(company_id);
    }
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
