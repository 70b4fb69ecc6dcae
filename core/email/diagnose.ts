/**
 * What went wrong talking to a mail server, in a collector's words. The SMTP client (nodemailer)
 * and the IMAP client (imapflow) report failures differently; both end up here. Nothing the remote
 * end said is repeated: a host and port can be anything, and its banner ("SSH-2.0-...") or error
 * text would let the test button read other services through the server.
 */
export interface MailServer {
  protocol: 'SMTP' | 'IMAP';
  host: string;
  port: number;
}

interface MailError {
  message?: string;
  code?: string;
  authenticationFailed?: boolean;
  responseText?: string;
  serverResponseCode?: string;
  responseCode?: number;
  response?: string;
}

const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'ETIMEOUT', 'CONNECT_TIMEOUT', 'EGREETING']);

export function describeMailError(error: unknown, server: MailServer, timeoutSeconds: number): string {
  const e = (typeof error === 'object' && error !== null ? error : { message: String(error) }) as MailError;
  const text = `${e.message ?? ''} ${e.responseText ?? ''} ${e.response ?? ''}`;
  const where = `${server.host}:${server.port}`;
  if (e.authenticationFailed || e.code === 'EAUTH' || e.serverResponseCode === 'AUTHENTICATIONFAILED') {
    return `The ${server.protocol} server refused the username or password`;
  }
  if (/ECONNREFUSED/.test(text) || e.code === 'ECONNREFUSED') return `Nothing answers at ${where}: the connection was refused (check the ${server.protocol} host and port)`;
  if (/ENOTFOUND|EAI_AGAIN/.test(text) || e.code === 'ENOTFOUND') return `The ${server.protocol} host "${server.host}" was not found`;
  if ((e.code && TIMEOUT_CODES.has(e.code)) || /timed? ?out/i.test(text)) return `No answer from ${where} within ${timeoutSeconds} seconds (check the ${server.protocol} host, port and firewall)`;
  if (/ssl|tls|certificate|wrong version number|EPROTO\b/i.test(text) || /^ERR_(SSL|TLS)/.test(e.code ?? '')) {
    return `The secure (TLS) connection to ${where} failed (check the TLS setting: ports ${server.protocol === 'IMAP' ? '993' : '465'} use TLS from the start, ${server.protocol === 'IMAP' ? '143' : '587'} do not)`;
  }
  if (/ECONNRESET|socket hang up|closed/i.test(text)) return `${where} closed the connection unexpectedly`;
  if (/doesn't exist|does not exist|NONEXISTENT/i.test(text)) return `The mailbox does not exist on the ${server.protocol} server`;
  return `${where} did not answer as ${server.protocol === 'IMAP' ? 'an IMAP' : 'an SMTP'} server should (check the host, the port and the TLS setting)`;
}
