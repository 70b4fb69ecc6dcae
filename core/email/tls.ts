/**
 * How a connection's SMTP and IMAP traffic is secured. Certificates are verified against Node's
 * bundled CAs, the system's and NODE_EXTRA_CA_CERTS, with the host's name; a self-hosted server
 * with its own certificate is trusted only through the exact certificate an owner pinned. Plain
 * text stays allowed for a relay on this machine (loopback), and elsewhere only while the server
 * does not offer TLS and the connection does not require it.
 */
import { X509Certificate } from 'node:crypto';
import { checkServerIdentity, createSecureContext, getCACertificates, type PeerCertificate, type SecureContext } from 'node:tls';

export type MailProtocol = 'SMTP' | 'IMAP';

/** What the connection test shows of a server's certificate. */
export interface CertificateInfo {
  /** SHA-256 fingerprint, colon-separated hex (as openssl and browsers show it). */
  sha256: string;
  subject: string;
  issuer: string;
  valid_from: string;
  valid_to: string;
}

/** What the TLS check saw during one connection: the mail clients pass on only its message. */
export interface TlsWatch {
  /** The server presented a certificate other than the pinned one. */
  pinMismatch: boolean;
}

let trustedCas: string[] | null = null;

/** Node's bundled CAs plus NODE_EXTRA_CA_CERTS ('default') and the system's store, read once. */
function systemCas(): string[] {
  trustedCas ??= [...new Set([...getCACertificates('default'), ...getCACertificates('system')])];
  return trustedCas;
}

/**
 * Building a context from a few hundred CAs takes tens of milliseconds: one is kept for the
 * known CAs and one per pinned certificate (a handful per database), not one per message.
 */
const contexts = new Map<string, SecureContext>();
const MAX_CONTEXTS = 64;

function secureContextFor(pinnedPem: string | null): SecureContext {
  const key = pinnedPem ?? '';
  let context = contexts.get(key);
  if (!context) {
    if (contexts.size >= MAX_CONTEXTS) contexts.delete(contexts.keys().next().value as string);
    context = createSecureContext({
      minVersion: 'TLSv1.2',
      ca: pinnedPem ? [...systemCas(), pinnedPem] : systemCas(),
      // The pinned certificate is a trust anchor even when it is not self-signed.
      allowPartialTrustChain: pinnedPem !== null,
    });
    contexts.set(key, context);
  }
  return context;
}

/** A certificate's fields as shown, from a PEM or a peer certificate. */
export function certificateInfo(cert: X509Certificate | PeerCertificate): CertificateInfo {
  const x509 = cert instanceof X509Certificate ? cert : new X509Certificate(cert.raw);
  return {
    sha256: x509.fingerprint256,
    subject: oneLine(x509.subject),
    issuer: oneLine(x509.issuer),
    valid_from: new Date(x509.validFrom).toISOString(),
    valid_to: new Date(x509.validTo).toISOString(),
  };
}

/** "CN=mail.example\nO=Example" as "CN=mail.example, O=Example". */
function oneLine(name: string): string {
  return name.split('\n').filter(Boolean).join(', ');
}

export function pemInfo(pem: string): CertificateInfo {
  return certificateInfo(new X509Certificate(pem));
}

/**
 * The TLS options of one connection to host. With a pinned certificate, only that certificate is
 * accepted (it is its own trust anchor, whatever its name and issuer); without, the chain must
 * reach a known CA and name the host.
 */
export function tlsOptions(host: string, pinnedPem: string | null, watch: TlsWatch) {
  const pinned = pinnedPem ? new X509Certificate(pinnedPem).fingerprint256 : null;
  return {
    rejectUnauthorized: true,
    secureContext: secureContextFor(pinnedPem),
    checkServerIdentity: (name: string, cert: PeerCertificate): Error | undefined => {
      if (pinned) {
        if (cert.fingerprint256 === pinned) return undefined;
        watch.pinMismatch = true;
        return Object.assign(new Error('The certificate is not the one trusted for this server'), { code: 'ERR_CERT_PIN_MISMATCH' });
      }
      return checkServerIdentity(host || name, cert);
    },
  };
}

export function newWatch(): TlsWatch {
  return { pinMismatch: false };
}

/** What a certificate failure looked like, read from the TLS error the mail client passes on. */
export type CertificateProblem = 'changed' | 'unknown_authority' | 'name_mismatch' | 'expired' | 'tls_missing' | null;

const UNKNOWN_AUTHORITY = /self[- ]signed|unable to (verify|get local issuer)|unable to get issuer|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT/i;

export function certificateProblem(error: unknown, watch: TlsWatch, pinned: boolean): CertificateProblem {
  const e = (typeof error === 'object' && error !== null ? error : { message: String(error) }) as { message?: string; code?: string; originalCode?: string; tlsFailed?: boolean };
  const text = `${e.message ?? ''} ${e.code ?? ''} ${e.originalCode ?? ''}`;
  if (watch.pinMismatch) return 'changed';
  if (/STARTTLS/i.test(text) && /not support|does not offer|not possible|EHLO failed/i.test(text)) return 'tls_missing';
  if (/certificate has expired|CERT_HAS_EXPIRED/i.test(text)) return 'expired';
  // A pinned certificate is a trust anchor: any other certificate fails its chain.
  if (UNKNOWN_AUTHORITY.test(text)) return pinned ? 'changed' : 'unknown_authority';
  if (/altnames|ERR_TLS_CERT_ALTNAME_INVALID|does not match certificate/i.test(text)) return 'name_mismatch';
  return null;
}

/** Whether a recorded send error is already one of certificateWords' sentences. */
export function isCertificateWords(text: string): boolean {
  return /^(The mail server's certificate changed since|Sending waits: |The (SMTP|IMAP) server \S+ shows a certificate|The certificate of \S+ (is for another|has expired)|\S+ no longer offers a secure \(TLS\) connection)/.test(text);
}

/** The sentence a collector sees for a certificate problem. */
export function certificateWords(problem: Exclude<CertificateProblem, null>, server: { protocol: MailProtocol; host: string; port: number }, review: boolean): string {
  const where = `${server.host}:${server.port}`;
  switch (problem) {
    case 'changed':
      return `The mail server's certificate changed since you trusted it (${server.protocol} ${where}). If its administrator replaced it, an owner can test the connection in Settings › Email and trust the new one; otherwise someone may be intercepting the connection, so nothing is sent.`;
    case 'unknown_authority':
      return review
        ? `Sending waits: ${server.protocol} ${where} shows a certificate no known authority signed, and mail servers' certificates are now checked. This connection was set up before; an owner can test it in Settings › Email and trust that certificate.`
        : `The ${server.protocol} server ${where} shows a certificate no known authority signed. If it is your own server, an owner can test the connection in Settings › Email and trust that certificate.`;
    case 'name_mismatch':
      return `The certificate of ${where} is for another server name (${server.protocol}): check the host name, or an owner can trust this certificate in Settings › Email.`;
    case 'expired':
      return `The certificate of ${where} has expired (${server.protocol}): its administrator must renew it.`;
    case 'tls_missing':
      return `${where} no longer offers a secure (TLS) connection, and this connection requires one (${server.protocol}): nothing was sent. Someone may be removing TLS on the way; check with the mail server's administrator.`;
  }
}
