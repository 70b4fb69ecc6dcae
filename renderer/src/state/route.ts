import { create } from 'zustand';

/** The location is the source of truth for what is on screen, so every view can be bookmarked. */
interface RouteState {
  pathname: string;
  search: string;
  navigate(to: string, options?: { replace?: boolean }): void;
}

export const useRoute = create<RouteState>((set) => ({
  pathname: window.location.pathname,
  search: window.location.search,
  navigate(to, options) {
    const url = new URL(to, window.location.origin);
    const next = `${url.pathname}${url.search}`;
    if (next === `${window.location.pathname}${window.location.search}`) return;
    if (options?.replace) window.history.replaceState(null, '', next);
    else window.history.pushState(null, '', next);
    set({ pathname: url.pathname, search: url.search });
  },
}));

window.addEventListener('popstate', () => useRoute.setState({ pathname: window.location.pathname, search: window.location.search }));

export type Section = 'invoices' | 'customers' | 'actions' | 'sequences' | 'queue' | 'team' | 'cash' | 'analytics' | 'insights' | 'settings';

export interface ParsedRoute {
  companyId: string | null;
  section: Section | null;
  /** The id after the section: an invoice (detail panel) or a customer (customer page); or a page's tab (queue, settings). */
  itemId: string | null;
  /** The tab of the item's page, after its id (`/sequences/<id>/enrollments`). */
  tab: string | null;
}

const SECTIONS = new Set<Section>(['invoices', 'customers', 'actions', 'sequences', 'queue', 'team', 'cash', 'analytics', 'insights', 'settings']);

export function parseRoute(pathname: string): ParsedRoute {
  const parts = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] !== 'companies' || !parts[1]) return { companyId: null, section: null, itemId: null, tab: null };
  const section = SECTIONS.has(parts[2] as Section) ? (parts[2] as Section) : null;
  return { companyId: parts[1], section, itemId: section ? (parts[3] ?? null) : null, tab: section ? (parts[4] ?? null) : null };
}

export function companyPath(companyId: string, section: Section, itemId?: string | null, search = ''): string {
  const base = `/companies/${encodeURIComponent(companyId)}/${section}`;
  return `${itemId ? `${base}/${encodeURIComponent(itemId)}` : base}${search}`;
}
