import { lazy, Suspense, useEffect } from 'react';
import { ErrorBox } from './components/ErrorBox';
import { FirstLaunch } from './components/FirstLaunch';
import { Frame } from './components/Frame';
import { SignIn } from './components/SignIn';
import { Toasts } from './components/Toasts';
import { companyPath, parseRoute, useRoute } from './state/route';
import { useSession } from './state/session';
import { useDocumentTitle } from './state/title';

/** Each page's code, a chunk of its own. */
const pageModules = {
  invoices: () => import('./desk/InvoiceDesk'),
  customer: () => import('./desk/CustomerPage'),
  actions: () => import('./actions/ActionsPage'),
  queue: () => import('./queue/QueuePage'),
  sequences: () => import('./sequences/SequencesPage'),
  sequence: () => import('./sequences/SequenceBuilder'),
  customers: () => import('./customers/CustomerList'),
  analytics: () => import('./analytics/AnalyticsPage'),
  insights: () => import('./insights/InsightsPage'),
  settings: () => import('./settings/SettingsPage'),
};

const InvoiceDesk = lazy(pageModules.invoices);
const CustomerPage = lazy(pageModules.customer);
const ActionsPage = lazy(pageModules.actions);
const QueuePage = lazy(pageModules.queue);
const SequencesPage = lazy(pageModules.sequences);
const SequenceBuilder = lazy(pageModules.sequence);
const CustomerList = lazy(pageModules.customers);
const AnalyticsPage = lazy(pageModules.analytics);
const InsightsPage = lazy(pageModules.insights);
const SettingsPage = lazy(pageModules.settings);

/**
 * The page the window opens on starts loading its code at once, while the session is checked
 * (two requests and the frame's), rather than after: the same import, so the lazy page finds it.
 */
function preloadOpeningPage(): void {
  const { section, itemId } = parseRoute(window.location.pathname);
  if (!section) return;
  const key = section === 'customers' && itemId ? 'customer' : section === 'sequences' && itemId ? 'sequence' : section;
  // A failed preload is not an error yet: the lazy page imports again and shows its own.
  void pageModules[key]().catch(() => undefined);
}
preloadOpeningPage();

const LAST_COMPANY_KEY = 'ardesk.company';

function Loading() {
  return (
    <div className="loading" role="status">
      Loading…
    </div>
  );
}

function Workspace() {
  const companies = useSession((s) => s.companies);
  const { pathname, navigate } = useRoute();
  const route = parseRoute(pathname);
  const known = route.companyId && companies.some((c) => c.id === route.companyId);

  useEffect(() => {
    if (known && route.section) {
      localStorage.setItem(LAST_COMPANY_KEY, route.companyId!);
      return;
    }
    const last = localStorage.getItem(LAST_COMPANY_KEY);
    const target = known ? route.companyId! : (companies.find((c) => c.id === last) ?? companies[0])?.id;
    if (target) navigate(companyPath(target, 'invoices'), { replace: true });
  }, [known, route.companyId, route.section, companies, navigate]);

  if (companies.length === 0) {
    return (
      <main className="auth-page">
        <div className="auth-card">
          <h1 className="brand">No company yet</h1>
          <p className="muted">Your account is not a member of any company. Ask an owner to add you.</p>
        </div>
      </main>
    );
  }
  if (!known || !route.section) return <Loading />;
  const companyId = route.companyId!;
  return (
    <Frame companyId={companyId} section={route.section}>
      <Suspense fallback={<Loading />}>
        {route.section === 'invoices' ? (
          <InvoiceDesk key={companyId} companyId={companyId} invoiceId={route.itemId} />
        ) : route.section === 'customers' && route.itemId ? (
          <CustomerPage key={`${companyId}/${route.itemId}`} companyId={companyId} customerId={route.itemId} />
        ) : route.section === 'customers' ? (
          <CustomerList key={companyId} companyId={companyId} />
        ) : route.section === 'actions' ? (
          <ActionsPage key={companyId} companyId={companyId} actionId={route.itemId} />
        ) : route.section === 'queue' ? (
          <QueuePage key={companyId} companyId={companyId} />
        ) : route.section === 'sequences' && route.itemId ? (
          <SequenceBuilder key={`${companyId}/${route.itemId}`} companyId={companyId} sequenceId={route.itemId} />
        ) : route.section === 'sequences' ? (
          <SequencesPage key={companyId} companyId={companyId} />
        ) : route.section === 'analytics' ? (
          <AnalyticsPage key={companyId} companyId={companyId} />
        ) : route.section === 'insights' ? (
          <InsightsPage key={companyId} companyId={companyId} />
        ) : (
          <SettingsPage key={companyId} companyId={companyId} tab={route.itemId} />
        )}
      </Suspense>
    </Frame>
  );
}

export function App() {
  const { phase, bootError, boot } = useSession();
  useDocumentTitle([phase === 'failed' ? 'Could not open' : null]);
  useEffect(() => {
    void boot();
  }, [boot]);

  return (
    <>
      {phase === 'booting' ? (
        <Loading />
      ) : phase === 'failed' ? (
        <main className="auth-page">
          <div className="auth-card">
            <h1 className="brand">ardesk</h1>
            <ErrorBox what="the workspace" error={bootError} onRetry={() => void boot()} />
          </div>
        </main>
      ) : phase === 'first-launch' ? (
        <FirstLaunch />
      ) : phase === 'signed-out' ? (
        <SignIn />
      ) : (
        <Workspace />
      )}
      <Toasts />
    </>
  );
}
