/**
 * Which mail servers email connections may reach. On a desktop, any: the person tests their own
 * mailbox. On a team server, a connection's "Test" makes the server connect wherever a collector
 * says, so the operator chooses the hosts and ports (default: the usual SMTP and IMAP ports, and
 * no private or loopback address unless --mail-hosts lists it), and the server is not a scanner of
 * its own network.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import type { FieldErrors } from '../errors';

export interface MailEndpointRule {
  /** Ports allowed, or null for any. */
  ports: number[] | null;
  /** Host names or addresses allowed (compared without case), or null for any. */
  hosts: string[] | null;
  /** With hosts null: refuse loopback, private and link-local addresses (a team server). */
  refusePrivate: boolean;
}

export const ANY_MAIL_ENDPOINT: MailEndpointRule = { ports: null, hosts: null, refusePrivate: false };
export const USUAL_MAIL_PORTS = [25, 465, 587, 143, 993];
/** A team server's rule unless its operator says otherwise (serve.ts mailRuleOf). */
export const TEAM_MAIL_ENDPOINT: MailEndpointRule = { ports: USUAL_MAIL_PORTS, hosts: null, refusePrivate: true };

function blockList(v4: ReadonlyArray<readonly [string, number]>, v6: ReadonlyArray<readonly [string, number]>): BlockList {
  const list = new BlockList();
  for (const [net, bits] of v4) list.addSubnet(net, bits, 'ipv4');
  for (const [net, bits] of v6) list.addSubnet(net, bits, 'ipv6');
  return list;
}

const LOOPBACK = blockList([['127.0.0.0', 8]], [['::1', 128]]);
const PRIVATE = blockList(
  [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16]],
  [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10]],
);

/** Whether a host (a name or an address, IPv6 possibly bracketed or IPv4-mapped) is in `list`; "localhost" names count as loopback. */
function hostIn(list: BlockList, host: string): boolean {
  const plain = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(plain)?.[1] ?? plain;
  const family = isIP(v4);
  if (family === 0) return v4 === 'localhost' || v4.endsWith('.localhost');
  return list.check(v4, family === 4 ? 'ipv4' : 'ipv6');
}

/** A relay on this machine: 127.0.0.0/8, ::1 or localhost. */
export function isLoopbackHost(host: string): boolean {
  return hostIn(LOOPBACK, host);
}

/** Loopback, private (RFC 1918, unique local), shared, link-local or unspecified: this server's own networks. */
export function isPrivateAddress(address: string): boolean {
  return hostIn(PRIVATE, address);
}

function listed(rule: MailEndpointRule, host: string): boolean {
  return rule.hosts !== null && rule.hosts.some((h) => h.toLowerCase() === host.toLowerCase());
}

function privateRefusal(host: string, address: string): string {
  return `This server may not connect to a private or local address (${host === address ? host : `${host}, ${address}`}) unless its operator lists it in --mail-hosts`;
}

/** Why host:port is not allowed, in words, and whether the host or the port is the cause; null when allowed. */
function refusalOf(rule: MailEndpointRule, host: string, port: number): { cause: 'host' | 'port'; message: string } | null {
  if (rule.hosts && !listed(rule, host)) return { cause: 'host', message: `This server may connect only to the mail hosts its operator allows (${rule.hosts.join(', ')})` };
  if (rule.ports && !rule.ports.includes(port)) return { cause: 'port', message: `This server may connect to mail servers only on ports ${rule.ports.join(', ')}` };
  if (rule.refusePrivate && !listed(rule, host) && isPrivateAddress(host)) return { cause: 'host', message: privateRefusal(host, host) };
  return null;
}

/** Why host:port is not allowed, in words; null when it is. */
export function endpointRefusal(rule: MailEndpointRule, host: string, port: number): string | null {
  return refusalOf(rule, host, port)?.message ?? null;
}

/**
 * The same rule for the addresses a host name resolves to, before connecting to it: a public name
 * may point inside. A name that does not resolve is left to the connection's own error.
 */
export async function resolvedRefusal(rule: MailEndpointRule, host: string): Promise<string | null> {
  if (!rule.refusePrivate || listed(rule, host) || isIP(host.replace(/^\[(.*)\]$/, '$1'))) return null;
  const addresses = await lookup(host, { all: true }).catch(() => []);
  const inside = addresses.find((a) => isPrivateAddress(a.address));
  return inside ? privateRefusal(host, inside.address) : null;
}

/** The fields of a connection (as given) that name a server the rule does not allow. */
export function endpointErrors(rule: MailEndpointRule, input: { smtp_host?: string; smtp_port?: number; imap_host?: string | null; imap_port?: number | null }, current?: { smtp_host: string; smtp_port: number; imap_host: string | null; imap_port: number | null }): FieldErrors {
  const errors: FieldErrors = {};
  const smtpHost = input.smtp_host ?? current?.smtp_host;
  const smtpPort = input.smtp_port ?? current?.smtp_port;
  if ((input.smtp_host !== undefined || input.smtp_port !== undefined) && smtpHost && smtpPort !== undefined) {
    const refusal = refusalOf(rule, smtpHost, smtpPort);
    if (refusal) errors[refusal.cause === 'host' && input.smtp_host !== undefined ? 'smtp_host' : 'smtp_port'] = [refusal.message];
  }
  const imapHost = input.imap_host === undefined ? current?.imap_host : input.imap_host;
  const imapPort = input.imap_port === undefined ? current?.imap_port : input.imap_port;
  if ((input.imap_host !== undefined || input.imap_port !== undefined) && imapHost && imapPort) {
    const refusal = refusalOf(rule, imapHost, imapPort);
    if (refusal) errors[refusal.cause === 'host' && input.imap_host !== undefined ? 'imap_host' : 'imap_port'] = [refusal.message];
  }
  return errors;
}
