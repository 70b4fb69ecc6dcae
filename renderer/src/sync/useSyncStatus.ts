import { useCallback, useEffect, useState } from 'react';
import type { Response } from '../api/client';
import { api } from '../state/session';

export type SyncStatus = Response<'/api/v1/sync/status'>;

/** Polls the local server's sync state; faster while a download runs, so its progress moves. */
export function useSyncStatus(everyMs: number): { status: SyncStatus | null; error: unknown; reload: () => void } {
  const [status, setStatus] = useState<SyncStatus | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [attempt, setAttempt] = useState(0);
  const downloading = status?.transfer?.state === 'running';
  useEffect(() => {
    let live = true;
    const load = () =>
      api
        .get('/api/v1/sync/status', {})
        .then((s) => {
          if (!live) return;
          setStatus(s);
          setError(null);
        })
        .catch((err: unknown) => live && setError(err));
    load();
    const timer = setInterval(load, downloading ? Math.min(everyMs, 500) : everyMs);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [everyMs, downloading, attempt]);
  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  return { status, error, reload };
}
