/**
 * "Test connection": logs in to the connection's SMTP server and, when it has one, its IMAP server
 * and mailbox, and says in words what failed. Nothing is sent and nothing is stored.
 */
import type { Db } from '../db/connection';
import { ANY_MAIL_ENDPOINT, endpointRefusal, type MailEndpointRule } from './endpoints';
import type { EmailConnection } from '../db/schema';
import { NotFoundError } from '../errors';
import { describeMailError } from './diagnose';
import { hasImap, IMAP_TIMEOUT_SECONDS, openImap, UnreadableSecretError } from './imap';
import { SMTP_TIMEOUT_SECONDS, smtpTransport } from './mailer';
import type { SecretBox } from '../secrets';

export interface CheckOutcome {
  ok: boolean;
  message: string;
}

export interface ConnectionCheck {
  smtp: CheckOutcome;
  /** null when the connection has no IMAP server (replies are not read). */
  imap: CheckOutcome | null;
}

async function checkSmtp(connection: EmailConnection, secrets: SecretBox): Promise<CheckOutcome> {
  if (connection.smtp_password_enc) {
    try {
      secrets.decrypt(connection.smtp_password_enc);
    } catch {
      return { ok: false, message: "The stored SMTP password cannot be decrypted with this database's key; enter it again" };
    }
  }
  const transport = smtpTransport(connection, secrets);
  try {
    await transport.verify();
    return { ok: true, message: `Connected to ${connection.smtp_host}:${connection.smtp_port}${connection.smtp_username ? ' and signed in' : ''}` };
  } catch (err) {
    return { ok: false, message: describeMailError(err, { protocol: 'SMTP', host: connection.smtp_host, port: connection.smtp_port }, SMTP_TIMEOUT_SECONDS) };
  } finally {
    transport.close();
  }
}

async function checkImap(connection: EmailConnection & { imap_host: string; imap_port: number }, secrets: SecretBox): Promise<CheckOutcome> {
  const server = { protocol: 'IMAP' as const, host: connection.imap_host, port: connection.imap_port };
  let client: Awaited<ReturnType<typeof openImap>> | null = null;
  try {
    client = await openImap(connection, secrets);
    const status = await client.status(connection.imap_mailbox, { messages: true });
    if (!status) return { ok: false, message: `Signed in to ${server.host}:${server.port}, but the mailbox "${connection.imap_mailbox}" does not exist there` };
    return { ok: true, message: `Signed in to ${server.host}:${server.port}; mailbox ${connection.imap_mailbox} holds ${status.messages ?? 0} messages` };
  } catch (err) {
    return { ok: false, message: err instanceof UnreadableSecretError ? err.message : describeMailError(err, server, IMAP_TIMEOUT_SECONDS) };
  } finally {
    await client?.logout().catch(() => undefined);
  }
}

export async function checkConnection(engine: { db: Db; secrets: SecretBox }, companyId: string, connectionId: string, rule: MailEndpointRule = ANY_MAIL_ENDPOINT): Promise<ConnectionCheck> {
  const connection = await engine.db.selectFrom('email_connections').selectAll().where('company_id', '=', companyId).where('id', '=', connectionId).executeTakeFirst();
  if (!connection) throw new NotFoundError('Email connection', connectionId);
  // A connection saved before the rule (or under another) is not tried against a server it forbids.
  const refusedSmtp = endpointRefusal(rule, connection.smtp_host, connection.smtp_port);
  const refusedImap = hasImap(connection) ? endpointRefusal(rule, connection.imap_host, connection.imap_port) : null;
  const [smtp, imap] = await Promise.all([
    refusedSmtp ? { ok: false, message: refusedSmtp } : checkSmtp(connection, engine.secrets),
    !hasImap(connection) ? Promise.resolve(null) : refusedImap ? { ok: false, message: refusedImap } : checkImap(connection, engine.secrets),
  ]);
  return { smtp, imap };
}
