/** Opening the connection's IMAP mailbox (imapflow), with the same timeouts and TLS stance as SMTP. */
import type { ImapFlow } from 'imapflow';
import type { EmailConnection } from '../db/schema';
import type { SecretBox } from '../secrets';
import { MailTlsError } from './diagnose';
import { certificateProblem, certificateWords, newWatch, tlsOptions } from './tls';

export const IMAP_TIMEOUT_SECONDS = 15;

export type ImapSettings = Pick<EmailConnection, 'imap_host' | 'imap_port' | 'imap_secure' | 'imap_username' | 'imap_password_enc' | 'name' | 'require_tls' | 'imap_tls_cert' | 'tls_review'>;

export function hasImap(connection: Pick<EmailConnection, 'imap_host' | 'imap_port'>): connection is typeof connection & { imap_host: string; imap_port: number } {
  return connection.imap_host !== null && connection.imap_port !== null;
}

/** Thrown before any network traffic when the stored IMAP password cannot be read. */
export class UnreadableSecretError extends Error {}

/**
 * A logged-in IMAP client; the caller logs out. A certificate the connection does not trust, or
 * a server that stopped offering the TLS the connection requires, is a MailTlsError in words;
 * anything else is the client's own error (see diagnose.ts).
 */
export async function openImap(connection: ImapSettings, secrets: SecretBox): Promise<ImapFlow> {
  if (!hasImap(connection)) throw new Error(`Connection "${connection.name}" has no IMAP server`);
  let pass = '';
  if (connection.imap_password_enc) {
    try {
      pass = secrets.decrypt(connection.imap_password_enc);
    } catch {
      throw new UnreadableSecretError(`The IMAP password of connection "${connection.name}" cannot be decrypted with this database's key; enter it again`);
    }
  }
  // Loaded on the first mailbox opened: most runs open none.
  const { ImapFlow } = await import('imapflow');
  const secure = connection.imap_secure === 1;
  const watch = newWatch();
  const client = new ImapFlow({
    host: connection.imap_host,
    port: connection.imap_port,
    secure,
    // STARTTLS whenever offered (imapflow's default); required when the connection says so.
    ...(!secure && connection.require_tls === 1 ? { doSTARTTLS: true } : {}),
    auth: { user: connection.imap_username ?? '', pass },
    logger: false,
    connectionTimeout: IMAP_TIMEOUT_SECONDS * 1000,
    greetingTimeout: IMAP_TIMEOUT_SECONDS * 1000,
    socketTimeout: 4 * IMAP_TIMEOUT_SECONDS * 1000,
    tls: tlsOptions(connection.imap_host, connection.imap_tls_cert, watch),
  });
  // A dropped socket surfaces as a rejected command; the event must not crash the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    const problem = !secure && connection.require_tls === 1 && (err as { tlsFailed?: boolean }).tlsFailed ? 'tls_missing' : certificateProblem(err, watch, connection.imap_tls_cert !== null);
    if (problem) throw new MailTlsError(certificateWords(problem, { protocol: 'IMAP', host: connection.imap_host, port: connection.imap_port }, connection.tls_review === 1), problem);
    throw err;
  }
  return client;
}
