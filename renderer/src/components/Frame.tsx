import { type ReactNode, useEffect, useState } from 'react';
import { useConnection } from '../state/connection';
import { companyPath, type Section, useRoute } from '../state/route';
import { api, type Company, useSession } from '../state/session';
import { toast } from '../state/toasts';
import { describeError } from './ErrorBox';
import { SyncIndicator } from '../sync/SyncIndicator';

const NAV: Array<{ section: Section; label: string; icon: string }> = [
  { section: 'invoices', label: 'Invoices', icon: '▤' },
  { section: 'actions', label: 'Actions', icon: '✓' },
  { section: 'sequences', label: 'Sequences', icon: '⇶' },
  { section: 'queue', label: 'Queue', icon: '☰' },
  { section: 'analytics', label: 'Analytics', icon: '▥' },
  { section: 'insights', label: 'Insights', icon: '✦' },
  { section: 'settings', label: 'Settings', icon: '⚙' },
];

/** How often the indicator checks that the local server still answers. */
const PING_MS = 15_000;

function useServerPing() {
  const network = useConnection((s) => s.network);
  useEffect(() => {
    const ping = () => {
      api.get('/api/v1/setup/', {}).catch(() => {
        // The client already reported the server unreachable; nothing else to do here.
      });
    };
    ping();
    const timer = setInterval(ping, PING_MS);
    return () => clearInterval(timer);
  }, [network]);
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
  if (companies.length <= 1) return <span className="company-name">{companies[0]?.name}</span>;
  return (
    <label className="company-switcher">
      <span className="sr-only">Company</span>
      <select
        aria-label="Company"
        value={current}
        onChange={(e) => {
          const section = (pathname.split('/')[3] as Section | undefined) ?? 'invoices';
          // Filters and open panels belong to the previous company's data: start the section fresh.
          navigate(companyPath(e.target.value, section === 'customers' ? 'invoices' : section));
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
  useServerPing();
  const active = section === 'customers' ? 'invoices' : section;
  return (
    <div className="frame">
      <nav className="sidebar" aria-label="Main">
        <div className="brand">ardesk</div>
        <ul>
          {NAV.map((item) => (
            <li key={item.section}>
              <a
                href={companyPath(companyId, item.section)}
                className={item.section === active ? 'nav-link active' : 'nav-link'}
                aria-current={item.section === active ? 'page' : undefined}
                onClick={(e) => {
                  e.preventDefault();
                  navigate(companyPath(companyId, item.section));
                }}
              >
                <span className="nav-icon" aria-hidden="true">
                  {item.icon}
                </span>
                {item.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <div className="main">
        <header className="topbar">
          <CompanySwitcher companies={companies} current={companyId} />
          <div className="spacer" />
          <ConnectionIndicator />
          <SyncIndicator />
          <UserMenu />
        </header>
        <div className="content">{children}</div>
      </div>
    </div>
  );
}
