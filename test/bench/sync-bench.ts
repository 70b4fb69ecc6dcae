/**
 * `npm run bench:sync`: the team server as a real process (`ardesk serve --team`) over a seeded
 * company, measured from desktops over real HTTP:
 * - initial sync: `connect` downloading the whole company (target: 100,000 invoices in 30 s);
 * - incremental pull: one sync round after 1,000 invoices changed on the server (target: 1 s);
 * - push latency: N desktops, each with its event stream open and pulling when poked, pushing 10
 *   commands a second in all (target: p95 under 100 ms);
 * - a push of 1,000 commands: how long another user's GET /customers waits meanwhile (target: p99
 *   under 100 ms; the server yields between slices of mutations and answers part of a long push),
 *   beside the same reads with no push running;
 * - capacity: 50 up to 500 desktops (one collector each, at most STREAMS_PER_USER per user), each
 *   pushing one command every 10 s and pulling on every poke; each step reports push p95 and how
 *   far the pulls lag, and the knee is the first step where push p95 passes 100 ms or a desktop
 *   is still behind 5 s after the pushes stop.
 * Scale by environment: BENCH_SYNC_INVOICES (100000), BENCH_SYNC_DESKTOPS (50), BENCH_SYNC_SECONDS (20),
 * BENCH_SYNC_CAPACITY (desktops per step, "50,100,200,300,500"), BENCH_SYNC_STEP_SECONDS (20).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUser } from '../../core/auth/users';
import { issueToken } from '../../core/auth/sessions';
import { type Engine, runCommand, systemActor } from '../../core/engine';
import { openEngine } from '../../core/runtime/engine';
import { STREAMS_PER_USER } from '../../core/http/routes/sync';
import { createApp } from '../../core/http/app';
import { newId } from '../../core/ids';
import { seedDatabase } from '../../core/seed';
import { startServe } from '../support/cli';
import { connect, isStaleConnection, syncOnce } from '../../core/sync/client';
import { stats } from '../../core/bench/http';
import { waitForSettledJobs } from '../../core/bench/settle';

const INVOICES = Number(process.env.BENCH_SYNC_INVOICES ?? 100_000);
const DESKTOPS = Number(process.env.BENCH_SYNC_DESKTOPS ?? 50);
const SECONDS = Number(process.env.BENCH_SYNC_SECONDS ?? 20);
const PUSHES_PER_SECOND = 10;
const CAPACITY_STEPS = (process.env.BENCH_SYNC_CAPACITY ?? '50,100,200,300,500').split(',').map(Number);
const STEP_SECONDS = Number(process.env.BENCH_SYNC_STEP_SECONDS ?? 20);
/** A collector's pace: one command every 10 s. */
const COMMAND_EVERY_MS = 10_000;

/** CPU seconds a process has used (Linux /proc), to read a run on a shared machine; null elsewhere. */
function cpuSeconds(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** The download leaves kept-alive connections that the server closed while the desktop built its indexes. */
function sendAgainIfStale(send: () => Promise<Response>, left = 2): Promise<Response> {
  return send().catch((err: unknown) => (left > 0 && isStaleConnection(err) ? sendAgainIfStale(send, left - 1) : Promise.reject(err)));
}

async function post(url: string, token: string | null, body: unknown, method = 'POST'): Promise<any> {
  const send = () => fetch(url, { method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Token ${token}` } : {}) }, body: JSON.stringify(body) });
  const res = await sendAgainIfStale(send);
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'ardesk-bench-sync-'));
  const serverFile = join(dir, 'team.sqlite');
  const seeding = await openEngine({ file: serverFile });
  await seedDatabase(seeding, { demo: true, invoices: INVOICES, customers: Math.max(50, Math.round(INVOICES / 20)), exclusive: true });
  const collectorTokens = await addCollectors(seeding, Math.max(...CAPACITY_STEPS));
  await seeding.close();
  const server = await startServe(['--db', serverFile, '--team', '--port', '0']);
  // The seed leaves a large company's insights to the server's start-up refresh: measured after it.
  console.log(`team server start-up jobs done after ${(await waitForSettledJobs(serverFile)).toFixed(0)} s; load average (1 min) ${loadavg()[0].toFixed(1)}`);
  const results: Array<[string, string, string]> = [];
  try {
    const login = await post(`${server.url}/api/v1/auth/login/`, null, { username: 'demo', password: 'demo' });
    const company = login.companies[0] as { id: string; name: string };

    const desktop = await openEngine({ file: join(dir, 'desktop.sqlite') });
    let started = performance.now();
    const serverCpu = cpuSeconds(server.child.pid!);
    const desktopCpu = process.cpuUsage();
    const connected = await connect(desktop, { serverUrl: server.url, username: 'demo', password: 'demo', companies: [company.id] });
    const initialMs = performance.now() - started;
    const cpu = process.cpuUsage(desktopCpu);
    const serverCpuAfter = cpuSeconds(server.child.pid!);
    const cpuNote = `CPU: desktop ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s${serverCpu !== null && serverCpuAfter !== null ? `, server ${(serverCpuAfter - serverCpu).toFixed(1)} s` : ''}`;
    const invoices = (desktop.database.sqlite.prepare('SELECT count(*) AS n FROM invoices').get() as { n: number }).n;
    results.push([`initial sync (${invoices.toLocaleString('en-US')} invoices, ${connected.companies[0].rows.toLocaleString('en-US')} rows)`, `${(initialMs / 1000).toFixed(1)} s (${cpuNote})`, '30 s at 100,000 invoices']);

    const ids = (desktop.database.sqlite.prepare('SELECT id FROM invoices ORDER BY id LIMIT 1000').all() as Array<{ id: string }>).map((r) => r.id);
    await post(`${server.url}/api/companies/${company.id}/invoices/bulk`, login.token, { invoice_ids: ids, updates: { next_follow_up_date: '2027-01-15' } }, 'PATCH');
    const app = createApp(desktop);
    started = performance.now();
    const round = await syncOnce(desktop, (request, env) => Promise.resolve(app.request(request, undefined, env)));
    const incrementalMs = performance.now() - started;
    results.push([`incremental pull (${round.pulled.toLocaleString('en-US')} changes)`, `${incrementalMs.toFixed(0)} ms`, '1 s']);
    await desktop.close();

    // The 1,000 changed invoices queue the intelligence engine's refresh of their customers on the
    // server: the push latency is measured once it has run, as the rest is after the start-up jobs.
    console.log(`refresh after the 1,000 changes done after ${(await waitForSettledJobs(serverFile)).toFixed(0)} s`);
    const customers = (await (await fetch(`${server.url}/api/companies/${company.id}/customers?limit=100`, { headers: { authorization: `Token ${login.token}` } })).json()) as { data: Array<{ id: string }> };
    const streams = new AbortController();
    const latencies: number[] = [];
    let pulls = 0;
    // Signed in one after another: the sign-in throttle holds a user's concurrent attempts from one
    // address (every desktop here is on loopback), as it would a password guesser's.
    const tokens: string[] = [];
    for (let i = 0; i < DESKTOPS; i++) tokens.push((await post(`${server.url}/api/v1/auth/login/`, null, { username: 'demo', password: 'demo' })).token as string);
    const sims = await Promise.all(
      Array.from({ length: DESKTOPS }, async (_, i) => {
        const clientId = newId();
        const token = tokens[i];
        const first = await post(`${server.url}/api/v1/sync/pull`, token, { client_id: clientId, companies: [{ company_id: company.id, cursor: null }], pending_from: 0, limit: 1 });
        // Start at the server's present: skip the snapshot walk, follow only what changes now.
        let cursor = `v.${Number(/^s\.(\d+)/.exec(first.companies[0].cursor)?.[1] ?? 0)}`;
        let pulling = false;
        const pull = async () => {
          if (pulling) return;
          pulling = true;
          try {
            for (;;) {
              const page = await post(`${server.url}/api/v1/sync/pull`, token, { client_id: clientId, companies: [{ company_id: company.id, cursor }], pending_from: 0 });
              cursor = page.companies[0].cursor;
              pulls += 1;
              if (!page.companies[0].more) break;
            }
          } finally {
            pulling = false;
          }
        };
        void (async () => {
          try {
            const res = await fetch(`${server.url}/api/v1/sync/events?company_id=${company.id}`, { headers: { authorization: `Token ${token}` }, signal: streams.signal });
            for await (const chunk of res.body as AsyncIterable<Uint8Array>) if (Buffer.from(chunk).toString().includes('event: poke')) void pull().catch(() => undefined);
          } catch {
            // Aborted at the end of the run.
          }
        })();
        return { clientId, token, mutation: 0, index: i };
      }),
    );
    const interval = 1000 / PUSHES_PER_SECOND;
    const until = performance.now() + SECONDS * 1000;
    let next = 0;
    const inFlight: Promise<void>[] = [];
    while (performance.now() < until) {
      const sim = sims[next % sims.length];
      next += 1;
      sim.mutation += 1;
      const customer = customers.data[next % customers.data.length].id;
      const path = `/api/companies/${company.id}/customers/${customer}`;
      const body = JSON.stringify({ notes: `note ${next}` });
      inFlight.push(
        (async () => {
          const t0 = performance.now();
          const answer = await post(`${server.url}/api/v1/sync/push`, sim.token, {
            client_id: sim.clientId,
            mutations: [{ id: sim.mutation, company_id: company.id, command: 'update_customer', method: 'PATCH', path, content_type: 'application/json', body, body_encoding: 'utf8', ids: [] }],
          });
          latencies.push(performance.now() - t0);
          if (answer.results[0].status !== 'applied') throw new Error(`push rejected: ${answer.results[0].reason}`);
        })(),
      );
      await new Promise((r) => setTimeout(r, interval));
    }
    await Promise.all(inFlight);
    streams.abort();
    const s = stats(latencies);
    results.push([`push latency, ${DESKTOPS} desktops, ${PUSHES_PER_SECOND} commands/s, ${latencies.length} pushes (${pulls} poked pulls)`, `median ${s.median.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms`, 'p95 < 100 ms']);

    results.push(...(await bigPushWait(server.url, login.token, company.id, customers.data.map((c) => c.id))));
    console.log(`refresh after the big push done after ${(await waitForSettledJobs(serverFile)).toFixed(0)} s`);
    let knee: number | null = null;
    for (const desktops of CAPACITY_STEPS) {
      // A step the server or this machine could not carry (connections timing out) is the knee too.
      const step = await capacityStep(server.url, company.id, customers.data.map((c) => c.id), collectorTokens.slice(0, desktops)).catch(
        (err: unknown): { row: [string, string, string]; keepsUp: boolean } => ({ row: [`${desktops} desktops`, `failed: ${err instanceof Error ? err.message : String(err)}`, ''], keepsUp: false }),
      );
      results.push(step.row);
      if (knee === null && !step.keepsUp) knee = desktops;
      if (!step.keepsUp) break;
    }
    results.push(['capacity knee (push p95 over 100 ms, or pulls behind)', knee === null ? `not reached at ${Math.max(...CAPACITY_STEPS)} desktops` : `${knee} desktops`, '']);
  } catch (err) {
    console.error(server.output());
    throw err;
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  // Other work on the machine shows in every figure: the load average says how much there was.
  console.log(`\nload average (1 min) at the end: ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores`);
  console.log('\n| measure | result | target |\n|---|---|---|');
  for (const [m, r, t] of results) console.log(`| ${m} | ${r} | ${t} |`);
}

/**
 * One session token per desktop, for collectors added to the seeded company straight in the
 * database (signing 500 desktops in over HTTP would measure the password hashing): a user per
 * STREAMS_PER_USER desktops, since each user may hold that many event streams.
 */
async function addCollectors(engine: Engine, desktops: number): Promise<string[]> {
  const companyId = (await engine.db.selectFrom('companies').select('id').orderBy('created_at').executeTakeFirstOrThrow()).id;
  const tokens: string[] = [];
  for (let u = 0; tokens.length < desktops; u++) {
    const userId = await createUser(engine, { username: `collector${u + 1}`, password: `collector-${u + 1}-pw` });
    await runCommand(engine, 'bench_membership', { actor: systemActor, companyId }, (tx) =>
      tx.db.insertInto('memberships').values({ id: newId(), company_id: companyId, user_id: userId, role: 'collector', created_at: tx.now }).execute(),
    );
    for (let i = 0; i < STREAMS_PER_USER && tokens.length < desktops; i++) tokens.push((await issueToken(engine, userId, systemActor, `desktop ${i + 1}`, 1)).token);
  }
  return tokens;
}

/**
 * `tokens.length` desktops for STEP_SECONDS: each opens its event stream, pulls whenever poked
 * (one pull at a time, again at once if poked meanwhile), and pushes one command every 10 s, the
 * first at a random moment of its first 10 s.
 */
async function capacityStep(url: string, companyId: string, customerIds: string[], tokens: string[]): Promise<{ row: [string, string, string]; keepsUp: boolean }> {
  const streams = new AbortController();
  const pushMs: number[] = [];
  const pullMs: number[] = [];
  let failures = 0;
  const seqOf = (cursor: string) => Number(/^[vs]\.(\d+)/.exec(cursor)?.[1] ?? 0);
  const connectDesktop = async (token: string) => {
      const clientId = newId();
      const first = await post(`${url}/api/v1/sync/pull`, token, { client_id: clientId, companies: [{ company_id: companyId, cursor: null }], pending_from: 0, limit: 1 });
      const d = { clientId, token, cursor: `v.${seqOf(first.companies[0].cursor)}`, mutation: 0, pulling: false, again: false };
      const pull = async (): Promise<void> => {
        if (d.pulling) {
          d.again = true;
          return;
        }
        d.pulling = true;
        const t0 = performance.now();
        try {
          do {
            d.again = false;
            for (;;) {
              const page = await post(`${url}/api/v1/sync/pull`, token, { client_id: clientId, companies: [{ company_id: companyId, cursor: d.cursor }], pending_from: 0 });
              d.cursor = page.companies[0].cursor;
              if (!page.companies[0].more) break;
            }
          } while (d.again);
          pullMs.push(performance.now() - t0);
        } catch {
          failures += 1;
        } finally {
          d.pulling = false;
        }
      };
      void (async () => {
        try {
          const res = await fetch(`${url}/api/v1/sync/events?company_id=${companyId}`, { headers: { authorization: `Token ${token}` }, signal: streams.signal });
          for await (const chunk of res.body as AsyncIterable<Uint8Array>) if (Buffer.from(chunk).toString().includes('event: poke')) void pull();
        } catch {
          // Aborted at the end of the step.
        }
      })();
      return d;
  };
  // Connected ten at a time: hundreds of connections opened at once time out on a loaded machine.
  const desktops: Array<Awaited<ReturnType<typeof connectDesktop>>> = [];
  for (let i = 0; i < tokens.length; i += 10) desktops.push(...(await Promise.all(tokens.slice(i, i + 10).map(connectDesktop))));
  const until = performance.now() + STEP_SECONDS * 1000;
  const pushes = desktops.map(async (d, i) => {
    await new Promise((r) => setTimeout(r, Math.random() * COMMAND_EVERY_MS));
    while (performance.now() < until) {
      const t0 = performance.now();
      d.mutation += 1;
      const path = `/api/companies/${companyId}/customers/${customerIds[(i + d.mutation) % customerIds.length]}`;
      try {
        const answer = await post(`${url}/api/v1/sync/push`, d.token, {
          client_id: d.clientId,
          mutations: [{ id: d.mutation, company_id: companyId, command: 'update_customer', method: 'PATCH', path, content_type: 'application/json', body: JSON.stringify({ notes: `desktop ${i} note ${d.mutation}` }), body_encoding: 'utf8', ids: [] }],
        });
        if (answer.results[0]?.status !== 'applied') failures += 1;
        pushMs.push(performance.now() - t0);
      } catch {
        failures += 1;
      }
      await new Promise((r) => setTimeout(r, Math.max(0, COMMAND_EVERY_MS - (performance.now() - t0))));
    }
  });
  await Promise.all(pushes);
  // Caught up means every desktop's cursor reached the newest change any desktop has seen.
  await new Promise((r) => setTimeout(r, 5_000));
  const head = Math.max(...desktops.map((d) => seqOf(d.cursor)));
  const behind = desktops.filter((d) => seqOf(d.cursor) < head || d.pulling).length;
  streams.abort();
  const push = stats(pushMs);
  const pull = stats(pullMs);
  const keepsUp = push.p95 <= 100 && behind === 0 && failures === 0;
  return {
    row: [
      `${tokens.length} desktops, one command each per 10 s, ${STEP_SECONDS} s (${pushMs.length} pushes, ${pullMs.length} poked pulls)`,
      `push p50 ${push.median.toFixed(0)} ms, p95 ${push.p95.toFixed(0)} ms; poke-to-pulled p95 ${pull.p95.toFixed(0)} ms; behind after 5 s: ${behind}${failures ? `; ${failures} failed` : ''}`,
      'push p95 <= 100 ms, none behind',
    ],
    keepsUp,
  };
}

/** Another user's GET /customers, one after another with 10 ms between, until `running` says stop: each wait in ms. */
async function readWhile(url: string, token: string, companyId: string, running: () => boolean): Promise<number[]> {
  const waits: number[] = [];
  while (running()) {
    const t0 = performance.now();
    const res = await fetch(`${url}/api/companies/${companyId}/customers?limit=20`, { headers: { authorization: `Token ${token}` } });
    await res.arrayBuffer();
    waits.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 10));
  }
  return waits;
}

const summary = (waits: number[]) => {
  const s = stats(waits);
  return `p50 ${s.median.toFixed(0)} ms, p99 ${s.p99.toFixed(0)} ms, max ${Math.max(...waits).toFixed(0)} ms`;
};

/**
 * Another user's reads while one desktop pushes 1,000 commands (sent again in parts until all are
 * answered), beside the same reads on the idle server just before: on a shared machine the
 * difference is what the push costs the others.
 */
async function bigPushWait(url: string, token: string, companyId: string, customerIds: string[]): Promise<Array<[string, string, string]>> {
  const outsider = await post(`${url}/api/v1/auth/login/`, null, { username: 'outsider', password: 'outsider' });
  const theirs = (outsider.companies[0] as { id: string }).id;
  const quietUntil = performance.now() + 5_000;
  const quiet = await readWhile(url, outsider.token, theirs, () => performance.now() < quietUntil);
  let pushing = true;
  const reader = readWhile(url, outsider.token, theirs, () => pushing);
  const clientId = newId();
  let mutations = Array.from({ length: 1_000 }, (_, i) => ({
    id: i + 1,
    company_id: companyId,
    command: 'update_customer',
    method: 'PATCH',
    path: `/api/companies/${companyId}/customers/${customerIds[i % customerIds.length]}`,
    content_type: 'application/json',
    body: JSON.stringify({ notes: `bulk note ${i + 1}` }),
    body_encoding: 'utf8',
    ids: [],
  }));
  const started = performance.now();
  let pushes = 0;
  while (mutations.length) {
    const answer = await post(`${url}/api/v1/sync/push`, token, { client_id: clientId, mutations });
    pushes += 1;
    mutations = mutations.slice(answer.results.length);
  }
  const pushMs = performance.now() - started;
  pushing = false;
  const waits = await reader;
  return [
    [`another user's GET /customers, no push running (${quiet.length} reads)`, summary(quiet), '(baseline)'],
    [`the same during a 1,000-command push (${(pushMs / 1000).toFixed(1)} s in ${pushes} answers, ${waits.length} reads)`, summary(waits), 'p99 < 100 ms'],
  ];
}

main().catch((err) => {
  console.error(err, err instanceof Error ? err.stack : '');
  process.exitCode = 1;
});
