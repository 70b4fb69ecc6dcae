/**
 * Reads the certificate a mail server presents, without trusting it and without signing in: the
 * connection test shows it (fingerprint, subject), and an owner's "trust" pins exactly what is read
 * here. Speaks only as much SMTP or IMAP as reaching TLS takes (the greeting, EHLO or CAPABILITY,
 * STARTTLS); everything the server says is bounded in size and time and never repeated.
 */
import { X509Certificate } from 'node:crypto';
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { type CertificateInfo, certificateInfo, type MailProtocol } from './tls';

export type ProbeResult = { tls: false } | { tls: true; certificate: CertificateInfo; pem: string };

const MAX_REPLY_BYTES = 16 * 1024;

export async function probeCertificate(protocol: MailProtocol, host: string, port: number, secure: boolean, timeoutMs: number): Promise<ProbeResult> {
  const deadline = AbortSignal.timeout(timeoutMs);
  const plain = await open(host, port, deadline);
  try {
    if (!secure) {
      const offered = protocol === 'SMTP' ? await smtpStartTls(plain, deadline) : await imapStartTls(plain, deadline);
      if (!offered) return { tls: false };
    }
    const secured = await handshake(plain, host, deadline);
    try {
      const peer = secured.getPeerCertificate();
      if (!peer?.raw) throw new Error('The server presented no certificate');
      const pem = new X509Certificate(peer.raw).toString();
      return { tls: true, certificate: certificateInfo(peer), pem };
    } finally {
      secured.destroy();
    }
  } finally {
    plain.destroy();
  }
}

function open(host: string, port: number, deadline: AbortSignal): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host, port, signal: deadline });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

function handshake(socket: Socket, host: string, deadline: AbortSignal): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    // Not trusted here on purpose: this only reads what the server shows, nothing is sent over it.
    const secured = tlsConnect({ socket, rejectUnauthorized: false, ...(isIP(host) ? {} : { servername: host }) });
    const stop = () => {
      secured.destroy();
      reject(deadline.reason);
    };
    deadline.addEventListener('abort', stop, { once: true });
    secured.once('secureConnect', () => {
      deadline.removeEventListener('abort', stop);
      resolve(secured);
    });
    secured.once('error', (err) => {
      deadline.removeEventListener('abort', stop);
      reject(err);
    });
  });
}

/** Reads lines until `done` says the reply is complete; at most MAX_REPLY_BYTES. */
function reply(socket: Socket, deadline: AbortSignal, done: (line: string) => boolean): Promise<string[]> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const lines: string[] = [];
    const finish = (err?: Error) => {
      socket.off('data', onData);
      socket.off('error', finish);
      socket.off('close', onClose);
      deadline.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve(lines);
    };
    const onAbort = () => finish(deadline.reason as Error);
    const onClose = () => finish(new Error('The server closed the connection'));
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      if (buffer.length > MAX_REPLY_BYTES) return finish(new Error('The server said too much'));
      let at: number;
      while ((at = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, at).replace(/\r$/, '');
        buffer = buffer.slice(at + 1);
        lines.push(line);
        if (done(line)) return finish();
      }
    };
    socket.on('data', onData);
    socket.once('error', finish);
    socket.once('close', onClose);
    deadline.addEventListener('abort', onAbort, { once: true });
  });
}

/** The last line of an SMTP reply is "NNN text", the others "NNN-text". */
const smtpLast = (line: string) => /^\d{3}(?: |$)/.test(line);

async function smtpStartTls(socket: Socket, deadline: AbortSignal): Promise<boolean> {
  const greeting = await reply(socket, deadline, smtpLast);
  if (!greeting.at(-1)?.startsWith('220')) throw new Error('The server did not greet as an SMTP server');
  socket.write('EHLO ardesk.invalid\r\n');
  const ehlo = await reply(socket, deadline, smtpLast);
  if (!ehlo.some((line) => /^250[ -]STARTTLS\b/i.test(line))) return false;
  socket.write('STARTTLS\r\n');
  const ready = await reply(socket, deadline, smtpLast);
  if (!ready.at(-1)?.startsWith('220')) return false;
  return true;
}

async function imapStartTls(socket: Socket, deadline: AbortSignal): Promise<boolean> {
  const greeting = await reply(socket, deadline, () => true);
  if (!/^\* OK\b/i.test(greeting[0] ?? '')) throw new Error('The server did not greet as an IMAP server');
  socket.write('a1 CAPABILITY\r\n');
  const capability = await reply(socket, deadline, (line) => /^a1 /i.test(line));
  if (!capability.some((line) => /^\* CAPABILITY\b.*\bSTARTTLS\b/i.test(line)) && !/\bSTARTTLS\b/i.test(greeting[0] ?? '')) return false;
  socket.write('a2 STARTTLS\r\n');
  const ready = await reply(socket, deadline, (line) => /^a2 /i.test(line));
  return /^a2 OK\b/i.test(ready.at(-1) ?? '');
}
