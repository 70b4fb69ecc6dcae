/** What the preload hands the renderer: the local API's base URL and the per-launch token. */
export interface DesktopBootstrap {
  apiBaseUrl: string;
  /** null on a first launch (no user yet): the renderer then offers the demo or a new account. */
  token: string | null;
}

export const BOOTSTRAP_CHANNEL = 'ardesk:bootstrap';
