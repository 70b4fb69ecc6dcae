/**
 * A real IMAP server for tests: Debian's Dovecot, started with its own config on a free loopback
 * port, no TLS unless a certificate is given (then STARTTLS is offered), one user with a fixed password (static passdb/userdb), mail kept as Maildir in a
 * temp folder owned by the dovecot user. Messages go in with an IMAP APPEND, as a mail server
 * would deliver them.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ImapFlow } from 'imapflow';
import { closedPort } from './sequence-fixtures';

export interface ImapServer {
  host: string;
  port: number;
  user: string;
  password: string;
  /** Puts a raw RFC 5322 message into a mailbox (created if missing) with an IMAP APPEND. */
  append(raw: string, mailbox?: string): Promise<void>;
  /** Creates a mailbox unless it exists. */
  create(mailbox: string): Promise<void>;
  /** Deletes and creates a mailbox again: the server gives it a new UIDVALIDITY. */
  recreate(mailbox: string): Promise<void>;
  /** The mailbox's UIDVALIDITY as the server reports it. */
  uidValidity(mailbox?: string): Promise<string>;
  stop(): Promise<void>;
}

const DOVECOT = ['/usr/sbin/dovecot', '/usr/local/sbin/dovecot'].find((p) => existsSync(p));

/** Fails loudly (never skips) when Dovecot is not installed: the reply tests need a real server. */
export function requireDovecot(): string {
  if (!DOVECOT || !existsSync('/usr/lib/dovecot/imap')) {
    throw new Error('Dovecot is not installed: these tests need a real IMAP server. Install it with `apt-get install -y dovecot-imapd` (.ci/run does).');
  }
  return DOVECOT;
}

function dovecotIds(): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', 'dovecot']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'dovecot']).toString().trim());
  return { uid, gid };
}

function config(dir: string, port: number, password: string, tls: boolean): string {
  const ssl = tls ? `ssl = yes\nssl_cert = <${dir}/tls/cert.pem\nssl_key = <${dir}/tls/key.pem` : 'ssl = no';
  return `protocols = imap
listen = 127.0.0.1
base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
${ssl}
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0
default_login_user = dovenull
default_internal_user = dovecot
first_valid_uid = 1
mail_location = maildir:${dir}/mail/%u
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service pop3-login {
  inet_listener pop3 {
    port = 0
  }
}
passdb {
  driver = static
  args = password=${password}
}
userdb {
  driver = static
  args = uid=dovecot gid=dovecot home=${dir}/mail/%u
}
`;
}

async function waitForPort(host: string, port: number, timeoutMs: number, log: string): Promise<void> {
  const { connect } = await import('node:net');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, host, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`Dovecot did not start listening on ${host}:${port}: ${existsSync(log) ? readFileSync(log, 'utf8') : 'no log'}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface ImapOptions {
  user?: string;
  password?: string;
  /** A certificate and key (PEM): the server offers STARTTLS with them. */
  tls?: { cert: string; key: string };
}

export async function startImap(options: ImapOptions = {}): Promise<ImapServer> {
  const dovecot = requireDovecot();
  const user = options.user ?? 'ar@acme.test';
  const password = options.password ?? 'imap-secret';
  const dir = mkdtempSync(join(tmpdir(), 'ardesk-imap-'));
  // Dovecot's imap process runs as the dovecot user, which must reach the mail folder.
  chmodSync(dir, 0o755);
  const { uid, gid } = dovecotIds();
  for (const sub of ['run', 'state', 'mail']) mkdirSync(join(dir, sub));
  chownSync(join(dir, 'mail'), uid, gid);
  if (options.tls) {
    mkdirSync(join(dir, 'tls'));
    writeFileSync(join(dir, 'tls', 'cert.pem'), options.tls.cert);
    writeFileSync(join(dir, 'tls', 'key.pem'), options.tls.key, { mode: 0o600 });
  }
  const port = await closedPort();
  const file = join(dir, 'dovecot.conf');
  writeFileSync(file, config(dir, port, password, Boolean(options.tls)));
  // Dovecot forks into the background; its output goes to a file, since a pipe it inherits would
  // keep spawnSync waiting for as long as the server runs.
  const errFile = join(dir, 'start.err');
  const errFd = openSync(errFile, 'w');
  const started = spawnSync(dovecot, ['-c', file], { stdio: ['ignore', errFd, errFd] });
  closeSync(errFd);
  if (started.status !== 0) throw new Error(`Dovecot did not start: ${readFileSync(errFile, 'utf8')}`);
  await waitForPort('127.0.0.1', port, 10_000, join(dir, 'dovecot.log'));

  async function session<T>(fn: (client: ImapFlow) => Promise<T>): Promise<T> {
    // The harness's own sessions (APPEND and the like) talk to the server it started itself.
    const client = new ImapFlow({ host: '127.0.0.1', port, secure: false, auth: { user, pass: password }, logger: false, ...(options.tls ? { tls: { rejectUnauthorized: false } } : {}) });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.logout();
    }
  }
  async function ensure(client: ImapFlow, mailbox: string) {
    if (mailbox.toUpperCase() === 'INBOX') return;
    const list = await client.list();
    if (!list.some((m) => m.path === mailbox)) await client.mailboxCreate(mailbox);
  }

  return {
    host: '127.0.0.1',
    port,
    user,
    password,
    append: (raw, mailbox = 'INBOX') =>
      session(async (client) => {
        await ensure(client, mailbox);
        await client.append(mailbox, raw.replace(/\r?\n/g, '\r\n'));
      }),
    create: (mailbox) => session((client) => ensure(client, mailbox)),
    recreate: (mailbox) =>
      session(async (client) => {
        await client.mailboxDelete(mailbox);
        await client.mailboxCreate(mailbox);
      }),
    uidValidity: (mailbox = 'INBOX') =>
      session(async (client) => {
        const status = await client.status(mailbox, { uidValidity: true });
        if (!status) throw new Error(`no mailbox ${mailbox}`);
        return String(status.uidValidity);
      }),
    async stop() {
      const pidFile = join(dir, 'run', 'master.pid');
      if (existsSync(pidFile)) {
        const pid = Number(readFileSync(pidFile, 'utf8').trim());
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          // Already gone.
        }
        const deadline = Date.now() + 5_000;
        while (existsSync(pidFile) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
