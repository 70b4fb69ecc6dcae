/**
 * Which mail servers email connections may reach. On a desktop, any: the person tests their own
 * mailbox. On a team server, a connection's "Test" makes the server connect wherever a collector
 * says, so the operator chooses the hosts and ports (default: the usual SMTP and IMAP ports),
 * and the server is not a scanner of its own network.
 */
import type { FieldErrors } from '../errors';

export interface MailEndpointRule {
  /** Ports allowed, or null for any. */
  ports: number[] | null;
  /** Host names or addresses allowed (compared without case), or null for any. */
  hosts: string[] | null;
}

export const ANY_MAIL_ENDPOINT: MailEndpointRule = { ports: null, hosts: null };
export const USUAL_MAIL_PORTS = [25, 465, 587, 143, 993];

/** Why host:port is not allowed, in words; null when it is. */
export function endpointRefusal(rule: MailEndpointRule, host: string, port: number): string | null {
  if (rule.hosts && !rule.hosts.some((h) => h.toLowerCase() === host.toLowerCase())) return `This server may connect only to the mail hosts its operator allows (${rule.hosts.join(', ')})`;
  if (rule.ports && !rule.ports.includes(port)) return `This server may connect to mail servers only on ports ${rule.ports.join(', ')}`;
  return null;
}

/** The fields of a connection (as given) that name a server the rule does not allow. */
export function endpointErrors(rule: MailEndpointRule, input: { smtp_host?: string; smtp_port?: number; imap_host?: string | null; imap_port?: number | null }, current?: { smtp_host: string; smtp_port: number; imap_host: string | null; imap_port: number | null }): FieldErrors {
  const errors: FieldErrors = {};
  const smtpHost = input.smtp_host ?? current?.smtp_host;
  const smtpPort = input.smtp_port ?? current?.smtp_port;
  if ((input.smtp_host !== undefined || input.smtp_port !== undefined) && smtpHost && smtpPort !== undefined) {
    const refusal = endpointRefusal(rule, smtpHost, smtpPort);
    if (refusal) errors[input.smtp_host !== undefined && rule.hosts ? 'smtp_host' : 'smtp_port'] = [refusal];
  }
  const imapHost = input.imap_host === undefined ? current?.imap_host : input.imap_host;
  const imapPort = input.imap_port === undefined ? current?.imap_port : input.imap_port;
  if ((input.imap_host !== undefined || input.imap_port !== undefined) && imapHost && imapPort) {
    const refusal = endpointRefusal(rule, imapHost, imapPort);
    if (refusal) errors[input.imap_host !== undefined && rule.hosts ? 'imap_host' : 'imap_port'] = [refusal];
  }
  return errors;
}
