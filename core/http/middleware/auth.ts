import type { MiddlewareHandler } from 'hono';
import { authenticate } from '../../auth/sessions';
import { parseAuthorization } from '../../auth/tokens';
import type { AppEnv } from '../env';
import { problem } from '../problem';
import { replayOf } from '../../sync/operation';

/** `Authorization: Token <key>` on every protected route; anything else is a 401 before any work. */
export function requireToken(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const replay = replayOf(c);
    if (replay) {
      // A pushed operation replayed by the team server: the push itself was authenticated.
      c.set('user', replay.user);
      c.set('tokenId', '');
      c.set('credential', null);
      return next();
    }
    const token = parseAuthorization(c.req.header('authorization'));
    const owner = token ? await authenticate(c.var.engine, token) : null;
    if (!owner) {
      return problem(401, 'not_authenticated', token ? 'The token is invalid or has expired' : 'Send Authorization: Token <key>', undefined, {
        'www-authenticate': 'Token',
      });
    }
    c.set('user', owner.user);
    c.set('tokenId', owner.tokenId);
    c.set('credential', owner.credential);
    await next();
  };
}
