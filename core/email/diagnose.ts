/**
 * What went wrong talking to a mail server, in a collector's words. The SMTP client (nodemailer)
 * and the IMAP client (imapflow) report failures differently; both end up here. Nothing the remote
 * end said is repeated: a host and port can be anything, and its banner ("SSH-2.0-...") or error
 * text would let the test button read other services through the server.
 */
import type { EmailConnection } from '../db/schema';
import { type CertificateProblem, certificateProblem, certificateWords, type TlsWatch } from './tls';

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
  // A certificate or TLS refusal was put in words where the connection's trust was known.
  if (error instanceof MailTlsError) return error.message;
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

/** A failed SMTP session's error (nodemailer's code and message) as a sentence about the server, when it is one of the known kinds. */
export function smtpConnectionWords(error: string, server: { host: string; port: number }): string | null {
  const at = `${server.host}:${server.port}`;
  if (/ECONNREFUSED/.test(error)) return `The mail server ${at} refused the connection: it is not running or not reachable.`;
  if (/ETIMEDOUT|timed? ?out|ESOCKET/i.test(error)) return `The mail server ${at} did not answer in time.`;
  if (/ENOTFOUND|EAI_AGAIN|getaddrinfo/.test(error)) return `The mail server name ${server.host} could not be found.`;
  if (/EAUTH|\b535\b|Invalid login|authentication/i.test(error)) return `The mail server ${at} refused the username or password.`;
  if (/certificate|self[- ]signed|TLS|SSL/i.test(error)) return `The secure connection to ${at} failed (certificate or TLS settings).`;
  if (/ECONNRESET|socket hang up|closed/i.test(error)) return `The mail server ${at} closed the connection unexpectedly.`;
  return null;
}

/** A certificate or TLS refusal, already in a collector's words (certificateWords). */
export class MailTlsError extends Error {
  constructor(
    message: string,
    readonly problem: Exclude<CertificateProblem, null>,
  ) {
    super(message);
  }
}

/**
 * A failed send as the error the senders record: our sentence plus the SMTP status (for example
 * "The mail server refused the sender (5.7.1)."), with nodemailer's codes kept so a caller can
 * still tell a refusal from a lost connection. What the server said goes to the operator's log
 * (stderr) only: on a team server it may come from a host the user cannot otherwise read.
 */
export class MailDeliveryError extends Error {
  code?: string;
  originalCode?: string;
  responseCode?: number;
  timeoutType?: string;
  command?: string;
  /** The SMTP status only ("550 5.7.1"), never the server's text. */
  response?: string;
}

const STEP_WORDS: Array<[RegExp, string]> = [
  [/^MAIL\b/i, 'the sender'],
  [/^RCPT\b/i, 'the recipient'],
  [/^(DATA|BDAT)\b|^message/i, 'the message'],
  [/^AUTH\b/i, 'the username or password'],
  [/^STARTTLS\b/i, 'to start a secure (TLS) connection'],
];

/** The SMTP status of a reply: the enhanced code (RFC 3463) when it follows the reply code, else the reply code. */
export function smtpStatusClass(response: string | undefined, responseCode: number | undefined): string | null {
  const enhanced = /^\d{3}[ -]([245]\.\d{1,3}\.\d{1,3})\b/.exec(response ?? '');
  if (enhanced) return enhanced[1];
  return typeof responseCode === 'number' ? String(responseCode) : null;
}

/** "The mail server smtp.example:587 refused the sender (5.7.1)." for a negative reply to a step of the session. */
export function smtpRefusalWords(command: string | undefined, statusClass: string | null, server: { host: string; port: number }): string {
  const what = STEP_WORDS.find(([re]) => re.test(command ?? ''))?.[1] ?? 'the request';
  return `The mail server ${server.host}:${server.port} refused ${what}${statusClass ? ` (${statusClass})` : ''}.`;
}

export function smtpFailure(
  error: unknown,
  connection: Pick<EmailConnection, 'smtp_host' | 'smtp_port' | 'smtp_tls_cert' | 'tls_review' | 'require_tls'>,
  watch: TlsWatch,
): MailDeliveryError {
  const e = (typeof error === 'object' && error !== null ? error : { message: String(error) }) as MailError & { originalCode?: string; timeoutType?: string; command?: string };
  const server: MailServer = { protocol: 'SMTP', host: connection.smtp_host, port: connection.smtp_port };
  const statusClass = typeof e.responseCode === 'number' && e.responseCode >= 400 ? smtpStatusClass(e.response, e.responseCode) : null;
  // With TLS required, a refused STARTTLS (offered or not) is the downgrade the setting guards against.
  const problem = e.command === 'STARTTLS' && connection.require_tls === 1 ? 'tls_missing' : certificateProblem(error, watch, connection.smtp_tls_cert !== null);
  const words = problem
    ? certificateWords(problem, server, connection.tls_review === 1)
    : statusClass
      ? smtpRefusalWords(e.command, statusClass, server)
      : (smtpConnectionWords(`${e.code ?? ''} ${e.originalCode ?? ''} ${e.message ?? ''}`, server) ?? `The mail server ${server.host}:${server.port} did not answer as an SMTP server should.`);
  console.error(`ardesk mail: SMTP ${server.host}:${server.port}${e.command ? ` ${e.command}` : ''}: ${e.message ?? String(error)}`);
  const failure = new MailDeliveryError(words.endsWith('.') ? words : `${words}.`);
  // A certificate or a missing TLS stops the session before anything is sent: like any TLS failure.
  failure.code = problem ? 'ETLS' : e.code;
  if (e.originalCode) failure.originalCode = e.originalCode;
  if (typeof e.responseCode === 'number') failure.responseCode = e.responseCode;
  if (e.timeoutType) failure.timeoutType = e.timeoutType;
  if (e.command) failure.command = e.command;
  if (typeof e.responseCode === 'number') failure.response = [e.responseCode, statusClass !== String(e.responseCode) ? statusClass : null].filter(Boolean).join(' ');
  return failure;
}
