import { create } from 'zustand';

/**
 * Two separate facts: whether this machine has a network (navigator.onLine) and whether the local
 * ardesk server answers. ardesk works offline as long as the local server answers.
 */
interface ConnectionState {
  network: boolean;
  server: boolean;
  /** The periodic check found the server gone (not just one request failing). */
  lost: boolean;
  /** Counts the times the server came back after the check had found it gone: views reload on it. */
  reconnects: number;
  setServer(reachable: boolean): void;
  /** The outcome of the periodic check. */
  checked(answered: boolean): void;
}

export const useConnection = create<ConnectionState>((set, get) => ({
  network: navigator.onLine,
  server: true,
  lost: false,
  reconnects: 0,
  setServer(reachable) {
    if (get().server !== reachable) set({ server: reachable });
  },
  checked(answered) {
    if (!answered) set({ lost: true });
    else if (get().lost) set({ lost: false, reconnects: get().reconnects + 1 });
  },
}));

window.addEventListener('online', () => useConnection.setState({ network: true }));
window.addEventListener('offline', () => useConnection.setState({ network: false }));
