/** Opening the connection's IMAP mailbox (imapflow), with the same timeouts and TLS stance as SMTP. */
import type { ImapFlow } from 'imapflow';
import type { EmailConnection } from '../db/schema';
import type { SecretBox } from '../secrets';

export const IMAP_TIMEOUT_SECONDS = 15;

export type ImapSettings = Pick<EmailConnection, 'imap_host' | 'imap_port' | 'imap_secure' | 'imap_username' | 'imap_password_enc' | 'name'>;

export function hasImap(connection: Pick<EmailConnection, 'imap_host' | 'imap_port'>): connection is typeof connection & { imap_host: string; imap_port: number } {
  return connection.imap_host !== null && connection.imap_port !== null;
}

/** Thrown before any network traffic when the stored IMAP password cannot be read. */
export class UnreadableSecretError extends Error {}

/** A logged-in IMAP client; the caller logs out. Throws the client's own errors (see diagnose.ts). */
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
  const client = new ImapFlow({
    host: connection.imap_host,
    port: connection.imap_port,
    secure: connection.imap_secure === 1,
    auth: { user: connection.imap_username ?? '', pass },
    logger: false,
    connectionTimeout: IMAP_TIMEOUT_SECONDS * 1000,
    greetingTimeout: IMAP_TIMEOUT_SECONDS * 1000,
    socketTimeout: 4 * IMAP_TIMEOUT_SECONDS * 1000,
    // Self-hosted mail servers commonly run without a CA-signed certificate (as for SMTP).
    tls: { rejectUnauthorized: false },
  });
  // A dropped socket surfaces as a rejected command; the event must not crash the process.
  client.on('error', () => undefined);
  await client.connect();
  return client;
}
