/**
 * `npm run bench`: seeds a database (`ardesk seed --demo`), starts the real server (`ardesk serve`)
 * as a child process, and times the invoice and payment endpoints over real HTTP with keep-alive,
 * against a floor (a bare node:http server returning the same bytes). Loopback only; every loop
 * runs a fixed number of times.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { keepAliveAgent, type Stats, stats, timedRequest } from './http';
import { waitForSettledJobs } from './settle';

export interface BenchOptions {
  invoices: number;
  customers: number;
  /** Timed requests per endpoint. */
  samples: number;
  /** Untimed requests per endpoint first (caches, JIT). */
  warmup: number;
  /** An already seeded database to reuse instead of seeding a new one. */
  db?: string;
  /** Keep the temporary folder with the seeded database. */
  keep: boolean;
}

const ROOT = resolve(__dirname, '../..');
const BIN = join(ROOT, 'core/cli/bin.cjs');
const FLOOR = join(__dirname, 'floor-server.cjs');

/** Median targets from the invoices and performance issues, at 1M invoices / 50k customers on a 2-core machine. */
const TARGET_MS: Record<string, number> = {
  first_page: 30,
  cursor_page: 5,
  cursor_page_deep: 5,
  search_prefix3: 30,
  search_prefix5: 30,
  search_whole_name: 30,
  search_named: 30,
  search_number: 30,
  summary: 30,
  group_by_customer: 50,
};
/** p95 targets. */
const TARGET_P95_MS: Record<string, number> = { cursor_page: 10, cursor_page_deep: 10 };
/** Names a collector types the start of (performance issue), next to prefixes of the data's own names. */
const NAMED_TERMS = ['North', 'Smith'];
/** The deep cursor page measured (a collector paging far down a long list). */
const DEEP_PAGE = 50;
const TARGET_RSS_MB = 400;
const TARGET_REFRESH_RSS_MB = 600;
/** How long a request may wait while the start-up refresh runs (p99, worst). */
const TARGET_STARTUP_P99_MS = 100;
const TARGET_STARTUP_MAX_MS = 200;
const TARGET_SEED_S = 60;

interface Endpoint {
  key: string;
  label: string;
  /** Requests cycle through these (several search terms of one kind); the floor replays the last body. */
  paths: string[];
}

interface Measured extends Endpoint {
  status: number;
  bytes: number;
  server: Stats | null;
  floor: Stats | null;
}

/** Runs a child and resolves with its exit code, echoing its output with a prefix. */
function runChild(args: string[], prefix: string): Promise<number> {
  return new Promise((resolveExit, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream }).on('line', (line) => console.log(`${prefix}${line}`));
    child.on('error', reject);
    child.on('exit', (code) => resolveExit(code ?? 1));
  });
}

/** Starts a child that prints "... listening on <url>" and resolves with it and its URL. */
function startListening(args: string[], name: string): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolveStart, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`${name} did not start within 120 s`));
    }, 120_000);
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`${name} exited with ${code} before listening`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /listening on (http:\/\/\S+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolveStart({ child, url: m[1] });
      }
    });
  });
}

function stop(child: ChildProcess | null): Promise<void> {
  if (!child || child.exitCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}

/** Peak and current resident memory of a process, in MB, from /proc. */
function memoryOf(pid: number): { peak: number; current: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
    return { peak: kb('VmHWM') / 1024, current: kb('VmRSS') / 1024 };
  } catch {
    return null;
  }
}

/** The server's intelligence refresh process (its child running refresh-child), with its peak RSS. */
function refreshProcessOf(serverPid: number): { pid: number; peak: number } | null {
  let children: number[];
  try {
    children = readFileSync(`/proc/${serverPid}/task/${serverPid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return null;
  }
  for (const pid of children) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('refresh-child')) continue;
    } catch {
      continue;
    }
    const memory = memoryOf(pid);
    if (memory) return { pid, peak: memory.peak };
  }
  return null;
}

async function measure(agent: ReturnType<typeof keepAliveAgent>, urls: string[], headers: Record<string, string>, options: BenchOptions): Promise<{ stats: Stats; last: Awaited<ReturnType<typeof timedRequest>> }> {
  const url = (i: number) => urls[i % urls.length];
  let last = await timedRequest(agent, url(0), { headers });
  for (let i = 1; i < options.warmup; i++) last = await timedRequest(agent, url(i), { headers });
  const times: number[] = [];
  for (let i = 0; i < options.samples; i++) {
    last = await timedRequest(agent, url(i), { headers });
    if (last.status !== 200) break;
    times.push(last.ms);
  }
  return { stats: stats(times), last };
}

/** The first letters of a name, whole words cut as a collector types them. */
const prefix = (name: string, letters: number) => [...name].slice(0, letters).join('');

/** The server's time over the floor's, both from this run. */
const ratioOf = (r: Measured, at: 'median' | 'p95') => (r.server && r.floor ? `${(r.server[at] / r.floor[at]).toFixed(1)}x` : '-');

function verdictOf(r: Measured): string {
  if (!r.server) return `MISSING (HTTP ${r.status})`;
  const checks: string[] = [];
  const median = TARGET_MS[r.key];
  const p95 = TARGET_P95_MS[r.key];
  if (median !== undefined) checks.push(`median <= ${median} ms ${r.server.median <= median ? 'ok' : 'MISSED'}`);
  if (p95 !== undefined) checks.push(`p95 <= ${p95} ms ${r.server.p95 <= p95 ? 'ok' : 'MISSED'}`);
  return checks.join(', ');
}

const fmt = (ms: number | undefined) => (ms === undefined ? '-' : ms < 10 ? ms.toFixed(2) : ms.toFixed(1));

export async function runBench(options: BenchOptions): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'ardesk-bench-'));
  const db = options.db ? resolve(options.db) : join(dir, 'bench.sqlite');
  let server: ChildProcess | null = null;
  let floor: ChildProcess | null = null;
  let seedSeconds: number | null = null;
  try {
    if (!options.db) {
      console.log(`seeding ${options.invoices.toLocaleString('en-US')} invoices over ${options.customers.toLocaleString('en-US')} customers into ${db}`);
      const started = performance.now();
      const code = await runChild([BIN, 'seed', '--db', db, '--demo', '--invoices', String(options.invoices), '--customers', String(options.customers)], '  seed: ');
      seedSeconds = (performance.now() - started) / 1000;
      if (code !== 0) throw new Error(`ardesk seed exited with ${code}`);
      console.log(`seeded in ${seedSeconds.toFixed(1)} s (whole command, process start included)`);
    }

    const started = await startListening([BIN, 'serve', '--port', '0', '--db', db], 'ardesk serve');
    server = started.child;
    const base = started.url;
    console.log(`server ${base} (pid ${server.pid}); waiting for its start-up jobs`);
    const agent = keepAliveAgent();
    const login = await timedRequest(agent, `${base}/api/v1/auth/login/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'demo', password: 'demo' }),
    });
    if (login.status !== 200) throw new Error(`login as demo failed: ${login.status} ${login.body.toString()}`);
    const { token, companies } = JSON.parse(login.body.toString()) as { token: string; companies: Array<{ id: string; name: string }> };
    const headers = { authorization: `Token ${token}` };
    // Meanwhile a collector's request, again and again: how long one waits while the server's
    // start-up jobs (the intelligence refresh among them) run.
    const settled = waitForSettledJobs(db);
    let settling = true;
    void settled.finally(() => (settling = false)).catch(() => undefined);
    const waits: number[] = [];
    while (settling) {
      const probe = await timedRequest(agent, `${base}/api/companies/${companies[0].id}/invoices/summary`, { headers });
      if (probe.status !== 200) throw new Error(`the request during start-up answered ${probe.status}`);
      waits.push(probe.ms);
    }
    const settleSeconds = await settled;
    const startupWaits = stats(waits);
    const startupMax = Math.max(...waits);
    const startupP99 = [...waits].sort((a, b) => a - b)[Math.max(0, Math.ceil(0.99 * waits.length) - 1)];
    console.log(`start-up jobs done after ${settleSeconds.toFixed(0)} s (snapshot catch-up, intelligence refresh)`);

    // The company holding the generated invoices: the one with the most.
    let company = companies[0];
    let most = -1;
    for (const c of companies) {
      const summary = JSON.parse((await timedRequest(agent, `${base}/api/companies/${c.id}/invoices/summary`, { headers })).body.toString()) as { invoice_count: number };
      if (summary.invoice_count > most) {
        most = summary.invoice_count;
        company = c;
      }
    }
    const invoices = `/api/companies/${company.id}/invoices`;
    console.log(`company ${company.name} (${company.id}): ${most.toLocaleString('en-US')} invoices`);

    type Page = { next_cursor: string | null; items: Array<{ customer_name: string; invoice_number: string }> };
    const page = async (path: string) => JSON.parse((await timedRequest(agent, `${base}${path}`, { headers })).body.toString()) as Page;
    const first = await page(invoices);
    // The cursor of page DEEP_PAGE, reached as a collector would: following next_cursor.
    let deep = first;
    for (let n = 2; n < DEEP_PAGE && deep.next_cursor; n++) deep = await page(`${invoices}?cursor=${encodeURIComponent(deep.next_cursor)}`);
    // Names of customers spread over the first page, so no single name decides the figures.
    const names = [...new Set(first.items.map((i) => i.customer_name))].slice(0, 5);
    const searches = (terms: string[]) => [...new Set(terms)].map((t) => `${invoices}?search=${encodeURIComponent(t)}`);
    const sample = first.items[Math.min(7, first.items.length - 1)];
    const endpoints: Endpoint[] = [
      { key: 'first_page', label: 'first page, count + facets', paths: [invoices] },
      { key: 'cursor_page', label: 'cursor page 2', paths: [`${invoices}?cursor=${encodeURIComponent(first.next_cursor ?? '')}`] },
      { key: 'cursor_page_deep', label: `cursor page ${DEEP_PAGE}`, paths: [`${invoices}?cursor=${encodeURIComponent(deep.next_cursor ?? '')}`] },
      { key: 'search_prefix3', label: `search 3 letters (${names.map((n) => prefix(n, 3)).join(', ')})`, paths: searches(names.map((n) => prefix(n, 3))) },
      { key: 'search_prefix5', label: `search 5 letters (${names.map((n) => prefix(n, 5)).join(', ')})`, paths: searches(names.map((n) => prefix(n, 5))) },
      { key: 'search_named', label: `search ${NAMED_TERMS.map((t) => `"${t}"`).join(', ')}`, paths: searches(NAMED_TERMS) },
      { key: 'search_whole_name', label: `search whole names (${names.length})`, paths: searches(names) },
      { key: 'search_number', label: `search number "${sample.invoice_number}"`, paths: searches([sample.invoice_number]) },
      { key: 'status_aging', label: 'status=overdue & aging_bucket=31_60', paths: [`${invoices}?status=overdue&aging_bucket=31_60`] },
      { key: 'sort_balance', label: 'sort=balance_desc', paths: [`${invoices}?sort=balance_desc`] },
      { key: 'group_by_customer', label: 'group_by=customer first page', paths: [`${invoices}?group_by=customer`] },
      { key: 'summary', label: 'invoice summary', paths: [`${invoices}/summary`] },
      { key: 'payments', label: 'payments list', paths: [`/api/companies/${company.id}/payments`] },
    ];

    const bodiesDir = join(dir, 'bodies');
    mkdirSync(bodiesDir);
    const results: Measured[] = [];
    for (const e of endpoints) {
      const { stats: s, last } = await measure(agent, e.paths.map((p) => `${base}${p}`), headers, options);
      const ok = last.status === 200;
      results.push({ ...e, status: last.status, bytes: last.body.length, server: ok ? s : null, floor: null });
      if (ok) writeFileSync(join(bodiesDir, e.key), last.body);
      console.log(`  measured ${e.label}: ${ok ? `${fmt(s.median)} ms median` : `HTTP ${last.status} (missing)`}`);
    }
    const memory = memoryOf(server.pid!);
    const refresher = refreshProcessOf(server.pid!);
    agent.destroy();

    const floorStarted = await startListening([FLOOR, bodiesDir], 'floor server');
    floor = floorStarted.child;
    const floorAgent = keepAliveAgent();
    for (const r of results) {
      if (r.server) r.floor = (await measure(floorAgent, [`${floorStarted.url}/${r.key}`], {}, options)).stats;
    }
    floorAgent.destroy();

    console.log('');
    console.log(`${options.samples} timed requests per endpoint after ${options.warmup} warm-up, one keep-alive connection, loopback`);
    console.log(`${'endpoint'.padEnd(60)} ${'median'.padStart(8)} ${'p95'.padStart(8)} ${'floor'.padStart(7)} ${'ratio'.padStart(7)} ${'p95 ratio'.padStart(9)} ${'bytes'.padStart(8)}  target`);
    for (const r of results) {
      console.log(
        `${r.label.slice(0, 60).padEnd(60)} ${fmt(r.server?.median).padStart(8)} ${fmt(r.server?.p95).padStart(8)} ${fmt(r.floor?.median).padStart(7)} ${ratioOf(r, 'median').padStart(7)} ${ratioOf(r, 'p95').padStart(9)} ${String(r.bytes).padStart(8)}  ${verdictOf(r)}`,
      );
    }
    console.log(
      `a request during the start-up jobs (invoice summary, ${waits.length} sent one after another): median ${fmt(startupWaits.median)} ms, p99 ${fmt(startupP99)} ms, max ${fmt(startupMax)} ms (targets p99 <= ${TARGET_STARTUP_P99_MS} ms, max <= ${TARGET_STARTUP_MAX_MS} ms: ${startupP99 <= TARGET_STARTUP_P99_MS && startupMax <= TARGET_STARTUP_MAX_MS ? 'ok' : 'MISSED'})`,
    );
    if (memory) console.log(`server memory: peak RSS (VmHWM) ${memory.peak.toFixed(0)} MB, now ${memory.current.toFixed(0)} MB (target <= ${TARGET_RSS_MB} MB: ${memory.peak <= TARGET_RSS_MB ? 'ok' : 'MISSED'})`);
    if (refresher) console.log(`intelligence refresh process (pid ${refresher.pid}): peak RSS ${refresher.peak.toFixed(0)} MB (target <= ${TARGET_REFRESH_RSS_MB} MB: ${refresher.peak <= TARGET_REFRESH_RSS_MB ? 'ok' : 'MISSED'})`);
    if (seedSeconds !== null) console.log(`seeding: ${seedSeconds.toFixed(1)} s (target <= ${TARGET_SEED_S} s at 1M: ${seedSeconds <= TARGET_SEED_S ? 'ok' : 'MISSED'})`);
    return 0;
  } finally {
    await stop(server);
    await stop(floor);
    if (options.keep) console.log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}
