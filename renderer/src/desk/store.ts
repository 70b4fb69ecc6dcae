import { create } from 'zustand';
import { api } from '../state/session';
import type { Label, SavedView, TeamMember } from './types';

/**
 * State of the invoice desk that is not in the URL: the first page's count and facets, the
 * company's labels and team (for filters and editors), the selection, saved views, and a
 * refresh counter that tells every part to reload after a write.
 */
export interface SelectedInvoice {
  id: string;
  invoice_number: string;
  customer: string;
  customer_name: string;
}

interface DeskState {
  companyId: string | null;
  count: number | null;
  facets: Record<string, number> | null;
  labels: Label[];
  team: TeamMember[];
  views: SavedView[];
  lookupsError: unknown;
  viewsError: unknown;
  selection: SelectedInvoice[];
  /** Bumped after any write: grids, summary and panel reload. */
  version: number;
  reset(companyId: string): void;
  loadLookups(): Promise<void>;
  loadViews(): Promise<void>;
  setFirstPage(count: number | null, facets: Record<string, number> | null): void;
  setSelection(rows: SelectedInvoice[]): void;
  changed(): void;
}

export const useDesk = create<DeskState>((set, get) => ({
  companyId: null,
  count: null,
  facets: null,
  labels: [],
  team: [],
  views: [],
  lookupsError: null,
  viewsError: null,
  selection: [],
  version: 0,

  reset(companyId) {
    set({ companyId, count: null, facets: null, labels: [], team: [], views: [], lookupsError: null, viewsError: null, selection: [] });
  },

  async loadLookups() {
    const companyId = get().companyId;
    if (!companyId) return;
    set({ lookupsError: null });
    try {
      const [labels, team] = await Promise.all([
        api.get('/api/companies/{company_id}/labels', { path: { company_id: companyId } }),
        api.get('/api/companies/{company_id}/team-members', { path: { company_id: companyId } }),
      ]);
      if (get().companyId === companyId) set({ labels: labels.data, team: team.data });
    } catch (err) {
      set({ lookupsError: err });
    }
  },

  async loadViews() {
    const companyId = get().companyId;
    if (!companyId) return;
    set({ viewsError: null });
    try {
      const views = await api.get('/api/companies/{company_id}/saved-views', { path: { company_id: companyId } });
      if (get().companyId === companyId) set({ views: views.data });
    } catch (err) {
      set({ viewsError: err });
    }
  },

  setFirstPage(count, facets) {
    set({ count, facets });
  },

  setSelection(rows) {
    set({ selection: rows });
  },

  changed() {
    set({ version: get().version + 1 });
  },
}));
