import { companyPath, useRoute } from '../state/route';
import { api } from '../state/session';
import { useServerPoll } from './useServerPoll';

/** A message as a sentence: the run log's words end without a full stop. */
const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/** How often the frame asks how the last nightly import went. */
const IMPORT_WATCH_MS = 5 * 60_000;

/**
 * The nightly re-import failed: the figures are as of the last good run. Shown until a run
 * succeeds, with what went wrong in words and where to look.
 */
export function ImportWatchBanner({ companyId }: { companyId: string }) {
  const navigate = useRoute((s) => s.navigate);
  const watch = useServerPoll(() => api.get('/api/companies/{company_id}/import-watch', { path: { company_id: companyId } }), IMPORT_WATCH_MS, [companyId]);
  const run = watch?.watch?.enabled ? watch.watch.last_run : null;
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
