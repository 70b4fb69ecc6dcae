import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { activeSequence, addCustomer, addInvoice, type SequenceWorld, sequenceWorld } from '../support/sequence-fixtures';

describe('calls and notes', () => {
  let w: SequenceWorld;
  beforeAll(async () => {
    w = await sequenceWorld();
  });
  beforeEach(() => w.fresh());
  afterAll(() => w.dispose());

  const log = (body: unknown, token?: string, company?: string) => w.api('POST', w.path('/communications', company), body, token);
  const timeline = (query = '') => w.api('GET', w.path(`/communications${query}`));
  const changes = async () => (await w.engine.db.selectFrom('changes').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;

  it('logs a call with a promise to pay: 201, the invoice last touch, the timeline and the activity', async () => {
    const acme = await addCustomer(w.engine, w.company, { name: 'Acme Corp' });
    const invoice = await addInvoice(w.engine, w.company, acme, { number: 'INV-1', total: 120_000, dueDate: '2026-11-01' });
    w.engine.clock.set('2026-11-23T15:00:00.000Z');
    const res = await log({ customer_id: acme.toUpperCase(), invoice_id: invoice, kind: 'call', outcome: 'promised_to_pay', body: 'Will pay half on Friday', promise_date: '2026-11-27', promise_amount: 600.5 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      customer: acme,
      customer_name: 'Acme Corp',
      invoice,
      invoice_number: 'INV-1',
      kind: 'call',
      direction: 'outbound',
      outcome: 'promised_to_pay',
      body: 'Will pay half on Friday',
      promise_date: '2026-11-27',
      promise_amount: 600.5,
      currency: 'USD',
      occurred_at: '2026-11-23T15:00:00.000Z',
      author_user_id: w.users.alice,
      author_name: 'alice',
      attachments: [],
    });
    const touch = await w.engine.db.selectFrom('invoices').select(['last_touch_at', 'last_touched_by']).where('id', '=', invoice).executeTakeFirstOrThrow();
    expect(touch).toEqual({ last_touch_at: '2026-11-23T15:00:00.000Z', last_touched_by: 'alice' });
    const detail = await w.api('GET', w.path(`/invoices/${invoice}`));
    expect(detail.body.last_touch_date).toBe('2026-11-23T15:00:00.000Z');
    const stored = await w.engine.db.selectFrom('communications').select(['promise_amount']).where('id', '=', res.body.id).executeTakeFirstOrThrow();
    expect(stored.promise_amount).toBe(60_050);

    const activity = await w.api('GET', w.path(`/invoices/${invoice}/activity`));
    expect(activity.body.data[0]).toMatchObject({ kind: 'communication', type: 'call', title: 'Call: Promised to pay', detail: 'Will pay half on Friday', outcome: 'promised_to_pay', promise_date: '2026-11-27', promise_amount: 600.5, by: 'alice' });
  });

  it('logs a note on the customer alone, and an earlier call does not move the last touch back', async () => {
    const acme = await addCustomer(w.engine, w.company, { name: 'Acme Corp' });
    const invoice = await addInvoice(w.engine, w.company, acme, { number: 'INV-1', total: 5_000, dueDate: '2026-11-01' });
    const note = await log({ customer_id: acme, kind: 'note', body: '  Prefers email after 3pm  ' });
    expect(note.status).toBe(201);
    expect(note.body).toMatchObject({ kind: 'note', direction: 'internal', invoice: null, body: 'Prefers email after 3pm', outcome: null, occurred_at: '2026-11-23T12:00:00.000Z' });
    await log({ customer_id: acme, invoice_id: invoice, kind: 'call', outcome: 'no_answer', occurred_at: '2026-11-23T13:00:00+01:00' });
    await log({ customer_id: acme, invoice_id: invoice, kind: 'call', direction: 'inbound', outcome: 'disputed', body: 'Says the goods arrived damaged', occurred_at: '2026-11-20T09:00:00Z' });
    const touch = await w.engine.db.selectFrom('invoices').select('last_touch_at').where('id', '=', invoice).executeTakeFirstOrThrow();
    expect(touch.last_touch_at).toBe('2026-11-23T12:00:00.000Z');

    const all = await timeline(`?customer_id=${acme}`);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ count: 3, limit: 50, offset: 0 });
    // Newest first; the call and the note share a time, so the id (time-ordered) puts the later-logged call first.
    expect(all.body.data.map((c: { kind: string; outcome: string | null }) => [c.kind, c.outcome])).toEqual([
      ['call', 'no_answer'],
      ['note', null],
      ['call', 'disputed'],
    ]);
    expect(all.body.data.map((c: { occurred_at: string }) => c.occurred_at)).toEqual(['2026-11-23T12:00:00.000Z', '2026-11-23T12:00:00.000Z', '2026-11-20T09:00:00.000Z']);
    expect(all.body.data[2]).toMatchObject({ direction: 'inbound', outcome: 'disputed' });
    expect((await timeline(`?invoice_id=${invoice}`)).body.count).toBe(2);
    expect((await timeline(`?customer_id=${acme}&kind=note`)).body.data.map((c: { kind: string }) => c.kind)).toEqual(['note']);
    const paged = await timeline(`?customer_id=${acme}&limit=1&offset=2`);
    expect(paged.body).toMatchObject({ count: 3, limit: 1, offset: 2 });
    expect(paged.body.data[0].outcome).toBe('disputed');
  });

  it('refuses bad input with a 400 naming the field, and writes nothing', async () => {
    const acme = await addCustomer(w.engine, w.company, { name: 'Acme Corp' });
    const globex = await addCustomer(w.engine, w.company, { name: 'Globex' });
    const theirs = await addInvoice(w.engine, w.company, globex, { number: 'G-1', total: 5_000, dueDate: '2026-11-01' });
    const foreignCustomer = await addCustomer(w.engine, w.other, { name: 'Elsewhere' });
    const before = await changes();
    const cases: Array<[unknown, string]> = [
      [{ customer_id: acme, kind: 'note' }, 'body'],
      [{ customer_id: acme, kind: 'note', body: '   ' }, 'body'],
      [{ customer_id: acme, kind: 'note', body: 'x', outcome: 'reached' }, 'outcome'],
      [{ customer_id: acme, kind: 'note', body: 'x', direction: 'inbound' }, 'direction'],
      [{ customer_id: acme, kind: 'call', outcome: 'promised_to_pay' }, 'promise_date'],
      [{ customer_id: acme, kind: 'call', outcome: 'reached', promise_date: '2026-11-30' }, 'promise_date'],
      [{ customer_id: acme, kind: 'call', outcome: 'promised_to_pay', promise_date: '2026-11-22' }, 'promise_date'],
      [{ customer_id: acme, kind: 'call', outcome: 'promised_to_pay', promise_date: '2026-11-30', promise_amount: 0 }, 'promise_amount'],
      [{ customer_id: acme, kind: 'call', outcome: 'promised_to_pay', promise_date: '2026-11-30', promise_amount: 1.005 }, 'promise_amount'],
      [{ customer_id: acme, kind: 'call', outcome: 'hung_up' }, 'outcome'],
      [{ customer_id: acme, kind: 'email', body: 'x' }, 'kind'],
      [{ customer_id: acme, kind: 'call', occurred_at: '2026-11-24T12:00:00Z' }, 'occurred_at'],
      [{ customer_id: acme, kind: 'call', occurred_at: '2026-11-23 12:00' }, 'occurred_at'],
      [{ customer_id: acme, kind: 'call', invoice_id: theirs }, 'invoice_id'],
      [{ customer_id: acme, kind: 'call', invoice_id: '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a' }, 'invoice_id'],
      [{ customer_id: foreignCustomer, kind: 'call' }, 'customer_id'],
      [{ customer_id: 'nope', kind: 'call' }, 'customer_id'],
      [{ customer_id: acme, kind: 'call', extra: 1 }, 'non_field_errors'],
      [{ customer_id: acme, kind: 'call', subject: 'Call\u0000' }, 'subject'],
      [{ customer_id: acme, kind: 'note', body: 'half \ud800 a pair' }, 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await log(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(Object.keys(res.body.errors ?? {}).join(','), JSON.stringify(body)).toContain(field);
    }
    expect((await timeline('?kind=letter')).status).toBe(400);
    expect((await timeline('?customer_id=nope')).status).toBe(400);
    expect(await changes()).toBe(before);
  });

  it('keeps companies apart and lets a viewer read but not write', async () => {
    const acme = await addCustomer(w.engine, w.company, { name: 'Acme Corp' });
    const elsewhere = await addCustomer(w.engine, w.other, { name: 'Elsewhere' });
    expect((await log({ customer_id: elsewhere, kind: 'note', body: 'x' }, w.tokens.carol, w.other)).status).toBe(201);
    expect((await log({ customer_id: acme, kind: 'note', body: 'x' }, w.tokens.vic)).status).toBe(403);
    expect((await log({ customer_id: elsewhere, kind: 'note', body: 'x' }, undefined, w.other)).status).toBe(403);
    expect((await w.api('GET', w.path('/communications'), undefined, w.tokens.vic)).body.count).toBe(0);
    expect((await w.api('GET', w.path(`/communications?customer_id=${elsewhere}`))).body.count).toBe(0);
  });

  it('completing a queue call records its outcome and promise; a task refuses an outcome', async () => {
    const seq = await activeSequence(w, 'Calls', [
      { label: 'Ring', step_type: 'call', offset_time: '00:00' },
      { label: 'Review account', step_type: 'task', offset_time: '00:01' },
    ]);
    const acme = await addCustomer(w.engine, w.company, { name: 'Acme Corp' });
    const invoice = await addInvoice(w.engine, w.company, acme, { number: 'INV-1', total: 5_000, dueDate: '2026-11-01' });
    await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: acme });
    const [ring, review] = (await w.api('GET', w.path('/sequences/queue'))).body.data as Array<{ id: string }>;

    const bad = await w.api('POST', w.path(`/sequences/queue/${ring.id}/complete`), { outcome: 'promised_to_pay' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.promise_date).toBeDefined();
    const badTask = await w.api('POST', w.path(`/sequences/queue/${review.id}/complete`), { outcome: 'reached', note: 'done' });
    expect(badTask.status).toBe(400);
    expect(badTask.body.errors.outcome).toBeDefined();
    expect((await timeline()).body.count).toBe(0);

    const done = await w.api('POST', w.path(`/sequences/queue/${ring.id}/complete`), { outcome: 'promised_to_pay', note: 'Paying Monday', promise_date: '2026-11-30', promise_amount: 50 });
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('completed');
    const [call] = (await timeline(`?invoice_id=${invoice}`)).body.data;
    expect(call).toMatchObject({ kind: 'call', direction: 'outbound', subject: 'Ring', outcome: 'promised_to_pay', body: 'Paying Monday', promise_date: '2026-11-30', promise_amount: 50 });
  });
});
