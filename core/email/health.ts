/**
 * Whether the company's email can go out, in words a collector can act on: no default
 * connection, or the last send through it failed (and nothing was sent since), or fine.
 */
import type { Db } from '../db/connection';
import { defaultConnection } from './connections';

export interface EmailHealth {
  status: 'ok' | 'failing' | 'missing';
  connection_id: string | null;
  connection_name: string | null;
  /** What is wrong, worded for a person; null when ok. */
  message: string | null;
  /** When the failure was seen. */
  since: string | null;
}

/** A mail error (nodemailer's message or code) as a sentence about the server. */
export function describeSendError(error: string, server: { host: string; port: number }): string {
  const at = `${server.host}:${server.port}`;
  if (/ECONNREFUSED/.test(error)) return `The mail server ${at} refused the connection: it is not running or not reachable.`;
  if (/ETIMEDOUT|timed? ?out|ESOCKET/i.test(error)) return `The mail server ${at} did not answer in time.`;
  if (/ENOTFOUND|EAI_AGAIN|getaddrinfo/.test(error)) return `The mail server name ${server.host} could not be found.`;
  if (/EAUTH|\b535\b|Invalid login|authentication/i.test(error)) return `The mail server ${at} refused the username or password.`;
  if (/certificate|self[- ]signed|TLS|SSL/i.test(error)) return `The secure connection to ${at} failed (certificate or TLS settings).`;
  return `Sending through ${at} failed: ${error}`;
}

export async function emailHealth(db: Db, companyId: string): Promise<EmailHealth> {
  const connection = await defaultConnection(db, companyId);
  if (!connection) return { status: 'missing', connection_id: null, connection_name: null, message: 'No default email connection is set up: reminders cannot be sent.', since: null };
  const last = await db
    .selectFrom('email_outbox')
    .select(['status', 'last_error', 'updated_at'])
    .where('company_id', '=', companyId)
    .where('email_connection_id', '=', connection.id)
    .where('status', 'in', ['sent', 'not_sent'])
    .orderBy('updated_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  const base = { connection_id: connection.id, connection_name: connection.name };
  if (last?.status === 'not_sent' && last.last_error) {
    return { ...base, status: 'failing', message: describeSendError(last.last_error, { host: connection.smtp_host, port: connection.smtp_port }), since: last.updated_at };
  }
  return { ...base, status: 'ok', message: null, since: null };
}
