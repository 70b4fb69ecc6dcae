import { type ReactNode, useCallback, useEffect, useState } from 'react';
import type { Schemas } from '../api/client';
import { useConnection } from '../state/connection';
import { companyPath, type Section, useRoute } from '../state/route';
import { api, type Company, useSession } from '../state/session';
import { documentTitle, usePageDetail } from '../state/title';
import { toast } from '../state/toasts';
import { describeError } from './ErrorBox';
import { SyncIndicator } from '../sync/SyncIndicator';
import { NewCompanyButton } from '../onboarding/NewCompany';
import { ImportWatchBanner } from './ImportWatchBanner';
import { WebhookBanner } from './WebhookBanner';

const NAV: Array<{ section: Section; label: string; icon: string }> = [
  { section: 'invoices', label: 'Invoices', icon: '▤' },
  { section: 'customers', label: 'Customers', icon: '◧' },
  { section: 'actions', label: 'Actions', icon: '✓' },
  { section: 'sequences', label: 'Sequences', icon: '⇶' },
  { section: 'queue', label: 'Queue', icon: '☰' },
  { section: 'team', label: 'Team', icon: '◎' },
  { section: 'cash', label: 'Cash', icon: '¤' },
  { section: 'analytics', label: 'Analytics', icon: '▥' },
  { section: 'insights', label: 'Insights', icon: '✦' },
  { section: 'settings', label: 'Settings', icon: '⚙' },
];

/** Pages outside the navigation, named in the title. */
const OTHER_PAGES: Partial<Record<Section, string>> = { customers: 'Customers' };

/** How often the indicator checks that the local server still answers; more often while it does not. */
const PING_MS = 15_000;
const PING_DOWN_MS = 2_000;

function useServerPing() {
  const network = useConnection((s) => s.network);
  // Fast while any request fails, and until the check itself has seen the server back (another
  // request succeeding first must not slow the check that reloads the views).
  const fast = useConnection((s) => !s.server || s.lost);
  const ping = useCallback(() => {
    const { checked } = useConnection.getState();
    api.get('/api/v1/setup/', {}).then(
      () => checked(true),
      () => checked(false),
    );
  }, []);
  // At once on start and when the network comes or goes; then on a timer, faster while the server is gone.
  useEffect(() => ping(), [network, ping]);
  useEffect(() => {
    const timer = setInterval(ping, fast ? PING_DOWN_MS : PING_MS);
    return () => clearInterval(timer);
  }, [fast, ping]);
}

/** How often the frame asks whether email can go out. */
const EMAIL_HEALTH_MS = 60_000;

/** A worded warning when reminders cannot go out, with the way to fix it. */
function EmailWarning({ companyId }: { companyId: string }) {
  const [health, setHealth] = useState<Schemas['EmailHealth'] | null>(null);
  const server = useConnection((s) => s.server);
  const navigate = useRoute((s) => s.navigate);
  useEffect(() => {
    let live = true;
    const load = () =>
      api
        .get('/api/companies/{company_id}/email-health', { path: { company_id: companyId } })
        .then((h) => live && setHealth(h))
        .catch(() => {
          // Unreachable server: the server banner says so; keep the last known state.
        });
    if (server) void load();
    const timer = setInterval(load, EMAIL_HEALTH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [companyId, server]);
  if (!health || health.status === 'ok') return null;
  const settings = companyPath(companyId, 'settings');
  return (
    <div className="frame-banner banner-warn" role="status" data-testid="email-warning">
      <strong>{health.status === 'missing' ? 'Email is not set up.' : `Email is not going out${health.connection_name ? ` (${health.connection_name})` : ''}.`}</strong> {health.message}{' '}
      <a
        href={settings}
        onClick={(e) => {
          e.preventDefault();
          navigate(settings);
        }}
      >
        Fix it in Settings
      </a>
    </div>
  );
}

/** While the local server does not answer: what that means for the screen. */
function ServerDownBanner() {
  const server = useConnection((s) => s.server);
  if (server) return null;
  return (
    <div className="frame-banner banner-bad" role="alert" data-testid="server-down">
      <strong>The local ardesk server is not answering.</strong> Changes are paused and the figures shown may be out of date; the page reloads by itself when it is back.
    </div>
  );
}

/** "Page · Company · ardesk", led by what a page shows (an invoice, a customer) when it says. */
function useFrameTitle(section: Section, companyName: string | undefined) {
  const detail = usePageDetail((s) => s.detail);
  const page = NAV.find((n) => n.section === section)?.label ?? OTHER_PAGES[section] ?? section;
  const title = documentTitle([detail, page, companyName]);
  useEffect(() => {
    document.title = title;
  }, [title]);
}

export function ConnectionIndicator() {
  const { network, server } = useConnection();
  const [state, label, title] = !server
    ? ['down', 'Server unreachable', 'The local ardesk server is not answering; changes cannot be saved until it is back.']
    : network
      ? ['online', 'Online', 'Connected to the network; the local server answers.']
      : ['offline', 'Offline', 'No network. ardesk keeps working on this machine; nothing leaves it anyway.'];
  return (
    <span className={`conn conn-${state}`} title={title} data-testid="connection" role="status">
      <span className="conn-dot" aria-hidden="true" />
      {label}
    </span>
  );
}

function CompanySwitcher({ companies, current }: { companies: Company[]; current: string; }) {
  const navigate = useRoute((s) => s.navigate);
  const pathname = useRoute((s) => s.pathname);
  if (companies.length <= 1) return <span className="company-name" data-testid="company-name">{companies[0]?.name}</span>;
  return (
    <label className="company-switcher">
      <span className="sr-only">Company</span>
      <select
        aria-label="Company"
        value={current}
        onChange={(e) => {
          const section = (pathname.split('/')[3] as Section | undefined) ?? 'invoices';
          // Filters and open panels belong to the previous company's data: start the section fresh.
          navigate(companyPath(e.target.value, section));
        }}
      >
        {companies.map((c) => (
          <option key={c.id} value={c.id}>
            {c.name}
          </option>
        ))}
      </select>
    </label>
  );
}

function UserMenu() {
  const { user, signOut } = useSession();
  const [busy, setBusy] = useState(false);
  return (
    <div className="user-menu">
      <span className="avatar" aria-hidden="true">
        {(user?.display_name || user?.username || '?').slice(0, 1).toUpperCase()}
      </span>
      <span className="user-name" data-testid="signed-in-user">
        {user?.display_name || user?.username}
      </span>
      <button
        type="button"
        className="btn btn-ghost"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          try {
            await signOut();
          } catch (err) {
            toast.error(`Sign out failed: ${describeError(err)}`);
            setBusy(false);
          }
        }}
      >
        Sign out
      </button>
    </div>
  );
}

export function Frame({ companyId, section, children }: { companyId: string; section: Section; children: ReactNode }) {
  const companies = useSession((s) => s.companies);
  const navigate = useRoute((s) => s.navigate);
  const server = useConnection((s) => s.server);
  useServerPing();
  useFrameTitle(section, companies.find((c) => c.id === companyId)?.name);
  const active = section;
  // The team view is a manager's (and an owner's): the others do not see its link.
  const role = companies.find((c) => c.id === companyId)?.role;
  const nav = NAV.filter((item) => item.section !== 'team' || role === 'owner' || role === 'manager');
  return (
    <div className={server ? 'frame' : 'frame server-down'}>
      <a className="skip-link" href="#main-content">
        Skip to main content
      </a>
      <nav className="sidebar" aria-label="Main">
        <div className="brand">ardesk</div>
        <ul>
          {nav.map((item) => (
            <li key={item.section}>
              <a
                href={companyPath(companyId, item.section)}
                className={item.section === active ? 'nav-link active' : 'nav-link'}
                aria-current={item.section === active ? 'page' : undefined}
                title={item.label}
                onClick={(e) => {
                  e.preventDefault();
                  navigate(companyPath(companyId, item.section));
                }}
              >
                <span className="nav-icon" aria-hidden="true">
                  {item.icon}
                </span>
                <span className="nav-label">{item.label}</span>
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <div className="main">
        <header className="topbar">
          <CompanySwitcher companies={companies} current={companyId} />
          <NewCompanyButton />
          <div className="spacer" />
          <ConnectionIndicator />
          <SyncIndicator companyId={companyId} />
          <UserMenu />
        </header>
        <ServerDownBanner />
        <EmailWarning companyId={companyId} />
        <ImportWatchBanner companyId={companyId} />
        <WebhookBanner companyId={companyId} />
        <main className="content" id="main-content" tabIndex={-1}>
          {children}
        </main>
      </div>
    </div>
  );
}
