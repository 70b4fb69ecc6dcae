/**
 * A webhook delivery cut by kill -9 (issue 42): the server dies while the receiver holds the
 * request; started again, it sends the same event, with the same id, and records it delivered.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addCompany, addUser } from '../support/api';
import { type ServerProcess, startServe } from '../support/cli';
import { testEngine } from '../support/engine';

async function json(url: string, init: { method?: string; token?: string; body?: unknown } = {}) {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Token ${init.token}` } : {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('a webhook delivery cut by kill -9', () => {
  const got: Array<{ id: string; type: string }> = [];
  const held: ServerResponse[] = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      got.push(JSON.parse(body) as { id: string; type: string });
      // The first request is never answered: the server is killed while it waits.
      if (got.length === 1) held.push(res);
      else res.writeHead(200).end();
    });
  });
  let server: ServerProcess | undefined;
  afterAll(async () => {
    for (const res of held) res.destroy();
    await server?.stop();
    await new Promise((done) => receiver.close(done));
  });

  it('sends the same event again after the restart, and logs it delivered', async () => {
    await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const setup = await testEngine();
    const company = await addCompany(setup, 'Acme Supply');
    await addUser(setup, 'ana', [[company, 'owner']]);
    await setup.close();
    const args = ['--db', join(setup.dir, 'ardesk.sqlite'), '--port', '0', '--webhook-hosts', '127.0.0.1'];

    server = await startServe(args);
    const token = (await json(`${server.url}/api/v1/auth/login/`, { method: 'POST', body: { username: 'ana', password: 'ana-pw' } })).body.token as string;
    const base = `${server.url}/api/companies/${company}`;
    const webhook = await json(`${base}/webhooks`, { method: 'POST', token, body: { url: hook, events: ['invoice.created'] } });
    expect(webhook.status).toBe(201);
    const customer = (await json(`${base}/customers`, { method: 'POST', token, body: { name: 'Cobalt Retail' } })).body.id as string;
    expect((await json(`${base}/invoices`, { method: 'POST', token, body: { customer, total_amount: 120 } })).status).toBe(201);

    await expect.poll(() => got.length, { timeout: 15_000 }).toBe(1);
    const exited = new Promise((done) => server!.child.once('exit', done));
    server.child.kill('SIGKILL');
    await exited;

    server = await startServe(args);
    await expect.poll(() => got.length, { timeout: 15_000 }).toBe(2);
    expect(got[1]).toEqual(got[0]);
    const again = (await json(`${server.url}/api/v1/auth/login/`, { method: 'POST', body: { username: 'ana', password: 'ana-pw' } })).body.token as string;
    await expect
      .poll(async () => (await json(`${server!.url}/api/companies/${company}/webhooks/${webhook.body.id}/deliveries`, { token: again })).body.data.map((d: { status: string; event_id: string }) => [d.status, d.event_id]), { timeout: 10_000 })
      .toEqual([['delivered', got[0].id]]);
  }, 90_000);
});
