/**
 * A bulk reminder warns per invoice, before anything is queued, about what a collector must not
 * chase over: a dispute, a standing promise, an unanswered reply, a ready dunning step. Those are
 * "held" (a client leaves them out by default); the send reports the same warnings.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../core/ids';
import { addSmtpConnection } from '../support/reminders-fixtures';
import { fixture, insertCommunicationRow } from '../support/rows';
import { activeSequence, addCustomer, addInvoice, type SequenceWorld, sequenceWorld } from '../support/sequence-fixtures';

describe('bulk reminder warnings', () => {
  let w: SequenceWorld;
  beforeAll(async () => {
    w = await sequenceWorld();
  });
  beforeEach(() => w.fresh());
  afterAll(() => w.dispose());

  async function world() {
    const customer = async (name: string, number: string) => {
      const id = await addCustomer(w.engine, w.company, { name });
      return { customer: id, invoice: await addInvoice(w.engine, w.company, id, { number, total: 100_000, dueDate: '2026-10-15' }) };
    };
    await addSmtpConnection(w.engine, w.company, { host: '127.0.0.1', port: 2525 });
    const disputed = await customer('Tri-County', 'INV-10231');
    const promised = await customer('Greenfield', 'INV-10250');
    const plain = await customer('Cobalt Retail', 'INV-10260');
    const replied = await customer('Dover Mills', 'INV-10270');
    const chased = await customer('Eagle Foods', 'INV-10280');
    expect((await w.api('POST', w.path('/disputes'), { invoice_id: disputed.invoice, reason: 'Short shipment' })).status).toBe(201);
    // Greenfield promised on a call yesterday to pay tomorrow.
    const call = await w.api('POST', w.path('/communications'), { customer_id: promised.customer, invoice_id: promised.invoice, kind: 'call', outcome: 'promised_to_pay', promise_date: '2026-11-24', occurred_at: '2026-11-22T15:00:00Z' });
    expect(call.status).toBe(201);
    await fixture(w.engine, w.company, (tx) =>
      insertCommunicationRow(tx, w.company, { customer_id: replied.customer, kind: 'email', direction: 'inbound', subject: 'Re: your invoice', body: 'Who approved this?', occurred_at: '2026-11-23T08:00:00.000Z', author_name: 'AP' }),
    );
    const seq = await activeSequence(w, 'Dunning', [{ label: 'Second notice', subject_template: 'Second notice', body_plain_template: 'Please pay.', offset_days: 0, offset_time: '06:00' }]);
    expect((await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: chased.customer, start_date: '2026-11-23' })).status).toBe(201);
    return { disputed, promised, plain, replied, chased };
  }

  it('reports, per invoice in the order asked, a dispute, a standing promise, an unanswered reply and a ready dunning step, and which are held', async () => {
    const t = await world();
    const ids = [t.disputed.invoice, t.promised.invoice, t.plain.invoice, t.replied.invoice, t.chased.invoice];
    const res = await w.api('POST', w.path('/invoices/bulk/reminder-preview'), { invoice_ids: ids });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(5);
    expect(res.body.held_count).toBe(4);
    const byNumber = Object.fromEntries(res.body.data.map((d: { invoice_number: string }) => [d.invoice_number, d]));
    expect(res.body.data.map((d: { invoice_id: string }) => d.invoice_id)).toEqual(ids);
    expect(byNumber['INV-10231']).toMatchObject({ customer_name: 'Tri-County', held: true, blockers: [], warnings: [{ kind: 'dispute', message: 'INV-10231 is disputed (Short shipment).' }] });
    expect(byNumber['INV-10250']).toMatchObject({ held: true, warnings: [{ kind: 'promise', message: 'Greenfield promised payment for INV-10250 by Nov 24.' }] });
    expect(byNumber['INV-10260']).toMatchObject({ held: false, warnings: [] });
    expect(byNumber['INV-10270']).toMatchObject({ held: true, warnings: [{ kind: 'reply_unanswered', message: 'Dover Mills replied on Nov 23 and nobody has answered yet.' }] });
    expect(byNumber['INV-10280'].held).toBe(true);
    expect(byNumber['INV-10280'].warnings.map((x: { kind: string }) => x.kind)).toEqual(['dunning_step_ready']);
    // No ISO dates or ids in the words.
    for (const d of res.body.data) for (const x of d.warnings) expect(x.message).not.toMatch(/\d{4}-\d{2}-\d{2}|[0-9a-f]{8}-[0-9a-f]{4}/);

    // The send reports the same warnings for what it queued, and nothing for the plain invoice.
    const sent = await w.api('POST', w.path('/invoices/bulk/send-reminders'), { invoice_ids: [t.disputed.invoice, t.plain.invoice] });
    expect(sent.status).toBe(200);
    expect(sent.body.warnings).toEqual([{ invoice_id: t.disputed.invoice, invoice_number: 'INV-10231', customer_id: t.disputed.customer, customer_name: 'Tri-County', warnings: [{ kind: 'dispute', message: 'INV-10231 is disputed (Short shipment).' }] }]);
    // Asked again today: the preview says so, the hold does not change.
    const again = await w.api('POST', w.path('/invoices/bulk/reminder-preview'), { invoice_ids: [t.plain.invoice] });
    expect(again.body.data[0]).toMatchObject({ held: false, warnings: [{ kind: 'reminder_today' }] });
  });

  it('refuses unknown or other companies’ invoices naming them, and bad bodies, with problem+json', async () => {
    const t = await world();
    const foreignCustomer = await addCustomer(w.engine, w.other, { name: 'Elsewhere' });
    const foreign = await addInvoice(w.engine, w.other, foreignCustomer, { number: 'X-1', total: 10_000, dueDate: '2026-10-01' });
    const unknown = newId();
    const res = await w.api('POST', w.path('/invoices/bulk/reminder-preview'), { invoice_ids: [t.plain.invoice, foreign, unknown] });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(res.body.errors.invoice_ids).toEqual([`No invoice ${foreign} in this company`, `No invoice ${unknown} in this company`]);
    for (const body of [{}, { invoice_ids: [] }, { invoice_ids: ['nope'] }, { invoice_ids: [t.plain.invoice], extra: 1 }]) {
      const bad = await w.api('POST', w.path('/invoices/bulk/reminder-preview'), body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.headers.get('content-type')).toMatch(/application\/problem\+json/);
    }
    // Company-scoped: an outsider's path holds none of ours.
    expect((await w.api('POST', w.path('/invoices/bulk/reminder-preview', w.other), { invoice_ids: [t.plain.invoice] }, w.tokens.carol)).status).toBe(400);
    // The bulk preview is the first step of sending: a viewer, who cannot send, is refused.
    expect((await w.api('POST', w.path('/invoices/bulk/reminder-preview'), { invoice_ids: [t.plain.invoice] }, w.tokens.vic)).status).toBe(403);
  });
});
