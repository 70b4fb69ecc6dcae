/** Real processes for the sync tests: the ardesk command, a team server, desktops, and their databases. */
import { execFile } from 'node:child_process';
import BetterSqlite3 from 'better-sqlite3';
import { afterDatabaseLine, BIN, type ServerProcess, startServe } from './cli';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function ardesk(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? ((err as { code?: number }).code ?? 1) : 0;
      resolve({ code: typeof code === 'number' ? code : 1, stdout, stderr: afterDatabaseLine(stderr) });
    });
  });
}

export async function ardeskOk(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const res = await ardesk(args, env);
  if (res.code !== 0) throw new Error(`ardesk ${args.join(' ')} failed (${res.code}):\n${res.stdout}\n${res.stderr}`);
  return res.stdout;
}

/** A JSON API client for one running ardesk, signed in as one user. */
export class Api {
  private constructor(
    readonly url: string,
    private readonly token: string,
  ) {}

  static async login(url: string, username: string, password: string): Promise<Api> {
    const res = await fetch(`${url}/api/v1/auth/login/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
    if (res.status !== 200) throw new Error(`login ${username} at ${url}: ${res.status} ${await res.text()}`);
    return new Api(url, ((await res.json()) as { token: string }).token);
  }

  async call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: { authorization: `Token ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  async ok(method: string, path: string, body?: unknown): Promise<any> {
    const res = await this.call(method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }
}

/** Reads a database file another process is using (WAL: readers never block the writer). */
export function query<T = Record<string, unknown>>(file: string, sql: string, ...params: unknown[]): T[] {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

export function integrityCheck(file: string): string {
  const db = new BetterSqlite3(file, { fileMustExist: true });
  try {
    return (db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((r) => r.integrity_check).join(', ');
  } finally {
    db.close();
  }
}

/** The business rows of one company, comparable across databases (local row numbers left out). */
export const COMPARED: Record<string, string> = {
  customers: 'SELECT id, name, notes, ar_owner_id, currency, payment_terms_days FROM customers WHERE company_id = ? ORDER BY id',
  invoices: 'SELECT id, customer_id, invoice_number, due_date, total_amount, paid_amount, balance, closing_reason, next_follow_up_date FROM invoices WHERE company_id = ? ORDER BY id',
  payments: 'SELECT id, invoice_id, amount, status FROM payments WHERE company_id = ? ORDER BY id',
  actions: 'SELECT id, status, description, metadata FROM actions WHERE company_id = ? ORDER BY id',
  action_approvals: 'SELECT id, action_id, operation FROM action_approvals WHERE company_id = ? ORDER BY id',
  labels: 'SELECT id, name, color FROM labels WHERE company_id = ? ORDER BY id',
  invoice_labels: 'SELECT invoice_id, label_id FROM invoice_labels WHERE company_id = ? ORDER BY invoice_id, label_id',
  memberships: 'SELECT id, user_id, role FROM memberships WHERE company_id = ? ORDER BY id',
};

export function companyState(file: string, companyId: string): Record<string, unknown[]> {
  return Object.fromEntries(Object.entries(COMPARED).map(([name, sql]) => [name, query(file, sql, companyId)]));
}

export async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false> | T | null | undefined | false, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown = null;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export { startServe, type ServerProcess };
