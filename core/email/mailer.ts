import type { EmailConnection } from '../db/schema';
import type { SecretBox } from '../secrets';
import { smtpFailure } from './diagnose';
import { newWatch, type TlsWatch, tlsOptions } from './tls';

export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Stable Message-ID: a retried send carries the same id, so receivers can drop duplicates. */
  messageId: string;
  inReplyTo?: string;
  /** The thread's Message-IDs, oldest first (an answer's); else In-Reply-To alone. */
  references?: string[];
  /** Files sent with the message (a statement or invoice PDF), made at send time. */
  attachments?: Array<{ filename: string; content: Buffer; contentType: string }>;
}

export interface SentEmail {
  messageId: string;
  accepted: string[];
}

export const SMTP_TIMEOUT_SECONDS = 10;

export type SmtpSettings = Pick<
  EmailConnection,
  'smtp_host' | 'smtp_port' | 'smtp_secure' | 'smtp_username' | 'smtp_password_enc' | 'require_tls' | 'smtp_tls_cert'
>;

/**
 * A transport to the connection's SMTP server (one message or one check, then closed). STARTTLS
 * is used whenever the server offers it, and required when the connection says so; the
 * certificate is verified (tls.ts). `watch` learns which certificate the server showed.
 */
export function smtpTransport(connection: SmtpSettings, secrets: SecretBox, watch: TlsWatch = newWatch()) {
  // Loaded on the first message or check: most runs send none.
  const { createTransport } = require('nodemailer') as typeof import('nodemailer');
  const secure = connection.smtp_secure === 1;
  return createTransport({
    host: connection.smtp_host,
    port: connection.smtp_port,
    secure,
    requireTLS: !secure && connection.require_tls === 1,
    auth: connection.smtp_username ? { user: connection.smtp_username, pass: connection.smtp_password_enc ? secrets.decrypt(connection.smtp_password_enc) : '' } : undefined,
    connectionTimeout: SMTP_TIMEOUT_SECONDS * 1000,
    greetingTimeout: SMTP_TIMEOUT_SECONDS * 1000,
    socketTimeout: 20_000,
    tls: tlsOptions(connection.smtp_host, connection.smtp_tls_cert, watch),
  });
}

/**
 * Sends one message over the connection's SMTP server; throws on any refusal so callers can retry.
 * The error thrown says what happened in our words plus the SMTP status (smtpFailure); what the
 * server said goes to the operator's log only.
 */
export async function sendEmail(connection: EmailConnection, secrets: SecretBox, email: OutgoingEmail): Promise<SentEmail> {
  const watch = newWatch();
  const transport = smtpTransport(connection, secrets, watch);
  try {
    const info = await transport.sendMail({
      from: connection.from_name ? { name: connection.from_name, address: connection.from_email } : connection.from_email,
      to: email.to,
      subject: email.subject,
      text: email.text,
      html: email.html,
      messageId: email.messageId,
      inReplyTo: email.inReplyTo,
      references: email.references ?? email.inReplyTo,
      attachments: email.attachments,
    });
    return { messageId: info.messageId, accepted: (info.accepted ?? []).map(String) };
  } catch (err) {
    throw smtpFailure(err, connection, watch);
  } finally {
    transport.close();
  }
}
