/**
 * "Test connection": logs in to the connection's SMTP server and, when it has one, its IMAP server
 * and mailbox, and says in words what failed. Each server's certificate is read too (probe.ts), so
 * an owner can see the fingerprint and subject of a self-hosted server's own certificate and trust
 * exactly that one. Nothing is sent; the only thing stored is that a connection made before
 * certificates were checked has now passed with them (its review is over).
 */
import { type Engine, runCommand, type Scope } from '../engine';
import { ANY_MAIL_ENDPOINT, endpointRefusal, type MailEndpointRule, resolvedRefusal } from './endpoints';
import type { EmailConnection } from '../db/schema';
import { NotFoundError } from '../errors';
import { describeMailError, MailTlsError } from './diagnose';
import { hasImap, IMAP_TIMEOUT_SECONDS, openImap, UnreadableSecretError } from './imap';
import { SMTP_TIMEOUT_SECONDS, smtpTransport } from './mailer';
import { type ProbeResult, probeCertificate } from './probe';
import type { SecretBox } from '../secrets';
import { type CertificateInfo, certificateProblem, certificateWords, type MailProtocol, newWatch, pemInfo } from './tls';

/**
 * none: the server offered no TLS (allowed on loopback, or when TLS is not required);
 * verified: signed by a known authority for this host; pinned: the certificate an owner trusted;
 * untrusted: refused (unknown authority, other name, expired, or not the trusted one).
 */
export type TlsStatus = 'none' | 'verified' | 'pinned' | 'untrusted';

export interface CheckOutcome {
  ok: boolean;
  message: string;
  /** null when the server could not be reached at all. */
  tls: TlsStatus | null;
  /** What the server presented (null without TLS or when it could not be read). */
  certificate: CertificateInfo | null;
  /** The certificate an owner trusted for this server, if any. */
  trusted_certificate: CertificateInfo | null;
  /** An owner may trust the presented certificate: it was refused only for not being known. */
  can_trust: boolean;
}

export interface ConnectionCheck {
  smtp: CheckOutcome;
  /** null when the connection has no IMAP server (replies are not read). */
  imap: CheckOutcome | null;
}

async function readCertificate(protocol: MailProtocol, host: string, port: number, secure: boolean, seconds: number): Promise<ProbeResult | null> {
  return probeCertificate(protocol, host, port, secure, seconds * 1000).catch(() => null);
}

function outcome(ok: boolean, message: string, probe: ProbeResult | null, pinnedPem: string | null, problem: ReturnType<typeof certificateProblem>): CheckOutcome {
  const certificate = probe?.tls ? probe.certificate : null;
  const trusted = pinnedPem ? pemInfo(pinnedPem) : null;
  let tls: TlsStatus | null = null;
  if (problem === 'tls_missing') tls = 'none';
  else if (problem) tls = 'untrusted';
  else if (ok && probe && !probe.tls) tls = 'none';
  else if (ok) tls = trusted && certificate?.sha256 === trusted.sha256 ? 'pinned' : 'verified';
  // An expired certificate is not trusted by pinning: its administrator must renew it.
  const canTrust = certificate !== null && (problem === 'unknown_authority' || problem === 'name_mismatch' || problem === 'changed');
  return { ok, message, tls, certificate, trusted_certificate: trusted, can_trust: canTrust };
}

function refused(message: string): CheckOutcome {
  return { ok: false, message, tls: null, certificate: null, trusted_certificate: null, can_trust: false };
}

async function checkSmtp(connection: EmailConnection, secrets: SecretBox): Promise<CheckOutcome> {
  if (connection.smtp_password_enc) {
    try {
      secrets.decrypt(connection.smtp_password_enc);
    } catch {
      return refused("The stored SMTP password cannot be decrypted with this database's key; enter it again");
    }
  }
  const probe = await readCertificate('SMTP', connection.smtp_host, connection.smtp_port, connection.smtp_secure === 1, SMTP_TIMEOUT_SECONDS);
  const watch = newWatch();
  const transport = smtpTransport(connection, secrets, watch);
  const server = { protocol: 'SMTP' as const, host: connection.smtp_host, port: connection.smtp_port };
  try {
    await transport.verify();
    return outcome(true, `Connected to ${server.host}:${server.port}${connection.smtp_username ? ' and signed in' : ''}`, probe, connection.smtp_tls_cert, null);
  } catch (err) {
    const problem = (err as { command?: string }).command === 'STARTTLS' && connection.require_tls === 1 ? 'tls_missing' : certificateProblem(err, watch, connection.smtp_tls_cert !== null);
    const message = problem ? certificateWords(problem, server, connection.tls_review === 1) : describeMailError(err, server, SMTP_TIMEOUT_SECONDS);
    return outcome(false, message, probe, connection.smtp_tls_cert, problem);
  } finally {
    transport.close();
  }
}

async function checkImap(connection: EmailConnection & { imap_host: string; imap_port: number }, secrets: SecretBox): Promise<CheckOutcome> {
  const server = { protocol: 'IMAP' as const, host: connection.imap_host, port: connection.imap_port };
  const probe = await readCertificate('IMAP', server.host, server.port, connection.imap_secure === 1, IMAP_TIMEOUT_SECONDS);
  let client: Awaited<ReturnType<typeof openImap>> | null = null;
  try {
    client = await openImap(connection, secrets);
    const status = await client.status(connection.imap_mailbox, { messages: true });
    if (!status) return outcome(false, `Signed in to ${server.host}:${server.port}, but the mailbox "${connection.imap_mailbox}" does not exist there`, probe, connection.imap_tls_cert, null);
    return outcome(true, `Signed in to ${server.host}:${server.port}; mailbox ${connection.imap_mailbox} holds ${status.messages ?? 0} messages`, probe, connection.imap_tls_cert, null);
  } catch (err) {
    if (err instanceof UnreadableSecretError) return outcome(false, err.message, probe, connection.imap_tls_cert, null);
    const problem = err instanceof MailTlsError ? err.problem : null;
    return outcome(false, describeMailError(err, server, IMAP_TIMEOUT_SECONDS), probe, connection.imap_tls_cert, problem);
  } finally {
    await client?.logout().catch(() => undefined);
  }
}

export async function checkConnection(engine: Pick<Engine, 'db' | 'clock' | 'secrets'>, scope: Scope, connectionId: string, rule: MailEndpointRule = ANY_MAIL_ENDPOINT): Promise<ConnectionCheck> {
  const { companyId } = scope;
  const connection = await engine.db.selectFrom('email_connections').selectAll().where('company_id', '=', companyId).where('id', '=', connectionId).executeTakeFirst();
  if (!connection) throw new NotFoundError('Email connection', connectionId);
  // A connection saved before the rule (or under another) is not tried against a server it forbids.
  const refusedSmtp = endpointRefusal(rule, connection.smtp_host, connection.smtp_port) ?? (await resolvedRefusal(rule, connection.smtp_host));
  const refusedImap = hasImap(connection) ? (endpointRefusal(rule, connection.imap_host, connection.imap_port) ?? (await resolvedRefusal(rule, connection.imap_host))) : null;
  const [smtp, imap] = await Promise.all([
    refusedSmtp ? refused(refusedSmtp) : checkSmtp(connection, engine.secrets),
    !hasImap(connection) ? Promise.resolve(null) : refusedImap ? refused(refusedImap) : checkImap(connection, engine.secrets),
  ]);
  if (connection.tls_review === 1 && smtp.ok && (imap === null || imap.ok)) {
    await runCommand(engine, 'confirm_email_tls', scope, async (tx) => {
      await tx.db.updateTable('email_connections').set({ tls_review: 0, updated_at: tx.now }).where('id', '=', connection.id).where('company_id', '=', companyId).execute();
      await tx.record('email_connection', connection.id, 'update', { tls_review: 0 });
    });
  }
  return { smtp, imap };
}
