import { type ComponentProps, type ComponentType, createElement, useEffect, useState } from 'react';
import { ErrorBox } from './components/ErrorBox';
import { FirstLaunch } from './components/FirstLaunch';
import { Frame } from './components/Frame';
import { PageBoundary } from './components/PageBoundary';
import { SignIn } from './components/SignIn';
import { NewCompanyButton } from './onboarding/NewCompany';
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
  team: () => import('./team/TeamPage'),
  cash: () => import('./cash/CashPage'),
  sequences: () => import('./sequences/SequencesPage'),
  sequence: () => import('./sequences/SequenceBuilder'),
  customers: () => import('./customers/CustomerList'),
  analytics: () => import('./analytics/AnalyticsPage'),
  insights: () => import('./insights/InsightsPage'),
  settings: () => import('./settings/SettingsPage'),
};
type PageKey = keyof typeof pageModules;
type PageProps<K extends PageKey> = ComponentProps<Awaited<ReturnType<(typeof pageModules)[K]>>['default']>;

const loadedPages = new Map<PageKey, ComponentType<never>>();

function loadPage<K extends PageKey>(key: K): Promise<ComponentType<PageProps<K>>> {
  return pageModules[key]().then((module) => {
    const component = module.default as ComponentType<PageProps<K>>;
    loadedPages.set(key, component as ComponentType<never>);
    return component;
  });
}

/**
 * A page whose code loads on first use (keyed by the page's name: one instance shows one page). Not React.lazy: a lazy page suspends even when its code
 * is already there, and React then holds the page back for its fallback throttle (300 ms) before
 * showing it; this renders at once when the code is loaded.
 */
function Page<K extends PageKey>({ page, props }: { page: K; props: PageProps<K> }) {
  const [Loaded, setLoaded] = useState<ComponentType<PageProps<K>> | undefined>(() => loadedPages.get(page) as ComponentType<PageProps<K>> | undefined);
  const [error, setError] = useState<unknown>(null);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (Loaded) return;
    let live = true;
    loadPage(page).then(
      (component) => live && setLoaded(() => component),
      (err: unknown) => live && setError(err),
    );
    return () => {
      live = false;
    };
  }, [page, Loaded, attempt]);
  // The props were checked against the page where Page is used; TypeScript cannot follow K into the spread.
  if (Loaded) return <PageBoundary what="this page">{createElement(Loaded as ComponentType<object>, props)}</PageBoundary>;
  if (error !== null) {
    return (
      <ErrorBox
        what="this page"
        error={error}
        onRetry={() => {
          setError(null);
          setAttempt((n) => n + 1);
        }}
      />
    );
  }
  return <Loading />;
}

/** The page the window opens on starts loading its code at once, while the session is checked (two requests and the frame's), rather than after. */
function preloadOpeningPage(): void {
  const { section, itemId } = parseRoute(window.location.pathname);
  if (!section) return;
  const key = section === 'customers' && itemId ? 'customer' : section === 'sequences' && isSequenceId(itemId) ? 'sequence' : section;
  // A failed preload is not an error yet: the page loads its code again and shows its own.
  void loadPage(key).catch(() => undefined);
}
preloadOpeningPage();

const LAST_COMPANY_KEY = 'ardesk.company';

/** A sequence's id after /sequences; a word there is one of its page's tabs (`/sequences/enrollments`), not a sequence. */
function isSequenceId(itemId: string | null): itemId is string {
  return itemId !== null && !['steps', 'enrollments'].includes(itemId);
}

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
          <p className="muted">Your account is not a member of any company. Ask an owner to add you, or start one of your own.</p>
          <NewCompanyButton className="btn btn-primary" />
        </div>
      </main>
    );
  }
  if (!known || !route.section) return <Loading />;
  const companyId = route.companyId!;
  return (
    <Frame companyId={companyId} section={route.section}>
      {route.section === 'invoices' ? (
        <Page key={`invoices/${companyId}`} page="invoices" props={{ companyId, invoiceId: route.itemId }} />
      ) : route.section === 'customers' && route.itemId ? (
        <Page key={`customer/${companyId}/${route.itemId}`} page="customer" props={{ companyId, customerId: route.itemId }} />
      ) : route.section === 'customers' ? (
        <Page key={`customers/${companyId}`} page="customers" props={{ companyId }} />
      ) : route.section === 'actions' ? (
        <Page key={`actions/${companyId}`} page="actions" props={{ companyId, actionId: route.itemId }} />
      ) : route.section === 'queue' ? (
        <Page key={`queue/${companyId}`} page="queue" props={{ companyId, tab: route.itemId }} />
      ) : route.section === 'team' ? (
        <Page key={`team/${companyId}`} page="team" props={{ companyId }} />
      ) : route.section === 'cash' ? (
        <Page key={`cash/${companyId}`} page="cash" props={{ companyId, transactionId: route.itemId }} />
      ) : route.section === 'sequences' && isSequenceId(route.itemId) ? (
        <Page key={`sequence/${companyId}/${route.itemId}`} page="sequence" props={{ companyId, sequenceId: route.itemId, tab: route.tab }} />
      ) : route.section === 'sequences' ? (
        <Page key={`sequences/${companyId}`} page="sequences" props={{ companyId }} />
      ) : route.section === 'analytics' ? (
        <Page key={`analytics/${companyId}`} page="analytics" props={{ companyId }} />
      ) : route.section === 'insights' ? (
        <Page key={`insights/${companyId}`} page="insights" props={{ companyId }} />
      ) : (
        <Page key={`settings/${companyId}`} page="settings" props={{ companyId, tab: route.itemId }} />
      )}
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
        <PageBoundary what="the workspace">
          <Workspace />
        </PageBoundary>
      )}
      <Toasts />
    </>
  );
}
