import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCommand, systemActor } from '../../core/engine';
import { createApp } from '../../core/http/app';
import { followPromises } from '../../core/promises/followup';
import { parseMessage } from '../../core/replies/parse';
import { emptyTally, recordIncoming } from '../../core/replies/record';
import { deliverDue } from '../../core/webhooks/deliver';
import { materializeEvents } from '../../core/webhooks/materialize';
import { call, useApiWorkspace } from '../support/api';

const repo = resolve(import.meta.dirname, '../..');
const LOOPBACK = { allowedHosts: ['127.0.0.1'] };

/** README's verification snippet, run as a receiver would run it. */
function readmeVerifier(): (secret: string, header: string, body: string, windowSeconds?: number) => boolean {
  const readme = readFileSync(join(repo, 'README.md'), 'utf8');
  const block = /<!-- webhook-verify -->\s*```js\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error('README has no webhook-verify block');
  const context: Record<string, unknown> = { require, Buffer, Date };
  runInNewContext(`${block}\nthis.verify = verifyArdeskSignature;`, context);
  return context.verify as ReturnType<typeof readmeVerifier>;
}

interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json: { id: string; type: string; created_at: string; company_id: string; data: Record<string, unknown> };
}

/** A real HTTP receiver on loopback; `answers` are the statuses it gives, in turn (then 200). */
function receiver() {
  const got: Received[] = [];
  const answers: number[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      got.push({ headers: req.headers, body, json: JSON.parse(body) as Received['json'] });
      res.writeHead(answers.shift() ?? 200).end('ok');
    });
  });
  return {
    got,
    answers,
    async start() {
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    },
    stop: () => new Promise<void>((done) => server.close(() => done())),
  };
}

describe('webhooks and the events feed', () => {
  const w = useApiWorkspace([['cole', 'collector']]);
  const hook = receiver();
  let url: string;
  let app: ReturnType<typeof createApp>;
  const verify = readmeVerifier();

  beforeAll(async () => {
    url = await hook.start();
    app = createApp(w.engine, { webhookRule: LOOPBACK });
  });
  afterAll(() => hook.stop());
  beforeEach(() => {
    hook.got.length = 0;
    hook.answers.length = 0;
    w.engine.clock.set('2026-11-23T12:00:00.000Z');
  });

  const as = (who: string) => ({
    get: (path: string) => call(app, 'GET', `${w.base}${path}`, { token: w.tokens[who] }),
    post: (path: string, body?: unknown) => call(app, 'POST', `${w.base}${path}`, { token: w.tokens[who], body }),
    patch: (path: string, body?: unknown) => call(app, 'PATCH', `${w.base}${path}`, { token: w.tokens[who], body }),
  });
  const owner = as('demo');
  const pump = async () => {
    await materializeEvents(w.engine);
    for (let i = 0; i < 10; i++) {
      const { delivered, failed } = await deliverDue(w.engine, { rule: LOOPBACK });
      if (delivered + failed === 0) break;
    }
  };
  const register = async (events: string[] = ['*']) => {
    const res = await owner.post('/webhooks', { url, events, description: 'test receiver' });
    expect(res.status).toBe(201);
    return res.body as { id: string; secret: string };
  };
  const newCustomer = async (name: string) => (await owner.post('/customers', { name })).body.id as string;
  const newInvoice = async (customer: string, total: number, due = '2026-11-10') => {
    const res = await owner.post('/invoices', { customer, total_amount: total, due_date: due, invoice_date: '2026-10-10' });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };

  /** The customer's email, as the mailbox reader records it (the reader itself is tested against Dovecot in reply-readings). */
  const customerReplies = async (customer: string, text: string) => {
    expect((await owner.patch(`/customers/${customer}`, { contacts: [{ name: 'Dana', email: 'ap@harbor.test', is_billing: true }] })).status).toBe(200);
    const made = await owner.post('/email-connections', { name: 'AR', from_email: 'ar@acme.test', smtp_host: 'smtp.acme.test', smtp_port: 587 });
    expect(made.status).toBe(201);
    const connection = await w.engine.db.selectFrom('email_connections').selectAll().where('id', '=', made.body.id).executeTakeFirstOrThrow();
    const source = ['From: Dana <ap@harbor.test>', 'To: ar@acme.test', 'Subject: Our account', 'Message-ID: <r1@harbor.test>', 'Content-Type: text/plain; charset=utf-8', '', text, ''].join('\r\n');
    const message = await parseMessage(1, Buffer.from(source));
    await runCommand(w.engine, 'read_replies', { actor: systemActor, companyId: w.company }, (tx) => recordIncoming(tx, connection, '1', message, emptyTally()));
  };

  it("passes over changes that are no event (a refresh's insight rows) without reading them, and still makes the next event", async () => {
    await register(['invoice.created']);
    await runCommand(w.engine, 'refresh_intelligence', { actor: systemActor, companyId: w.company }, (tx) =>
      tx.recordMany(Array.from({ length: 5000 }, (_, i) => ({ entity: 'insight', entityId: `i${i}`, op: 'insert' as const, data: { payload: 'x'.repeat(200) } }))),
    );
    await materializeEvents(w.engine);
    const top = (await w.engine.db.selectFrom('changes').select((eb) => eb.fn.max('seq').as('seq')).executeTakeFirstOrThrow()).seq;
    expect((await w.engine.db.selectFrom('event_cursor').select('changes_seq').executeTakeFirstOrThrow()).changes_seq).toBe(top);
    await newInvoice(await newCustomer('After The Flood'), 10);
    await pump();
    expect(hook.got.map((r) => r.json.type)).toEqual(['invoice.created']);
  });

  it('lets owners alone register, refuses private addresses and unknown events, and shows the secret once', async () => {
    expect((await as('cole').post('/webhooks', { url, events: ['*'] })).status).toBe(403);
    expect((await as('watcher').get('/webhooks')).status).toBe(403);
    const privateOne = await call(createApp(w.engine), 'POST', `${w.base}/webhooks`, { token: w.tokens.demo, body: { url, events: ['*'] } });
    expect(privateOne.status).toBe(400);
    expect(privateOne.body.detail).toMatch(/private or local address \(127\.0\.0\.1\)/);
    expect((await owner.post('/webhooks', { url, events: ['invoice.exploded'] })).status).toBe(400);
    const made = await register(['payment.created']);
    expect(made.secret).toMatch(/^whsec_/);
    const listed = await owner.get('/webhooks');
    expect(listed.body.data).toHaveLength(1);
    expect(JSON.stringify(listed.body)).not.toContain(made.secret);
    expect((await call(app, 'GET', `/api/companies/${w.other}/webhooks/${made.id}`, { token: w.tokens.rival })).status).toBe(404);
  });

  it('delivers a scripted day as exactly the expected events, in order, each signed as README verifies', async () => {
    const { secret } = await register();
    const customer = await newCustomer('Harbor Lights');
    const paid = await newInvoice(customer, 100);
    const promised = await newInvoice(customer, 250);
    const disputed = await newInvoice(customer, 80);
    expect((await owner.post('/payments', { invoice: paid, amount: 100 })).status).toBe(201);
    expect((await owner.post('/communications', { customer_id: customer, invoice_id: promised, kind: 'call', outcome: 'promised_to_pay', promise_date: '2026-11-25' })).status).toBe(201);
    const dispute = await owner.post('/disputes', { invoice_id: disputed, reason: 'Damaged on arrival' });
    expect(dispute.status).toBe(201);
    expect((await owner.post(`/disputes/${dispute.body.id}/resolve`, { resolution: 'Credit agreed' })).status).toBe(200);
    await customerReplies(customer, 'Thanks for the credit note. Could you send me a copy of the statement?');
    w.engine.clock.set('2026-12-05T12:00:00.000Z');
    await followPromises(w.engine, w.company);
    await pump();

    const seen = hook.got.map((r) => r.json.type);
    expect(seen).toEqual([
      'invoice.created',
      'invoice.created',
      'invoice.created',
      'payment.created',
      'invoice.updated',
      'invoice.closed',
      'promise.created',
      'dispute.opened',
      'dispute.resolved',
      'reply.received',
      'action.proposed',
      'promise.broken',
    ]);
    // The broken promise's item in the Actions inbox is the proposed action.
    expect(hook.got.at(-2)!.json.data).toMatchObject({ status: 'proposed', customer_id: customer });
    for (const r of hook.got) {
      expect(verify(secret, String(r.headers['ardesk-signature']), r.body, 10 ** 9)).toBe(true);
      expect(verify(secret, String(r.headers['ardesk-signature']), r.body.replace('"', '" '), 10 ** 9)).toBe(false);
      expect(r.json.company_id).toBe(w.company);
      expect(r.headers['ardesk-event-id']).toBe(r.json.id);
    }
    expect(hook.got.find((r) => r.json.type === 'payment.created')!.json.data).toMatchObject({ invoice_id: paid, amount: 10000 });
    // A signature older than the window is refused, as a replay would be.
    expect(verify(secret, String(hook.got[0].headers['ardesk-signature']), hook.got[0].body, 60)).toBe(false);

    // The feed gives the same events, in pages, to any member; a foreign company's is not theirs.
    const first = await as('watcher').get('/events?limit=4');
    expect(first.status).toBe(200);
    const second = await as('watcher').get(`/events?after=${first.body.next_cursor}&limit=100`);
    expect([...first.body.data, ...second.body.data].map((e: { id: string }) => e.id)).toEqual(hook.got.map((r) => r.json.id));
    expect((await as('watcher').get(`/events?after=${second.body.next_cursor}`)).body).toEqual({ data: [], next_cursor: second.body.next_cursor });
    expect((await as('watcher').get('/events?after=abc')).status).toBe(400);
    expect((await call(app, 'GET', `/api/companies/${w.company}/events`, { token: w.tokens.rival })).status).toBe(403);
  });

  it('retries a 500 with backoff and delivers the same event id; a replay sends it again', async () => {
    const made = await register(['invoice.created']);
    hook.answers.push(500);
    await newInvoice(await newCustomer('Retry Co'), 40);
    await pump();
    expect(hook.got.map((r) => r.json.type)).toEqual(['invoice.created']);
    let log = (await owner.get(`/webhooks/${made.id}/deliveries`)).body.data;
    expect(log[0]).toMatchObject({ status: 'pending', attempts: 1, response_status: 500, error: 'The endpoint answered HTTP 500' });
    await pump();
    expect(hook.got).toHaveLength(1);
    w.engine.clock.set('2026-11-23T12:00:31.000Z');
    await pump();
    expect(hook.got).toHaveLength(2);
    expect(hook.got[1].json.id).toBe(hook.got[0].json.id);
    log = (await owner.get(`/webhooks/${made.id}/deliveries`)).body.data;
    expect(log[0]).toMatchObject({ status: 'delivered', attempts: 2, response_status: 200 });
    const replay = await owner.post(`/webhooks/${made.id}/deliveries/${log[0].id}/replay`);
    expect(replay.status).toBe(202);
    await pump();
    expect(hook.got.map((r) => r.json.id)).toEqual([hook.got[0].json.id, hook.got[0].json.id, hook.got[0].json.id]);
  });

  it('holds later events of a resource behind a failing earlier one, and disables an endpoint failing for three days', async () => {
    const made = await register(['invoice.created', 'invoice.updated', 'payment.created']);
    const customer = await newCustomer('Order Co');
    hook.answers.push(503);
    const invoice = await newInvoice(customer, 60);
    expect((await owner.patch(`/invoices/${invoice}`, { due_date: '2026-11-15' })).status).toBe(200);
    await pump();
    // The update waits for the creation's retry.
    expect(hook.got.map((r) => r.json.type)).toEqual(['invoice.created']);
    w.engine.clock.set('2026-11-23T12:01:00.000Z');
    await pump();
    expect(hook.got.map((r) => r.json.type)).toEqual(['invoice.created', 'invoice.created', 'invoice.updated']);

    hook.answers.push(...new Array(40).fill(500));
    // A payment a day, each delivery failing, from Nov 23 to past three days later.
    for (const at of ['2026-11-23T12:01:00.000Z', '2026-11-24T12:00:00.000Z', '2026-11-25T12:00:00.000Z', '2026-11-26T12:30:00.000Z']) {
      w.engine.clock.set(at);
      expect((await owner.post('/payments', { invoice, amount: 1 })).status).toBe(201);
      await pump();
    }
    const endpoint = (await owner.get(`/webhooks/${made.id}`)).body;
    expect(endpoint.disabled_at).not.toBeNull();
    expect(endpoint.disabled_reason).toMatch(/Every delivery failed since 2026-11-23 \(last: The endpoint answered HTTP 500\)/);
    const before = hook.got.length;
    await pump();
    expect(hook.got).toHaveLength(before);
    expect((await owner.patch(`/webhooks/${made.id}`, { enabled: true })).body.disabled_at).toBeNull();
  });
});
