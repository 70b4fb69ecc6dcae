import type { EmailConnection } from '../db/schema';
import type { SecretBox } from '../secrets';

export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Stable Message-ID: a retried send carries the same id, so receivers can drop duplicates. */
  messageId: string;
  inReplyTo?: string;
  /** Files sent with the message (a statement or invoice PDF), made at send time. */
  attachments?: Array<{ filename: string; content: Buffer; contentType: string }>;
}

export interface SentEmail {
  messageId: string;
  accepted: string[];
  response: string;
}

export const SMTP_TIMEOUT_SECONDS = 10;

/** A transport to the connection's SMTP server (one message or one check, then closed). */
export function smtpTransport(connection: EmailConnection, secrets: SecretBox) {
  // Loaded on the first message or check: most runs send none.
  const { createTransport } = require('nodemailer') as typeof import('nodemailer');
  return createTransport({
    host: connection.smtp_host,
    port: connection.smtp_port,
    secure: connection.smtp_secure === 1,
    auth: connection.smtp_username ? { user: connection.smtp_username, pass: connection.smtp_password_enc ? secrets.decrypt(connection.smtp_password_enc) : '' } : undefined,
    connectionTimeout: SMTP_TIMEOUT_SECONDS * 1000,
    greetingTimeout: SMTP_TIMEOUT_SECONDS * 1000,
    socketTimeout: 20_000,
    // Loopback and self-hosted relays commonly run without a CA-signed certificate.
    tls: { rejectUnauthorized: false },
  });
}

/** Sends one message over the connection's SMTP server; throws on any refusal so callers can retry. */
export async function sendEmail(connection: EmailConnection, secrets: SecretBox, email: OutgoingEmail): Promise<SentEmail> {
  const transport = smtpTransport(connection, secrets);
  try {
    const info = await transport.sendMail({
      from: connection.from_name ? { name: connection.from_name, address: connection.from_email } : connection.from_email,
      to: email.to,
      subject: email.subject,
      text: email.text,
      html: email.html,
      messageId: email.messageId,
      inReplyTo: email.inReplyTo,
      references: email.inReplyTo,
      attachments: email.attachments,
    });
    return { messageId: info.messageId, accepted: (info.accepted ?? []).map(String), response: String(info.response ?? '') };
  } finally {
    transport.close();
  }
}
