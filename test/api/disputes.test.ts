/**
 * The dispute workflow: a dispute has a reason, an owner and a state; while open it holds the chase
 * of its invoice (the customer's sequences pause and say why); resolving it with a note logs the
 * note on the invoice's activity and the chase goes on. Bad input changes nothing.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { syncSchema } from '../../core/sync/tables';
import { fixture, insertCommunicationRow } from '../support/rows';
import { activeSequence, addCustomer, addInvoice, addTeamMember, type SequenceWorld, sequenceWorld } from '../support/sequence-fixtures';

describe('disputes', () => {
  let w: SequenceWorld;
  beforeAll(async () => {
    w = await sequenceWorld();
  });
  beforeEach(() => w.fresh());
  afterAll(() => w.dispose());

  const readyLabels = async () => ((await w.api('GET', w.path('/sequences/queue?category=ready'))).body.data as Array<{ step_label: string }>).map((r) => r.step_label);
  const activityTitles = async (invoice: string) => ((await w.api('GET', w.path(`/invoices/${invoice}/activity`))).body.data as Array<{ title: string; detail: string | null }>).map((e) => `${e.title}: ${e.detail}`);
  const count = async (table: 'disputes' | 'communications') => (await w.engine.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;

  /** Tri-County, enrolled today in a sequence whose first email is ready at once. */
  async function chased() {
    const seq = await activeSequence(w, 'Dunning', [{ label: 'Second notice', subject_template: 'Second notice: {{invoice_number}}', body_plain_template: 'Please pay.', offset_days: 0, offset_time: '06:00' }]);
    const customer = await addCustomer(w.engine, w.company, { name: 'Tri-County' });
    const invoice = await addInvoice(w.engine, w.company, customer, { number: 'INV-10231', total: 904_357, dueDate: '2026-10-15' });
    const e = await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: customer, start_date: '2026-11-23' });
    expect(e.status).toBe(201);
    return { seq, customer, invoice, enrollment: e.body.enrollment.id as string };
  }

  it('an open dispute pauses the chase with its reason, a second one is refused, and resolving it with a note resumes the chase and logs the note', async () => {
    const t = await chased();
    const owner = await addTeamMember(w.engine, w.company, 'Dana Reyes');
    expect(await readyLabels()).toEqual(['Second notice']);

    const opened = await w.api('POST', w.path('/disputes'), { invoice_id: t.invoice.toUpperCase(), reason: 'Short shipment: 4 pallets of 10 delivered', owner_id: owner }, w.tokens.bob);
    expect(opened.status).toBe(201);
    expect(opened.body).toMatchObject({ invoice: t.invoice, invoice_number: 'INV-10231', customer_name: 'Tri-County', owner, owner_name: 'Dana Reyes', status: 'open', reason: 'Short shipment: 4 pallets of 10 delivered', resolution: null });
    const reason = 'Paused: INV-10231 is disputed (Short shipment: 4 pallets of 10 delivered)';
    // Paused in the same command: the enrollment says why before any queue read.
    expect((await w.api('GET', w.path(`/sequence-enrollments/${t.enrollment}`))).body).toMatchObject({ pause_kind: 'dispute', pause_reason: reason });
    expect(await readyLabels()).toEqual([]);
    const chase = await w.api('GET', w.path(`/customers/${t.customer}/chase`));
    expect(chase.body).toEqual({
      customer: t.customer,
      holds: [{ kind: 'dispute', reason: 'INV-10231 is disputed (Short shipment: 4 pallets of 10 delivered)', invoice: t.invoice }],
      enrollments: [{ id: t.enrollment, sequence: t.seq.id, sequence_name: 'Dunning', pause_kind: 'dispute', pause_reason: reason }],
      // The contact rule's answer: its only open invoice disputed, nothing would go.
      contact: { allowed: false, reason: 'Held: INV-10231 is disputed (Short shipment: 4 pallets of 10 delivered).' },
    });
    expect(await activityTitles(t.invoice)).toContain('Dispute opened: Short shipment: 4 pallets of 10 delivered\nOwner: Dana Reyes');

    const again = await w.api('POST', w.path('/disputes'), { invoice_id: t.invoice, reason: 'Price' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'dispute_open' });

    const listed = await w.api('GET', w.path(`/disputes?invoice_id=${t.invoice}&status=open`));
    expect(listed.body.data.map((d: { id: string }) => d.id)).toEqual([opened.body.id]);

    const resolved = await w.api('POST', w.path(`/disputes/${opened.body.id}/resolve`), { resolution: 'Credit memo for the 6 missing pallets issued' });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ status: 'resolved', resolution: 'Credit memo for the 6 missing pallets issued', resolved_by: 'alice' });
    expect(resolved.body.resolved_at).toBe('2026-11-23T12:00:00.000Z');
    expect((await w.api('GET', w.path(`/sequence-enrollments/${t.enrollment}`))).body).toMatchObject({ pause_kind: null, pause_reason: null });
    expect(await readyLabels()).toEqual(['Second notice']);
    expect((await w.api('GET', w.path(`/customers/${t.customer}/chase`))).body).toMatchObject({ holds: [], enrollments: [{ pause_kind: null, pause_reason: null }] });
    expect(await activityTitles(t.invoice)).toContain('Dispute resolved: Credit memo for the 6 missing pallets issued\nThe dispute was: Short shipment: 4 pallets of 10 delivered');

    const twice = await w.api('POST', w.path(`/disputes/${opened.body.id}/resolve`), { resolution: 'Again' });
    expect(twice.status).toBe(400);
    expect(twice.body).toMatchObject({ code: 'dispute_resolved' });
    expect(twice.headers.get('content-type')).toMatch(/application\/problem\+json/);

    // The disputes table syncs between desktops: it is in the feed, whole.
    expect(syncSchema(w.engine.database.sqlite).byName.get('disputes')).toMatchObject({ key: ['id'], companyColumn: 'company_id', columns: expect.arrayContaining(['reason', 'owner_id', 'status', 'resolution']) });
  });

  it('opened from a reply: the reply must be an email received from the invoice’s customer', async () => {
    const t = await chased();
    const other = await addCustomer(w.engine, w.company, { name: 'Greenfield' });
    const reply = await fixture(w.engine, w.company, (tx) =>
      insertCommunicationRow(tx, w.company, { customer_id: t.customer, invoice_id: t.invoice, kind: 'email', direction: 'inbound', subject: 'Re: INV-10231', body: 'We only got 4 pallets.', occurred_at: '2026-11-23T09:00:00.000Z', author_name: 'AP' }),
    );
    const theirs = await fixture(w.engine, w.company, (tx) =>
      insertCommunicationRow(tx, w.company, { customer_id: other, kind: 'email', direction: 'inbound', subject: 'Hi', body: 'Hello', occurred_at: '2026-11-23T09:00:00.000Z', author_name: 'AP' }),
    );
    const ours = await fixture(w.engine, w.company, (tx) => insertCommunicationRow(tx, w.company, { customer_id: t.customer, kind: 'email', subject: 'Reminder', body: 'Pay', occurred_at: '2026-11-22T09:00:00.000Z', author_name: 'Collector' }));
    for (const [id, message] of [
      [theirs, "Is not from this invoice's customer"],
      [ours, 'Must be an email received from the customer'],
    ]) {
      const res = await w.api('POST', w.path('/disputes'), { invoice_id: t.invoice, reason: 'Short shipment', communication_id: id });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual({ communication_id: [message] });
    }
    const opened = await w.api('POST', w.path('/disputes'), { invoice_id: t.invoice, reason: 'Short shipment', communication_id: reply });
    expect(opened.status).toBe(201);
    expect(opened.body).toMatchObject({ communication: reply, owner: null });
  });

  it('refuses bad input with problem+json and changes nothing; company-scoped; a viewer cannot open or resolve', async () => {
    const t = await chased();
    const paid = await addInvoice(w.engine, w.company, t.customer, { number: 'INV-9000', total: 10_000, dueDate: '2026-10-01', closed: true });
    const foreignCustomer = await addCustomer(w.engine, w.other, { name: 'Elsewhere' });
    const foreignInvoice = await addInvoice(w.engine, w.other, foreignCustomer, { number: 'X-1', total: 10_000, dueDate: '2026-10-01' });
    const foreignMember = await addTeamMember(w.engine, w.other, 'Not ours');
    const before = { disputes: await count('disputes'), communications: await count('communications') };

    const cases: Array<[unknown, number, Record<string, unknown>]> = [
      [{ invoice_id: t.invoice, reason: '   ' }, 400, { errors: { reason: ['Say what the customer disputes'] } }],
      [{ invoice_id: foreignInvoice, reason: 'Price' }, 400, { errors: { invoice_id: ['No invoice with this id in the company'] } }],
      [{ invoice_id: paid, reason: 'Price' }, 400, { errors: { invoice_id: ['INV-9000 is closed: there is nothing left to dispute'] } }],
      [{ invoice_id: t.invoice, reason: 'Price', owner_id: foreignMember }, 400, { errors: { owner_id: ['No team member with this id in the company'] } }],
      [{ invoice_id: 'not-a-uuid', reason: 'Price' }, 400, {}],
      [{ invoice_id: t.invoice, reason: 'x'.repeat(501) }, 400, {}],
      [{ invoice_id: t.invoice, reason: 'Price', status: 'resolved' }, 400, {}],
      [{ invoice_id: t.invoice }, 400, {}],
    ];
    for (const [body, status, shape] of cases) {
      const res = await w.api('POST', w.path('/disputes'), body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(res.body).toMatchObject(shape);
    }
    const viewer = await w.api('POST', w.path('/disputes'), { invoice_id: t.invoice, reason: 'Price' }, w.tokens.vic);
    expect(viewer.status).toBe(403);
    const outsider = await w.api('POST', w.path('/disputes'), { invoice_id: t.invoice, reason: 'Price' }, w.tokens.carol);
    expect([403, 404]).toContain(outsider.status);
    expect({ disputes: await count('disputes'), communications: await count('communications') }).toEqual(before);
    expect((await w.api('GET', w.path(`/sequence-enrollments/${t.enrollment}`))).body).toMatchObject({ pause_kind: null });

    const opened = await w.api('POST', w.path('/disputes'), { invoice_id: t.invoice, reason: 'Price' });
    expect((await w.api('POST', w.path(`/disputes/${opened.body.id}/resolve`), { resolution: ' ' })).body).toMatchObject({ errors: { resolution: ['Say how the dispute was resolved'] } });
    expect((await w.api('POST', w.path(`/disputes/${opened.body.id}/resolve`), { resolution: 'Done' }, w.tokens.vic)).status).toBe(403);
    // Another company's path does not find it.
    await w.api('GET', w.path('/disputes', w.other), undefined, w.tokens.carol).then((r) => expect(r.body.data).toEqual([]));
    expect((await w.api('GET', w.path(`/disputes/${opened.body.id}`, w.other), undefined, w.tokens.carol)).status).toBe(404);
    expect((await w.api('POST', w.path(`/disputes/${opened.body.id}/resolve`, w.other), { resolution: 'Done' }, w.tokens.carol)).status).toBe(404);
    expect((await w.api('GET', w.path(`/customers/${t.customer}/chase`, w.other), undefined, w.tokens.carol)).status).toBe(404);
    expect((await w.api('GET', w.path(`/disputes/${opened.body.id}`))).body).toMatchObject({ status: 'open' });
    // A viewer reads them.
    expect((await w.api('GET', w.path(`/disputes?customer_id=${t.customer}`), undefined, w.tokens.vic)).body.count).toBe(1);
  });
});
