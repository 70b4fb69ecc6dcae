/**
 * Property: whatever commands two or three desktops make, offline or not, and however their
 * connections are cut, once everyone syncs (1) every desktop holds exactly the server's rows,
 * (2) nothing is pending, and (3) the server's rows are what running the accepted commands in the
 * server's order gives, on a copy of the starting database, through the plain API.
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../core/runtime/engine';
import { createApp } from '../../core/http/app';
import { newTrace, withTrace } from '../../core/trace';
import { call, loginAs } from '../support/api';
import { companyState } from '../support/sync';
import { type Desktop, startHarness } from '../support/sync-harness';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';

type Step =
  | { kind: 'customer'; client: number; name: string }
  | { kind: 'notes'; client: number; pick: number; notes: string }
  | { kind: 'invoice'; client: number; pick: number; number: string; amount: number }
  | { kind: 'action'; client: number; pick: number }
  | { kind: 'approve' | 'reject'; client: number; pick: number }
  | { kind: 'sync'; client: number; cut: boolean };

const client = fc.integer({ min: 0, max: 2 });
const pick = fc.nat(20);
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('customer' as const), client, name: fc.constantFrom('Acme', 'Globex', 'Initech', 'Umbrella') }),
  fc.record({ kind: fc.constant('notes' as const), client, pick, notes: fc.string({ maxLength: 12 }) }),
  fc.record({ kind: fc.constant('invoice' as const), client, pick, number: fc.constantFrom('N-1', 'N-2'), amount: fc.integer({ min: 1, max: 5000 }) }),
  fc.record({ kind: fc.constant('action' as const), client, pick }),
  fc.record({ kind: fc.constantFrom('approve' as const, 'reject' as const), client, pick }),
  fc.record({ kind: fc.constant('sync' as const), client, cut: fc.boolean() }),
);

/** Across all runs: the property is only worth something if conflicts and cuts really happened. */
const seen = { rejected: 0, cuts: 0 };

function nth(d: Desktop, table: 'customers' | 'actions', i: number): string | null {
  const rows = d.engine.database.sqlite.prepare(`SELECT id FROM ${table} ORDER BY id`).all() as Array<{ id: string }>;
  return rows.length ? rows[i % rows.length].id : null;
}

async function perform(d: Desktop, companyId: string, s: Exclude<Step, { kind: 'sync' }>): Promise<void> {
  const base = `/api/companies/${companyId}`;
  if (s.kind === 'customer') return void (await d.call('POST', `${base}/customers`, { name: s.name }));
  const customer = nth(d, 'customers', s.pick);
  if (s.kind === 'notes' && customer) await d.call('PATCH', `${base}/customers/${customer}`, { notes: s.notes });
  if (s.kind === 'invoice' && customer) await d.call('POST', `${base}/invoices`, { customer, total_amount: s.amount, number: s.number });
  if (s.kind === 'action' && customer) await d.call('POST', `${base}/actions`, { customer, action_type: 'call', description: 'Call them' });
  const action = nth(d, 'actions', s.pick);
  if ((s.kind === 'approve' || s.kind === 'reject') && action) await d.call('POST', `${base}/actions/${action}/${s.kind}`, {});
}

describe('sync converges (property)', () => {
  it('random commands on three desktops with random cuts converge to the server, which equals the accepted commands replayed in order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 6, maxLength: 30 }), fc.integer({ min: 2, max: 3 }), async (steps, clients) => {
        const users = ['ann', 'bob', 'cat'].slice(0, clients);
        const h = await startHarness(users);
        const proxies: TcpProxy[] = [];
        try {
          const start = join(h.server.dir, 'start.sqlite');
          await h.server.database.sqlite.backup(start);
          const port = Number(new URL(h.url).port);
          const desktops: Desktop[] = [];
          for (const u of users) {
            const proxy = await startTcpProxy(port);
            proxies.push(proxy);
            desktops.push(await h.desktop(u, proxy.url));
          }
          const pushedOps = new Map<string, { method: string; path: string; body: string | null; content_type: string | null; ids: string; user: string }>();
          const remember = (i: number) => {
            const clientId = (desktops[i].engine.database.sqlite.prepare('SELECT client_id FROM sync_state').get() as { client_id: string }).client_id;
            for (const op of desktops[i].engine.database.sqlite.prepare('SELECT * FROM sync_outbox').all() as Array<Record<string, any>>) {
              pushedOps.set(`${clientId}:${op.mutation_id}`, { method: op.method, path: op.path, body: op.body, content_type: op.content_type, ids: op.ids, user: users[i] });
            }
          };
          for (const s of steps) {
            const i = s.client % clients;
            if (s.kind !== 'sync') {
              await perform(desktops[i], h.companyId, s);
              continue;
            }
            remember(i);
            proxies[i].set(s.cut ? { cutProbability: 0.5 } : { cutProbability: 0 });
            await desktops[i].sync().catch(() => null);
          }
          for (const p of proxies) p.set({ cutProbability: 0 });
          for (let round = 0; round < 3; round += 1) {
            for (let i = 0; i < clients; i += 1) {
              remember(i);
              await desktops[i].sync();
            }
          }
          // Counted on the server: a desktop can learn of a refusal in a round whose answer was cut.
          seen.rejected += (h.server.database.sqlite.prepare("SELECT count(*) AS n FROM sync_mutations WHERE status = 'rejected'").get() as { n: number }).n;
          const expected = companyState(h.server.database.file, h.companyId);
          for (const d of desktops) {
            expect((d.engine.database.sqlite.prepare('SELECT count(*) AS n FROM sync_outbox').get() as { n: number }).n).toBe(0);
            expect(companyState(d.engine.database.file, h.companyId)).toEqual(expected);
          }
          // The accepted commands, in the server's order, through the plain API of a copy of the start.
          const reference = await openEngine({ file: start, clock: h.server.clock });
          try {
            const app = createApp(reference);
            const tokens = new Map<string, string>();
            for (const u of users) tokens.set(u, await loginAs(app, u));
            const accepted = h.server.database.sqlite.prepare("SELECT client_id, mutation_id FROM sync_mutations WHERE status = 'applied' ORDER BY seq").all() as Array<{ client_id: string; mutation_id: number }>;
            for (const a of accepted) {
              const op = pushedOps.get(`${a.client_id}:${a.mutation_id}`)!;
              const res = await withTrace(newTrace(JSON.parse(op.ids)), () =>
                call(app, op.method, op.path, { token: tokens.get(op.user), body: op.body ?? undefined, headers: op.content_type ? { 'content-type': op.content_type } : {} }),
              );
              expect(res.status).toBeLessThan(300);
            }
            expect(companyState(start, h.companyId)).toEqual(expected);
          } finally {
            await reference.close();
          }
        } finally {
          seen.cuts += proxies.reduce((n, p) => n + p.cuts(), 0);
          for (const p of proxies) await p.close();
          await h.dispose();
        }
      }),
      {
        numRuns: 10,
        endOnFailure: true,
        // Always among the runs: two desktops give the same invoice number offline, so one is refused.
        examples: [
          [
            [
              { kind: 'customer', client: 0, name: 'Acme' },
              { kind: 'sync', client: 0, cut: false },
              { kind: 'sync', client: 1, cut: false },
              { kind: 'invoice', client: 0, pick: 0, number: 'N-1', amount: 10 },
              { kind: 'invoice', client: 1, pick: 0, number: 'N-1', amount: 20 },
              { kind: 'sync', client: 0, cut: true },
              { kind: 'sync', client: 1, cut: true },
            ],
            2,
          ],
        ],
      },
    );
    expect(seen.rejected).toBeGreaterThan(0);
    expect(seen.cuts).toBeGreaterThan(0);
  }, 600_000);
});

describe('sync endpoints refuse bad input with a 4xx', () => {
  it('answers malformed pushes, pulls and cursors with problem+json, never a 500', async () => {
    const h = await startHarness(['ann']);
    try {
      const token = await loginAs(h.serverApp, 'ann');
      const clientId = '01a207ba-711c-716b-81c1-a98289b5a176';
      const company = { company_id: h.companyId };
      const bad: Array<[string, unknown]> = [
        ['/api/v1/sync/push', {}],
        ['/api/v1/sync/push', { client_id: clientId, mutations: [{ id: 1 }] }],
        ['/api/v1/sync/push', { client_id: clientId, mutations: [], extra: 1 }],
        ['/api/v1/sync/pull', { client_id: 'nope', companies: [], pending_from: 0 }],
        ['/api/v1/sync/pull', { client_id: clientId, companies: [{ ...company, cursor: 'garbage' }], pending_from: 0 }],
        ['/api/v1/sync/pull', { client_id: clientId, companies: [{ ...company, cursor: `s.1.0.${Buffer.from('[1,2,3]').toString('base64url')}` }], pending_from: 0 }],
        ['/api/v1/sync/pull', { client_id: clientId, companies: [{ ...company, cursor: `s.1.0.${Buffer.from('{"a":1}').toString('base64url')}` }], pending_from: 0 }],
        ['/api/v1/sync/pull', { client_id: clientId, companies: [{ ...company, cursor: 's.1.9999.' }], pending_from: 0 }],
      ];
      for (const [path, body] of bad) {
        const res = await call(h.serverApp, 'POST', path, { token, body });
        expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400);
        expect(res.headers.get('content-type')).toContain('application/problem+json');
      }
      const foreign = await call(h.serverApp, 'POST', '/api/v1/sync/push', {
        token,
        body: { client_id: clientId, mutations: [{ id: 1, company_id: h.companyId, command: 'x', method: 'POST', path: `/api/companies/${clientId}/customers`, content_type: 'application/json', body: '{"name":"X"}', body_encoding: 'utf8', ids: [] }] },
      });
      expect(foreign.status).toBe(200);
      expect(foreign.body.results[0]).toMatchObject({ status: 'rejected' });
      expect(h.server.database.sqlite.prepare("SELECT count(*) AS n FROM customers WHERE name = 'X'").get()).toEqual({ n: 0 });
    } finally {
      await h.dispose();
    }
  }, 60_000);
});
