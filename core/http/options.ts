/** How the HTTP app is built: one server's settings, chosen by its composition root (runtime, CLI, tests). */
import type { LoginThrottle } from '../auth/throttle';
import type { MailEndpointRule } from '../email/endpoints';
import type { WebhookHostRule } from '../webhooks/destination';
import type { PortalLimiter } from '../portal/limits';
import type { PokeHub } from '../sync/pokes';
import type { SyncSession } from '../sync/session';

export interface HttpOptions {
  throttle: LoginThrottle;
  tokenTtlDays: number;
  /** Host names served besides the loopback names (a team server's own name). */
  allowedHosts: string[];
  /** Folder of the built renderer, or null to serve none. */
  rendererDir: string | null;
  /** Largest JSON body accepted on ordinary routes. */
  maxBodyBytes: number;
  /** Largest body accepted by the import endpoints (files) and by sync pushes (which may carry them). */
  maxImportBytes: number;
  /** Server-Sent Events pokes of a team server (created on demand when not given). */
  pokes: PokeHub | null;
  /** This desktop's sync (loop, first download, resync); made here, loop not started, when not given. */
  sync: SyncSession | null;
  /**
   * A team server on plain HTTP at a non-loopback address: login and sync are refused, because
   * passwords and tokens would cross the network in clear (ardesk serve --insecure-http allows it).
   */
  refuseCredentialsInClear: boolean;
  /**
   * A team server (ardesk serve --team): it is set up from its own machine (ardesk user add), so
   * the first-launch setup routes are off, and the routes that make a desktop of this database
   * (connect to a server, sync now, resync, disconnect) are not mounted.
   */
  team: boolean;
  /** Which mail servers email connections may reach; a team server's default is the usual ports. */
  mailRule: MailEndpointRule;
  /** Which addresses webhooks may go to: public ones, and the private hosts the operator allows (--webhook-hosts). */
  webhookRule: WebhookHostRule;
  /**
   * A reverse proxy on this machine forwards the requests (ardesk serve --trust-proxy): the login
   * throttle counts each client by the address the proxy forwards (X-Forwarded-For) instead of
   * the proxy's own loopback address, which would make every client one.
   */
  trustProxy: boolean;
  /**
   * Where customers' portal links point (the address they reach this server at), or null when this
   * server serves no portal they can reach (core/http/portal.ts). Read when a link is made.
   */
  portalBaseUrl: () => string | null;
  /** The portal's rate limits (per address, per link). */
  portalLimiter: PortalLimiter;
}
