import { create } from 'zustand';
import { ApiError, createClient, type Schemas } from '../api/client';
import { useConnection } from './connection';

/** What the Electron preload exposes; absent in a plain browser. */
declare global {
  interface Window {
    ardesk?: { apiBaseUrl: string; token: string | null };
  }
}

export type Mode = 'desktop' | 'browser';
export type Company = Schemas['CompanyRef'];
export type User = Schemas['UserRef'];

type Phase = 'booting' | 'first-launch' | 'signed-out' | 'signed-in' | 'failed';

interface SessionState {
  mode: Mode;
  baseUrl: string;
  phase: Phase;
  token: string | null;
  user: User | null;
  companies: Company[];
  /** Why the user is on the sign-in page, when it was not their choice. */
  notice: string | null;
  /** What went wrong when the workspace could not be opened (phase 'failed'). */
  bootError: unknown;
  boot(): Promise<void>;
  adopt(token: string): Promise<void>;
  signIn(username: string, password: string): Promise<void>;
  signOut(): Promise<void>;
  expired(): void;
}

const mode: Mode = window.ardesk ? 'desktop' : 'browser';

/**
 * Where a token is kept. Browser: localStorage, so a bookmark opens signed in (the token expires
 * on its own and sign-out revokes it). Desktop: the preload's per-launch token; a token from an
 * explicit sign-in in the window lives in sessionStorage, gone with the window.
 */
const TOKEN_KEY = 'ardesk.token';
const SIGNED_OUT_KEY = 'ardesk.signed-out';
const tokenStore: Storage = mode === 'desktop' ? window.sessionStorage : window.localStorage;

function storedToken(): string | null {
  const saved = tokenStore.getItem(TOKEN_KEY);
  if (saved) return saved;
  if (mode === 'desktop' && !window.sessionStorage.getItem(SIGNED_OUT_KEY)) return window.ardesk?.token ?? null;
  return null;
}

export const useSession = create<SessionState>((set, get) => ({
  mode,
  baseUrl: window.ardesk?.apiBaseUrl || window.location.origin,
  phase: 'booting',
  token: null,
  user: null,
  companies: [],
  notice: null,
  bootError: null,

  async boot() {
    set({ phase: 'booting', bootError: null });
    try {
      const setup = await api.get('/api/v1/setup/', {});
      if (!setup.initialized) {
        set({ phase: 'first-launch' });
        return;
      }
      const token = storedToken();
      if (!token) {
        set({ phase: 'signed-out' });
        return;
      }
      set({ token });
      const me = await api.get('/api/v1/auth/me/', {});
      set({ phase: 'signed-in', user: me.user, companies: me.companies, notice: null });
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) set({ phase: 'signed-out', token: null });
      else set({ phase: 'failed', bootError: err });
    }
  },

  async adopt(token) {
    tokenStore.setItem(TOKEN_KEY, token);
    window.sessionStorage.removeItem(SIGNED_OUT_KEY);
    set({ token });
    const me = await api.get('/api/v1/auth/me/', {});
    set({ phase: 'signed-in', user: me.user, companies: me.companies, notice: null });
  },

  async signIn(username, password) {
    const result = await api.post('/api/v1/auth/login/', { body: { username, password } });
    await get().adopt(result.token);
  },

  async signOut() {
    try {
      await api.post('/api/v1/auth/logout/', {});
    } catch (err) {
      // An already expired token is as good as revoked; anything else must not be hidden.
      if (!(err instanceof ApiError && err.status === 401)) throw err;
    }
    forget();
    set({ phase: 'signed-out', token: null, user: null, companies: [], notice: null });
  },

  expired() {
    if (get().phase !== 'signed-in') return;
    forget();
    set({ phase: 'signed-out', token: null, user: null, companies: [], notice: 'Your session ended. Sign in again to continue.' });
  },
}));

function forget(): void {
  tokenStore.removeItem(TOKEN_KEY);
  if (mode === 'desktop') window.sessionStorage.setItem(SIGNED_OUT_KEY, '1');
}

/** The typed API client, bound to this session. */
export const api = createClient({
  baseUrl: () => useSession.getState().baseUrl,
  token: () => useSession.getState().token,
  onUnauthorized: () => useSession.getState().expired(),
  onReachability: (reachable) => useConnection.getState().setServer(reachable),
});
