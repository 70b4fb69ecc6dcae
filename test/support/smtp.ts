import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  headers: Record<string, string>;
  subject: string;
  messageId: string;
  text: string;
  html: string;
  raw: string;
}

export interface SmtpOptions {
  /** Accepted credentials; when set, a session without them is refused. */
  auth?: { user: string; pass: string };
  /** A reply error for RCPT TO (e.g. a 451 or 550), or null to accept. */
  rejectRecipient?: (address: string) => { code: number; message: string } | null;
  /** A reply error for MAIL FROM, or null to accept. */
  rejectSender?: (address: string) => { code: number; message: string } | null;
  /** A certificate and key (PEM): STARTTLS is offered with them (or, with `secure`, TLS from the start). */
  tls?: { cert: string | Buffer; key: string | Buffer; secure?: boolean };
  /** Listen on this port (default: a free one), e.g. to stand in for a server that was just closed. */
  port?: number;
  /** Runs after the whole message arrived and was stored, before the server answers the DATA. */
  beforeReply?: (mail: ReceivedMail) => Promise<void> | void;
}

export interface SmtpServer {
  host: string;
  port: number;
  messages: ReceivedMail[];
  /** Connection errors the server saw (clients that went away). */
  errors: Error[];
  /** Resolves when at least `count` messages have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

/** A real SMTP server on 127.0.0.1 (a free port) that keeps every message it accepts. */
export async function startSmtp(options: SmtpOptions = {}): Promise<SmtpServer> {
  const messages: ReceivedMail[] = [];
  const waiters: Array<() => void> = [];
  const server = new SMTPServer({
    disabledCommands: [...(options.tls ? [] : ['STARTTLS']), ...(options.auth ? [] : ['AUTH'])],
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert, secure: options.tls.secure ?? false } : {}),
    allowInsecureAuth: true,
    authOptional: !options.auth,
    logger: false,
    onAuth(auth, _session, callback) {
      if (options.auth && auth.username === options.auth.user && auth.password === options.auth.pass) return callback(null, { user: auth.username });
      return callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onMailFrom(address, _session, callback) {
      const rejection = options.rejectSender?.(address.address);
      if (rejection) return callback(Object.assign(new Error(rejection.message), { responseCode: rejection.code }));
      callback();
    },
    onRcptTo(address, _session, callback) {
      const rejection = options.rejectRecipient?.(address.address);
      if (rejection) return callback(Object.assign(new Error(rejection.message), { responseCode: rejection.code }));
      callback();
    },
    onData(stream, session: SMTPServerSession, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', async () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const mail = parseMail(raw, session);
        messages.push(mail);
        for (const wake of waiters.splice(0)) wake();
        try {
          await options.beforeReply?.(mail);
        } finally {
          callback();
        }
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  // A client that vanishes mid-session (the crash tests kill one) is an error event, not a crash.
  const errors: Error[] = [];
  server.on('error', (err) => errors.push(err));
  const { port } = server.server.address() as AddressInfo;
  return {
    host: '127.0.0.1',
    port,
    messages,
    errors,
    async waitFor(count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} messages, got ${messages.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return messages;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Enough MIME to read what nodemailer writes: headers, multipart parts, quoted-printable, base64. */
function parseMail(raw: string, session: SMTPServerSession): ReceivedMail {
  const { headers, body } = splitHeaders(raw);
  const parts = leafParts(headers, body);
  const part = (type: string) => parts.find((p) => (p.headers['content-type'] ?? 'text/plain').startsWith(type));
  return {
    from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
    to: session.envelope.rcptTo.map((r) => r.address),
    headers,
    subject: decodeWords(headers.subject ?? ''),
    messageId: headers['message-id'] ?? '',
    text: part('text/plain')?.content ?? '',
    html: part('text/html')?.content ?? '',
    raw,
  };
}

function splitHeaders(raw: string): { headers: Record<string, string>; body: string } {
  const at = raw.indexOf('\r\n\r\n');
  const head = at === -1 ? raw : raw.slice(0, at);
  const body = at === -1 ? '' : raw.slice(at + 4);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body };
}

function leafParts(headers: Record<string, string>, body: string): Array<{ headers: Record<string, string>; content: string }> {
  const type = headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (type.startsWith('multipart/') && boundary) {
    return body
      .split(`--${boundary}`)
      .slice(1)
      .filter((chunk) => !chunk.startsWith('--'))
      .flatMap((chunk) => {
        const inner = splitHeaders(chunk.replace(/^\r\n/, ''));
        return leafParts(inner.headers, inner.body.replace(/\r\n$/, ''));
      });
  }
  return [{ headers, content: decodeBody(body, headers['content-transfer-encoding'] ?? '7bit') }];
}

function decodeBody(body: string, encoding: string): string {
  const enc = encoding.toLowerCase();
  if (enc === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (enc === 'quoted-printable') return decodeQ(body.replace(/=\r\n/g, ''));
  return body;
}

/** =XX escapes to bytes, read as UTF-8 (quoted-printable bodies and Q-encoded words). */
function decodeQ(text: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const hex = text.slice(i + 1, i + 3);
    if (text[i] === '=' && /^[0-9A-F]{2}$/i.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else bytes.push(...Buffer.from(text[i], 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** RFC 2047 encoded words (=?UTF-8?Q?...?= / =?UTF-8?B?...?=) in a header. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QB])\?([^?]*)\?=/gi, (_m, _charset: string, kind: string, text: string) => {
      if (kind.toUpperCase() === 'B') return Buffer.from(text, 'base64').toString('utf8');
      return decodeQ(text.replace(/_/g, ' '));
    });
}
