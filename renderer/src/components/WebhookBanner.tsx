import { companyPath, useRoute } from '../state/route';
import { api, useSession } from '../state/session';
import { useServerPoll } from './useServerPoll';

/** How often the frame asks whether a webhook was turned off. */
const WEBHOOKS_MS = 5 * 60_000;

/**
 * A webhook turned off after days of failed deliveries: its owners see it on every page until it
 * is fixed and turned on again (Settings › Webhooks), since a script downstream now misses events.
 */
export function WebhookBanner({ companyId }: { companyId: string }) {
  const isOwner = useSession((s) => s.companies.find((c) => c.id === companyId)?.role === 'owner');
  const navigate = useRoute((s) => s.navigate);
  const hooks = useServerPoll(isOwner ? () => api.get('/api/companies/{company_id}/webhooks', { path: { company_id: companyId } }) : null, WEBHOOKS_MS, [companyId, isOwner]);
  const off = hooks?.data.filter((w) => w.disabled_at !== null) ?? [];
  if (!isOwner || off.length === 0) return null;
  const settings = companyPath(companyId, 'settings', 'webhooks');
  return (
    <div className="frame-banner banner-warn" role="status" data-testid="webhook-off-warning">
      <strong>{off.length === 1 ? `The webhook to ${off[0].url} is turned off` : `${off.length} webhooks are turned off`}</strong>: every delivery failed for three days, so
      scripts receiving them miss events.{' '}
      <a
        href={settings}
        onClick={(e) => {
          e.preventDefault();
          navigate(settings);
        }}
      >
        See Webhooks in Settings
      </a>
    </div>
  );
}
