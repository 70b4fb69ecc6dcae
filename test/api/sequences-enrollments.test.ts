import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addCustomer, activeSequence, type SequenceWorld, sequenceWorld } from '../support/sequence-fixtures';

const MISSING = '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a';

interface Row {
  id: string;
  status: string;
  scheduled_date: string;
  scheduled_at: string;
  step_label: string;
}

describe('enrollments', () => {
  let w: SequenceWorld;
  let seq: { id: string; stepIds: string[] };
  let acme: string;
  let globex: string;

  beforeAll(async () => {
    w = await sequenceWorld();
  });
  beforeEach(async () => {
    await w.fresh();
    seq = await activeSequence(w, 'Dunning', [
      { label: 'Heads-up', offset_days: 0, offset_time: '09:00' },
      { label: 'Call', step_type: 'call', offset_days: 7, offset_time: '14:30' },
      { label: 'Dormant', offset_days: 3, is_active: false },
      { label: 'Final', offset_days: 14, offset_time: '08:00' },
    ]);
    acme = await addCustomer(w.engine, w.company, { name: 'Acme Corp' });
    globex = await addCustomer(w.engine, w.company, { name: 'Globex' });
  });
  afterAll(() => w.dispose());

  const detail = async (id: string) => (await w.api('GET', w.path(`/sequence-enrollments/${id}`))).body;

  it('refuses a start date past the end of the supported range (9999-12-31 with a 1-day step was a 500), alone and in bulk', async () => {
    const late = await activeSequence(w, 'Late', [{ label: 'Next day', offset_days: 1, offset_time: '09:00' }]);
    for (const start_date of ['9999-12-31', '3000-01-01', '1899-12-31', '0000-01-01']) {
      const one = await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: late.id, customer_id: acme, start_date });
      expect(one.status, start_date).toBe(400);
      expect(one.body.errors.start_date, start_date).toBeDefined();
      const bulk = await w.api('POST', w.path(`/sequences/${late.id}/enrollments/bulk`), { customer_ids: [acme, globex], start_date });
      expect(bulk.status, start_date).toBe(400);
    }
    const last = await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: late.id, customer_id: acme, start_date: '2999-12-31' });
    expect(last.status).toBe(201);
    const bulk = await w.api('POST', w.path(`/sequences/${late.id}/enrollments/bulk`), { customer_ids: [globex], start_date: '2999-12-31' });
    expect(bulk.status).toBe(200);
  });

  it('enrolls one customer and schedules each active step in the sequence time zone', async () => {
    const res = await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: acme, start_date: '2026-11-25' });
    expect(res.status).toBe(201);
    expect(res.body.created).toBe(true);
    expect(res.body.enrollment).toMatchObject({
      sequence: seq.id,
      sequence_name: 'Dunning',
      customer: acme,
      customer_name: 'Acme Corp',
      status: 'active',
      start_date: '2026-11-25',
      stop_reason: null,
      completed_at: null,
    });
    const d = await detail(res.body.enrollment.id);
    expect(d.scheduled_steps.map((r: Row) => [r.step_label, r.scheduled_date, r.scheduled_at, r.status])).toEqual([
      ['Heads-up', '2026-11-25', '2026-11-25T14:00:00.000Z', 'scheduled'],
      ['Call', '2026-12-02', '2026-12-02T19:30:00.000Z', 'scheduled'],
      ['Final', '2026-12-09', '2026-12-09T13:00:00.000Z', 'scheduled'],
    ]);
  });

  it("defaults the start date to today in the sequence's time zone", async () => {
    // 03:00 UTC on the 23rd is still the 22nd in New York.
    w.engine.clock.set('2026-11-23T03:00:00.000Z');
    const res = await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: acme });
    expect(res.body.enrollment.start_date).toBe('2026-11-22');
  });

  it('returns the active enrollment with 200 and created false, as the specification says, instead of enrolling twice', async () => {
    const first = await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: acme, start_date: '2026-11-25' });
    // No on_enrolled: the specification's answer (the app asks first with on_enrolled ask, test/api/queue-control.test.ts).
    const again = await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: acme, start_date: '2026-12-25' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ created: false, enrollment: first.body.enrollment });
    expect((await detail(first.body.enrollment.id)).scheduled_steps).toHaveLength(3);
    const kept = await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: acme, start_date: '2026-12-25', on_enrolled: 'keep' });
    expect([kept.status, kept.body]).toEqual([200, again.body]);
  });

  it('refuses enrolling into a draft or archived sequence with 400 sequence_not_active', async () => {
    const draft = (await w.api('POST', w.path('/sequences'), { name: 'Draft' })).body.id;
    const res = await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: draft, customer_id: acme });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('sequence_not_active');
    await w.api('POST', w.path(`/sequences/${seq.id}`), { action: 'archive' });
    const archived = await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: acme });
    expect(archived.body.code).toBe('sequence_not_active');
    const bulk = await w.api('POST', w.path(`/sequences/${draft}/enrollments/bulk`), { customer_ids: [acme] });
    expect(bulk.status).toBe(400);
    expect(bulk.body.code).toBe('sequence_not_active');
  });

  it('answers 404 for unknown or foreign sequences and customers, 400 for bad bodies', async () => {
    const theirCustomer = await addCustomer(w.engine, w.other, { name: 'Their customer' });
    const theirSeq = await activeSequence(w, 'Theirs', [{}], {}, w.other, w.tokens.carol);
    for (const body of [
      { sequence_id: MISSING, customer_id: acme },
      { sequence_id: theirSeq.id, customer_id: acme },
      { sequence_id: seq.id, customer_id: MISSING },
      { sequence_id: seq.id, customer_id: theirCustomer },
    ]) {
      expect((await w.api('POST', w.path('/sequence-enrollments'), body)).status, JSON.stringify(body)).toBe(404);
    }
    for (const body of [{}, { sequence_id: seq.id }, { customer_id: acme }, { sequence_id: 'x', customer_id: acme }, { sequence_id: seq.id, customer_id: acme, start_date: '2026-02-30' }, { sequence_id: seq.id, customer_id: acme, start_date: '25/11/2026' }]) {
      const res = await w.api('POST', w.path('/sequence-enrollments'), body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('validation_error');
    }
    expect((await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: acme }, w.tokens.vic)).status).toBe(403);
  });

  it('bulk-enrolls new customers, re-enrolls active ones with the new start date (the specification’s default), and skips unknown ones', async () => {
    const initech = await addCustomer(w.engine, w.company, { name: 'Initech' });
    const theirs = await addCustomer(w.engine, w.other, { name: 'Not ours' });
    const stale = await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: acme, start_date: '2026-11-01' });

    const res = await w.api('POST', w.path(`/sequences/${seq.id}/enrollments/bulk`), {
      customer_ids: [acme, globex, initech, MISSING, theirs, globex.toUpperCase()],
      start_date: '2026-12-01',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ enrolled_count: 2, updated_count: 1, kept_count: 0, skipped_count: 2, skipped_customer_ids: [MISSING, theirs] });

    const old = await detail(stale.body.enrollment.id);
    expect(old).toMatchObject({ status: 'completed', stop_reason: 're-enrolled', completed_at: '2026-11-23T12:00:00.000Z' });
    // Back-dated to Nov 1, its Heads-up was skipped as caught up when it was made (Final, due Nov 15,
    // was its one catch-up email); never promoted by a queue read, the rest are cancelled with it.
    expect(old.scheduled_steps.map((r: Row) => r.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);

    const active = await w.api('GET', w.path(`/sequence-enrollments?sequence_id=${seq.id}&status=active`));
    expect(active.body.count).toBe(3);
    expect(active.body.data.every((e: { start_date: string }) => e.start_date === '2026-12-01')).toBe(true);
    expect((await w.api('GET', w.path(`/sequences/${seq.id}`))).body.active_enrollment_count).toBe(3);
    // One transaction, every row recorded: 3 new enrollments with 3 steps each, 1 stale one and its 2 steps still scheduled.
    const changes = await w.engine.db.selectFrom('changes').select(['entity', 'op']).where('command', '=', 'bulk_enroll_customers').where('company_id', '=', w.company).execute();
    const tally = (entity: string, op: string) => changes.filter((c) => c.entity === entity && c.op === op).length;
    expect([tally('sequence_enrollment', 'insert'), tally('scheduled_step', 'insert'), tally('sequence_enrollment', 'update'), tally('scheduled_step', 'update')]).toEqual([3, 9, 1, 2]);

    const again = await w.api('POST', w.path(`/sequences/${seq.id}/enrollments/bulk`), { customer_ids: [acme, globex], on_enrolled: 'restart' });
    expect(again.body).toMatchObject({ enrolled_count: 0, updated_count: 2, skipped_count: 0 });
    const all = await w.api('GET', w.path(`/sequence-enrollments?customer_id=${acme}`));
    expect(all.body.data.map((e: { status: string }) => e.status)).toEqual(['active', 'completed', 'completed']);
  });

  it('keeps ready steps of a re-enrolled customer in the queue', async () => {
    await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: acme, start_date: '2026-11-20' });
    expect((await w.api('GET', w.path('/sequences/queue'))).body.count).toBe(1);
    await w.api('POST', w.path(`/sequences/${seq.id}/enrollments/bulk`), { customer_ids: [acme], start_date: '2026-11-30', on_enrolled: 'restart' });
    const ready = await w.api('GET', w.path('/sequences/queue'));
    expect(ready.body.data.map((r: Row) => [r.step_label, r.scheduled_date])).toEqual([['Heads-up', '2026-11-20']]);
  });

  it('refuses bad bulk bodies and foreign sequences', async () => {
    const url = w.path(`/sequences/${seq.id}/enrollments/bulk`);
    for (const body of [{}, { customer_ids: [] }, { customer_ids: ['nope'] }, { customer_ids: acme }, { customer_ids: [acme], start_date: 'soon' }]) {
      expect((await w.api('POST', url, body)).status, JSON.stringify(body)).toBe(400);
    }
    const many = Array.from({ length: 1001 }, () => acme);
    expect((await w.api('POST', url, { customer_ids: many })).status).toBe(400);
    const theirSeq = await activeSequence(w, 'Theirs', [{}], {}, w.other, w.tokens.carol);
    expect((await w.api('POST', w.path(`/sequences/${theirSeq.id}/enrollments/bulk`), { customer_ids: [acme] })).status).toBe(404);
    expect((await w.api('POST', w.path(`/sequences/${MISSING}/enrollments/bulk`), { customer_ids: [acme] })).status).toBe(404);
  });

  it('stops an enrollment: completes it and cancels only the steps not ready yet', async () => {
    const e = await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: acme, start_date: '2026-11-20' });
    // Heads-up (due 2026-11-20) becomes ready on this read; Call and Final stay scheduled.
    await w.api('GET', w.path('/sequences/queue'));
    w.engine.clock.set('2026-11-24T08:00:00.000Z');
    const res = await w.api('POST', w.path(`/sequence-enrollments/${e.body.enrollment.id}/stop`), { stop_reason: 'Customer paid by wire' });
    expect(res.status).toBe(200);
    expect(res.body.cancelled_scheduled_steps).toBe(2);
    expect(res.body.enrollment).toMatchObject({ status: 'completed', stop_reason: 'Customer paid by wire', completed_at: '2026-11-24T08:00:00.000Z' });
    expect((await detail(e.body.enrollment.id)).scheduled_steps.map((r: Row) => r.status)).toEqual(['ready', 'cancelled', 'cancelled']);

    const again = await w.api('POST', w.path(`/sequence-enrollments/${e.body.enrollment.id}/stop`));
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('invalid_state');
  });

  it('stops without a reason and answers 404 for unknown or foreign enrollments', async () => {
    const e = await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: globex, start_date: '2026-12-01' });
    const res = await w.api('POST', w.path(`/sequence-enrollments/${e.body.enrollment.id}/stop`));
    expect(res.body).toMatchObject({ cancelled_scheduled_steps: 3, enrollment: { stop_reason: 'stopped' } });

    const theirSeq = await activeSequence(w, 'Theirs', [{}], {}, w.other, w.tokens.carol);
    const theirCustomer = await addCustomer(w.engine, w.other, { name: 'Theirs' });
    const theirs = await w.api('POST', w.path('/sequence-enrollments', w.other), { sequence_id: theirSeq.id, customer_id: theirCustomer }, w.tokens.carol);
    expect(theirs.status).toBe(201);
    for (const id of [MISSING, theirs.body.enrollment.id, 'nope']) {
      expect((await w.api('POST', w.path(`/sequence-enrollments/${id}/stop`))).status).toBe(404);
      expect((await w.api('GET', w.path(`/sequence-enrollments/${id}`))).status).toBe(404);
    }
    expect((await w.api('POST', w.path(`/sequence-enrollments/${e.body.enrollment.id}/stop`), { stop_reason: 5 })).status).toBe(400);
  });

  it('lists enrollments with filters and paging, and refuses bad filters', async () => {
    await w.api('POST', w.path(`/sequences/${seq.id}/enrollments/bulk`), { customer_ids: [acme, globex] });
    const page = await w.api('GET', w.path('/sequence-enrollments?page_size=1&page=2'));
    expect(page.body).toMatchObject({ count: 2, page: 2, page_size: 1 });
    expect(page.body.data).toHaveLength(1);
    expect((await w.api('GET', w.path(`/sequence-enrollments?customer_id=${globex}`))).body.data[0].customer_name).toBe('Globex');
    expect((await w.api('GET', w.path('/sequence-enrollments?status=completed'))).body.count).toBe(0);
    for (const q of ['status=paused', 'customer_id=abc', 'sequence_id=1']) expect((await w.api('GET', w.path(`/sequence-enrollments?${q}`))).status).toBe(400);
  });
});
