/**
 * Where webhooks may be sent: public http(s) addresses. A private or loopback address (this
 * machine, the office network) is refused unless the operator allows its host (`--webhook-hosts`),
 * so an endpoint cannot make ardesk a scanner of its own network; the name is checked again when
 * it resolves, at each send.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isPrivateAddress } from '../email/endpoints';

export interface WebhookHostRule {
  /** Hosts allowed although private or loopback (compared without case). */
  allowedHosts: string[];
}

export const PUBLIC_WEBHOOKS: WebhookHostRule = { allowedHosts: [] };

const MAX_URL = 2048;

const allowed = (rule: WebhookHostRule, host: string) => rule.allowedHosts.some((h) => h.toLowerCase() === host.toLowerCase());
const bare = (host: string) => host.replace(/^\[(.*)\]$/, '$1');

/** Why `url` cannot receive webhooks, in words; null when it can (as far as the text shows). */
export function urlRefusal(rule: WebhookHostRule, url: string): string | null {
  if (url.length > MAX_URL) return `A webhook address has at most ${MAX_URL} characters`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'Not a web address (it should start with https://)';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'A webhook address starts with https:// (or http://)';
  if (parsed.username || parsed.password) return 'Put no user name or password in the address: deliveries are signed instead';
  const host = bare(parsed.hostname);
  if (!allowed(rule, host) && isPrivateAddress(host)) return `Webhooks may not go to a private or local address (${host}) unless the server's operator allows it with --webhook-hosts`;
  return null;
}

/** The same rule for the addresses the host resolves to, right before a send: a public name may point inside. */
export async function resolvedUrlRefusal(rule: WebhookHostRule, url: string): Promise<string | null> {
  const text = urlRefusal(rule, url);
  if (text) return text;
  const host = bare(new URL(url).hostname);
  if (allowed(rule, host) || isIP(host)) return null;
  const addresses = await lookup(host, { all: true }).catch(() => []);
  const inside = addresses.find((a) => isPrivateAddress(a.address));
  return inside ? `Webhooks may not go to a private or local address (${host}, ${inside.address}) unless the server's operator allows it with --webhook-hosts` : null;
}
