import type { Role } from '../db/schema';
import type { MailEndpointRule } from '../email/endpoints';
import type { Engine } from '../engine';
import type { Credential } from '../auth/personal-tokens';
import type { AuthenticatedUser } from '../auth/users';

export interface Membership {
  company_id: string;
  role: Role;
}

/** Hono context variables set by the middleware chain. */
export interface AppEnv {
  Variables: {
    engine: Engine;
    user: AuthenticatedUser;
    tokenId: string;
    /** The presented token's kind and expiry; null for a replayed sync operation. */
    credential: Credential | null;
    membership: Membership;
    /** Which mail servers email connections may reach (the operator's rule on a team server). */
    mailRule: MailEndpointRule;
    /** With --trust-proxy: the client address the reverse proxy forwarded. */
    forwardedFor: string | undefined;
  };
}
