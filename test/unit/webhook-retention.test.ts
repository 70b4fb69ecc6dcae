import { afterEach, describe, expect, it } from 'vitest';
import { insertCompany } from '../../core/companies/companies';
import { runCommand, systemActor } from '../../core/engine';
import { pruneEvents, retentionCutoff } from '../../core/webhooks/retention';
import { testEngine, type TestEngine } from '../support/engine';

const NOW = '2026-11-28T09:30:00.000Z';

describe('events kept 90 days', () => {
  let engine: TestEngine;
  afterEach(async () => engine?.dispose());

  it('puts the cutoff 90 days before the moment, to the second', () => {
    expect(retentionCutoff(NOW)).toBe('2026-08-30T09:30:00.000Z');
  });

  it('removes old events and their settled deliveries oldest first, keeping a pending delivery and every event after it, over several batches', async () => {
    engine = await testEngine(NOW);
    const company = await runCommand(engine, 'test_company', { actor: systemActor, companyId: null }, (tx) => insertCompany(tx, 'Acme'));
    await engine.db
      .insertInto('webhook_endpoints')
      .values({ id: 'ep-1', company_id: company, url: 'https://hooks.example.com/a', events: '["*"]', secret_enc: 'x', created_at: NOW, updated_at: NOW })
      .execute();
    // 4,500 events 120 days old (more than two batches), one 100 days old still pending, then 10 recent.
    const day = (n: number) => `${new Date(Date.parse(NOW) - n * 86_400_000).toISOString()}`;
    const events: Array<{ id: string; created_at: string; status: 'delivered' | 'failed' | 'pending' }> = [];
    for (let i = 0; i < 4500; i++) events.push({ id: `old-${i}`, created_at: day(120), status: i % 10 === 0 ? 'failed' : 'delivered' });
    events.push({ id: 'held', created_at: day(100), status: 'pending' });
    events.push({ id: 'after-held', created_at: day(95), status: 'delivered' });
    for (let i = 0; i < 10; i++) events.push({ id: `new-${i}`, created_at: day(1), status: 'delivered' });
    await engine.db.transaction().execute(async (trx) => {
      for (const [seq, e] of events.entries()) {
        await trx.insertInto('events').values({ seq: seq + 1, id: e.id, company_id: company, type: 'invoice.created', resource_type: 'invoice', resource_id: e.id, data: '{}', created_at: e.created_at }).execute();
        await trx
          .insertInto('webhook_deliveries')
          .values({ id: `d-${e.id}`, company_id: company, endpoint_id: 'ep-1', event_seq: seq + 1, event_id: e.id, resource_key: `invoice:${e.id}`, status: e.status, next_attempt_at: e.created_at, created_at: e.created_at })
          .execute();
      }
    });

    expect(await pruneEvents(engine, NOW)).toBe(4500);
    const left = await engine.db.selectFrom('events').select('id').orderBy('seq').execute();
    expect(left.map((r) => r.id)).toEqual(['held', 'after-held', ...Array.from({ length: 10 }, (_, i) => `new-${i}`)]);
    const deliveries = await engine.db.selectFrom('webhook_deliveries').select('event_id').orderBy('event_seq').execute();
    expect(deliveries.map((r) => r.event_id)).toEqual(left.map((r) => r.id));

    // Delivered at last: the held event and the one after it go too; the recent ones stay.
    await engine.db.updateTable('webhook_deliveries').set({ status: 'delivered' }).where('event_id', '=', 'held').execute();
    expect(await pruneEvents(engine, NOW)).toBe(2);
    expect(await engine.db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).toEqual({ n: 10 });
    expect(await pruneEvents(engine, NOW)).toBe(0);
  });
});
