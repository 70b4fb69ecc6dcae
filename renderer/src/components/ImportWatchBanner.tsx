import { useEffect, useState } from 'react';
import type { Schemas } from '../api/client';
import { useConnection } from '../state/connection';
import { companyPath, useRoute } from '../state/route';
import { api } from '../state/session';

/** A message as a sentence: the run log's words end without a full stop. */
const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/** How often the frame asks how the last nightly import went. */
const IMPORT_WATCH_MS = 5 * 60_000;

/**
 * The nightly re-import failed: the figures are as of the last good run. Shown until a run
 * succeeds, with what went wrong in words and where to look.
 */
export function ImportWatchBanner({ companyId }: { companyId: string }) {
  const [run, setRun] = useState<Schemas['ImportRun'] | null>(null);
  const server = useConnection((s) => s.server);
  const navigate = useRoute((s) => s.navigate);
  useEffect(() => {
    let live = true;
    const load = () =>
      api
        .get('/api/companies/{company_id}/import-watch', { path: { company_id: companyId } })
        .then((r) => live && setRun(r.watch?.enabled ? r.watch.last_run : null))
        .catch(() => {
          // Unreachable server: the server banner says so; keep the last known state.
        });
    if (server) void load();
    const timer = setInterval(load, IMPORT_WATCH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [companyId, server]);
  if (!run || run.status !== 'failed') return null;
  const settings = companyPath(companyId, 'settings');
  const when = new Date(run.started_at).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  return (
    <div className="frame-banner banner-warn" role="status" data-testid="import-watch-warning">
      <strong>The nightly import failed ({when}).</strong> {sentence(run.message ?? 'It gave no reason')} The figures are as of the last import that went through.{' '}
      <a
        href={settings}
        onClick={(e) => {
          e.preventDefault();
          navigate(settings);
        }}
      >
        See the import in Settings
      </a>
    </div>
  );
}
