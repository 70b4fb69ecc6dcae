import { create } from 'zustand';

/**
 * Two separate facts: whether this machine has a network (navigator.onLine) and whether the local
 * ardesk server answers. ardesk works offline as long as the local server answers.
 */
interface ConnectionState {
  network: boolean;
  server: boolean;
  setServer(reachable: boolean): void;
}

export const useConnection = create<ConnectionState>((set, get) => ({
  network: navigator.onLine,
  server: true,
  setServer(reachable) {
    if (get().server !== reachable) set({ server: reachable });
  },
}));

window.addEventListener('online', () => useConnection.setState({ network: true }));
window.addEventListener('offline', () => useConnection.setState({ network: false }));
