import { companyPath, useRoute } from '../state/route';
import { useSession } from '../state/session';
import { CompanyDocuments } from '../documents/CompanyDocuments';
import { ApiTokens } from './ApiTokens';
import { Appearance } from './Appearance';
import { CompanyUsers } from './CompanyUsers';
import { DataFolder } from './DataFolder';
import { EmailConnections } from './EmailConnections';
import { ImportWizard } from './ImportWizard';
import { Labels } from './Labels';
import { TeamMembers } from './TeamMembers';
import { TeamServer } from './TeamServer';
import { Webhooks } from './Webhooks';
import { WorkingDate } from './WorkingDate';

const TABS = [
  { id: 'email', label: 'Email connections' },
  { id: 'company', label: 'Company' },
  { id: 'team', label: 'Team members' },
  { id: 'labels', label: 'Labels' },
  { id: 'users', label: 'Users and roles' },
  { id: 'tokens', label: 'API tokens' },
  { id: 'webhooks', label: 'Webhooks' },
  { id: 'import', label: 'Import' },
  { id: 'data', label: 'Data and backups' },
  { id: 'sync', label: 'Team server' },
  { id: 'appearance', label: 'Appearance' },
] as const;
type Tab = (typeof TABS)[number]['id'];

/** Everything set up once: email, company details on documents, team, labels, users, tokens, importing the ledger, backups, the team server, and the look. Each part has its own address. */
export default function SettingsPage({ companyId, tab }: { companyId: string; tab: string | null }) {
  const navigate = useRoute((s) => s.navigate);
  const role = useSession((s) => s.companies.find((c) => c.id === companyId)?.role);
  const current: Tab = TABS.some((t) => t.id === tab) ? (tab as Tab) : 'email';
  const canWrite = role !== 'viewer';
  // Where mail goes and what documents print are an owner's to change (issue 36).
  const isOwner = role === 'owner';
  return (
    <div className="page">
      <header className="page-header">
        <h1>Settings</h1>
      </header>
      <div className="settings">
        <nav aria-label="Settings">
          <ul className="settings-tabs">
            {TABS.map((t) => (
              <li key={t.id}>
                <a
                  href={companyPath(companyId, 'settings', t.id)}
                  aria-current={t.id === current ? 'page' : undefined}
                  onClick={(e) => {
                    e.preventDefault();
                    navigate(companyPath(companyId, 'settings', t.id));
                  }}
                >
                  {t.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div className="stack">
          {current === 'email' && <EmailConnections companyId={companyId} canWrite={isOwner} />}
          {current === 'company' && <WorkingDate companyId={companyId} canWrite={canWrite} />}
          {current === 'company' && <CompanyDocuments companyId={companyId} canWrite={isOwner} />}
          {current === 'team' && <TeamMembers companyId={companyId} isOwner={isOwner} />}
          {current === 'labels' && <Labels companyId={companyId} />}
          {current === 'users' && <CompanyUsers companyId={companyId} isOwner={role === 'owner'} canList={role === 'owner' || role === 'manager'} />}
          {current === 'tokens' && <ApiTokens />}
          {current === 'webhooks' && <Webhooks companyId={companyId} isOwner={isOwner} />}
          {current === 'import' && <ImportWizard companyId={companyId} />}
          {current === 'data' && <DataFolder />}
          {current === 'sync' && <TeamServer companyId={companyId} />}
          {current === 'appearance' && <Appearance />}
        </div>
      </div>
    </div>
  );
}
