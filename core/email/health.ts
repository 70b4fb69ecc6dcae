/**
 * Whether the company's email can go out, in words a collector can act on: no default
 * connection, or the last send through it failed (and nothing was sent since), or fine.
 */
import type { Db } from '../db/connection';
import { defaultConnection } from './connections';
import { smtpConnectionWords } from './diagnose';
import { isCertificateWords } from './tls';

export interface EmailHealth {
  status: 'ok' | 'failing' | 'missing';
  connection_id: string | null;
  connection_name: string | null;
  /** What is wrong, worded for a person; null when ok. */
  message: string | null;
  /** When the failure was seen. */
  since: string | null;
}

/**
 * A recorded send error as a sentence about the server. Errors recorded since sends speak in
 * their own words (diagnose.ts smtpFailure) are shown as they are; an older row may hold
 * nodemailer's message, which is read for its code.
 */
export function describeSendError(error: string, server: { host: string; port: number }): string {
  if (/^The mail server /.test(error) || isCertificateWords(error)) return error;
  return smtpConnectionWords(error, server) ?? `Sending through ${server.host}:${server.port} failed: ${error}`;
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
    // An email the contact rule held never reached the server: it says nothing of its health.
    .where((eb) => eb.or([eb('last_error', 'is', null), eb('last_error', 'not like', 'Held: %')]))
    .orderBy('updated_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  const base = { connection_id: connection.id, connection_name: connection.name };
  if (last?.status === 'not_sent' && last.last_error) {
    return { ...base, status: 'failing', message: describeSendError(last.last_error, { host: connection.smtp_host, port: connection.smtp_port }), since: last.updated_at };
  }
  return { ...base, status: 'ok', message: null, since: null };
}
