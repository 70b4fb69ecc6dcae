import { describe, expect, it } from 'vitest';
import { SAMPLE_PAYLOADS } from '../support/actions-fixtures';
import { call, useApiWorkspace } from '../support/api';

describe('strict input (the probe’s findings)', () => {
  const w = useApiWorkspace();


  const post = (path: string, body: unknown) => call(w.app, 'POST', `${w.base}${path}`, { token: w.tokens.demo, body });
  const changeCount = () => (w.engine.database.sqlite.prepare('SELECT count(*) AS n FROM changes').get() as { n: number }).n;

  it('refuses NUL in free text instead of storing it (it reached the CSV export as a raw byte)', async () => {
    const before = changeCount();
    const res = await post('/labels', { name: 'Dis\u0000puted', color: '#aa0000' });
    expect(res.status).toBe(400);
    expect(res.body.errors.name).toBeDefined();
    const customer = await post('/customers', { name: 'Acme\u0000' });
    expect(customer.status).toBe(400);
    expect(changeCount()).toBe(before);
  });

  it('refuses a lone surrogate instead of storing U+FFFD while echoing the original', async () => {
    const res = await call(w.app, 'POST', `${w.base}/labels`, { token: w.tokens.demo, body: '{"name":"half \\ud800 pair","color":"#aa0000"}' });
    expect(res.status).toBe(400);
    expect(res.body.errors.name).toBeDefined();
    const paired = await post('/labels', { name: 'emoji 😀', color: '#aa0000' });
    expect(paired.status).toBe(201);
    expect(paired.body.name).toBe('emoji 😀');
  });

  it('refuses NUL in a query parameter', async () => {
    const res = await call(w.app, 'GET', `${w.base}/customers?search=a%00b`, { token: w.tokens.demo });
    expect(res.status).toBe(400);
  });

  it('refuses unknown fields on the bodies that used to ignore them', async () => {
    const bodies: Array<[string, unknown]> = [
      ['/ar-aging/snapshots', { snapshot_date: '2026-11-01', extra: 1 }],
      ['/ar-aging/report-export', { format: 'csv', extra: 1 }],
      ['/sequences', { name: 'S', timezone: 'UTC', extra: 1 }],
      ['/invoices/bulk/send-reminders', { invoice_ids: ['0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a'], extra: 1 }],
    ];
    for (const [path, body] of bodies) {
      const res = await post(path, body);
      expect(res.status, path).toBe(400);
      expect(JSON.stringify(res.body.errors), path).toContain('extra');
    }
  });

  it('refuses a body sent to an operation that takes none, and changes nothing; an empty body or {} still passes', async () => {
    const label = (await post('/labels', { name: 'Disputed', color: '#aa0000' })).body;
    const session = await call(w.app, 'POST', '/api/v1/auth/login/', { body: { username: 'demo', password: 'demo-pw' } });
    const before = changeCount();
    for (const body of ['{"force":true}', '[]', 'null', 'not json', '{"label_id":"x"}']) {
      const res = await call(w.app, 'DELETE', `${w.base}/labels/${label.id}`, { token: w.tokens.demo, body });
      expect([res.status, res.body.code, res.body.detail], body).toEqual([400, 'unexpected_body', 'This request takes no body']);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
    const refused = await call(w.app, 'POST', '/api/v1/auth/logout/', { token: session.body.token, body: { everywhere: true } });
    expect([refused.status, refused.body.code]).toEqual([400, 'unexpected_body']);
    expect((await call(w.app, 'GET', '/api/v1/auth/me/', { token: session.body.token })).status).toBe(200);
    expect(changeCount()).toBe(before);
    expect(JSON.stringify((await call(w.app, 'GET', `${w.base}/labels`, { token: w.tokens.demo })).body)).toContain(label.id);

    expect((await call(w.app, 'DELETE', `${w.base}/labels/${label.id}`, { token: w.tokens.demo, body: ' { } ' })).status).toBe(204);
    expect((await call(w.app, 'POST', '/api/v1/auth/logout/', { token: session.body.token, body: '' })).status).toBe(204);
  });

  it('answers ar-aging/details?customer_id=abc with 400, like other id parameters', async () => {
    const res = await call(w.app, 'GET', `${w.base}/ar-aging/details?customer_id=abc`, { token: w.tokens.demo });
    expect(res.status).toBe(400);
    expect(res.body.errors.customer_id).toBeDefined();
  });

  it('documents as nullable the id fields that accept null', async () => {
    const doc = (await call(w.app, 'GET', '/api/openapi.json')).body;
    const s = doc.components.schemas;
    expect(s.CreateActionRequest.properties.invoice.type).toEqual(['string', 'null']);
    expect(s.RejectActionRequest.properties.approved_by.type).toEqual(['string', 'null']);
    expect(s.CreateSequenceRequest.properties.sender_connection_id.type).toEqual(['string', 'null']);
  });

  it("refuses a portfolio insight whose target_id is not its own company", async () => {
    const create = (target_id?: string) =>
      post('/intelligence/insights', { target_type: 'portfolio', insight_type: 'portfolio_signal', payload_json: SAMPLE_PAYLOADS.portfolio_signal, ...(target_id ? { target_id } : {}) });
    for (const bad of [w.other, 'garbage']) {
      const res = await create(bad);
      expect(res.status, bad).toBe(400);
      expect(res.body.errors.target_id).toBeDefined();
    }
    expect((await create(w.company.toUpperCase())).body.target_id).toBe(w.company);
    expect((await create()).body.target_id).toBe(w.company);
  });
});
