import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { repairLastTouch } from '../../core/db/migrations/0260_last_touch_contact';
import { addCustomer, addInvoice, type SequenceWorld, sequenceWorld } from '../support/sequence-fixtures';

/** Issue 24: an invoice's last touch is the last contact with the customer; an internal note is not one. */
describe("an invoice's last touch", () => {
  let w: SequenceWorld;
  beforeAll(async () => {
    w = await sequenceWorld();
  });
  beforeEach(() => w.fresh());
  afterAll(() => w.dispose());

  const log = (body: unknown) => w.api('POST', w.path('/communications'), body);
  const touch = async (invoice: string) => {
    const res = await w.api('GET', w.path(`/invoices/${invoice}`));
    expect(res.status).toBe(200);
    return { at: res.body.last_touch_date, by: res.body.last_touched_by };
  };

  it('is the last call or email with the customer: internal notes and dispute notes leave it where it was', async () => {
    const acme = await addCustomer(w.engine, w.company, { name: 'Acme Corp' });
    const invoice = await addInvoice(w.engine, w.company, acme, { number: 'INV-1', total: 120_000, dueDate: '2026-11-01' });
    expect(await touch(invoice)).toEqual({ at: null, by: null });

    expect((await log({ customer_id: acme, invoice_id: invoice, kind: 'call', outcome: 'left_voicemail', occurred_at: '2026-11-20T09:00:00Z' })).status).toBe(201);
    expect(await touch(invoice)).toEqual({ at: '2026-11-20T09:00:00.000Z', by: 'alice' });

    // A note to the team, later than the call, by another collector: the customer saw nothing.
    expect((await w.api('POST', w.path('/communications'), { customer_id: acme, invoice_id: invoice, kind: 'note', body: 'Ask sales about the PO' }, w.tokens.bob)).status).toBe(201);
    expect(await touch(invoice)).toEqual({ at: '2026-11-20T09:00:00.000Z', by: 'alice' });

    // Opening a dispute writes a note on the activity; it is no contact either.
    w.engine.clock.set('2026-11-23T14:05:00.000Z');
    expect((await w.api('POST', w.path('/disputes'), { invoice_id: invoice, reason: 'Short shipment' })).status).toBe(201);
    expect(await touch(invoice)).toEqual({ at: '2026-11-20T09:00:00.000Z', by: 'alice' });
    const activity = await w.api('GET', w.path(`/invoices/${invoice}/activity`));
    expect(activity.body.data.map((e: { title: string }) => e.title)).toEqual(['Dispute opened', 'Note', 'Call: Left voicemail']);

    // A task done (a review of the account) is no contact either; an email action sent is one.
    const task = await w.api('POST', w.path('/actions'), { invoice, action_type: 'task', description: 'Review the account' });
    expect(task.status).toBe(201);
    expect((await w.api('POST', w.path(`/actions/${task.body.id}/complete`))).status).toBe(200);
    expect(await touch(invoice)).toEqual({ at: '2026-11-20T09:00:00.000Z', by: 'alice' });

    // The customer calling back is a touch, whichever way the call went.
    expect((await log({ customer_id: acme, invoice_id: invoice, kind: 'call', direction: 'inbound', outcome: 'disputed', occurred_at: '2026-11-23T14:03:00Z' })).status).toBe(201);
    expect(await touch(invoice)).toEqual({ at: '2026-11-23T14:03:00.000Z', by: 'alice' });
  });

  it('the migration gives back the last contact to an invoice a note had touched, and clears one that only a note or a task touched', async () => {
    const acme = await addCustomer(w.engine, w.company, { name: 'Acme Corp' });
    const called = await addInvoice(w.engine, w.company, acme, { number: 'INV-1', total: 50_000, dueDate: '2026-11-01' });
    const noted = await addInvoice(w.engine, w.company, acme, { number: 'INV-2', total: 7_000, dueDate: '2026-11-01' });
    const untouched = await addInvoice(w.engine, w.company, acme, { number: 'INV-3', total: 9_000, dueDate: '2026-11-01' });
    await log({ customer_id: acme, invoice_id: called, kind: 'call', outcome: 'reached', occurred_at: '2026-11-20T09:00:00Z' });
    await log({ customer_id: acme, invoice_id: called, kind: 'note', body: 'Pays on the 30th' });
    await log({ customer_id: acme, invoice_id: noted, kind: 'note', body: 'Credit hold?' });
    const reviewed = await addInvoice(w.engine, w.company, acme, { number: 'INV-4', total: 3_000, dueDate: '2026-11-01' });
    const task = await w.api('POST', w.path('/actions'), { invoice: reviewed, action_type: 'task', description: 'Review the account' });
    expect((await w.api('POST', w.path(`/actions/${task.body.id}/complete`))).status).toBe(200);
    await sql`UPDATE invoices SET last_touch_at = '2026-11-23T12:00:00.000Z', last_touched_by = 'alice' WHERE id = ${reviewed}`.execute(w.engine.db);
    // What the old trigger left behind: the notes as the last touch.
    await sql`UPDATE invoices SET last_touch_at = '2026-11-23T12:00:00.000Z', last_touched_by = 'bob' WHERE id IN (${called}, ${noted})`.execute(w.engine.db);
    await sql`UPDATE invoices SET last_touch_at = '2026-11-22T08:00:00.000Z', last_touched_by = 'carol' WHERE id = ${untouched}`.execute(w.engine.db);

    await repairLastTouch(w.engine.db);
    expect(await touch(called)).toEqual({ at: '2026-11-20T09:00:00.000Z', by: 'alice' });
    expect(await touch(noted)).toEqual({ at: null, by: null });
    expect(await touch(reviewed)).toEqual({ at: null, by: null });
    // No note matches its touch: left as it was.
    expect(await touch(untouched)).toEqual({ at: '2026-11-22T08:00:00.000Z', by: 'carol' });
  });
});
