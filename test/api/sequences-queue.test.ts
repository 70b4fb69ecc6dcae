import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addAction } from '../support/actions-fixtures';
import { addCustomer, addInvoice, addManualEmail, addTeamMember, activeSequence, type SequenceWorld, sequenceWorld } from '../support/sequence-fixtures';

const MISSING = '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a';

interface Row {
  id: string;
  status: string;
  step_label: string;
  step_type: string;
  customer_name: string;
  sequence_name: string;
  scheduled_date: string;
  email_subject: string | null;
  ar_owner: string | null;
  ar_owner_name: string | null;
}

const labels = (body: { data: Row[] }) => body.data.map((r) => `${r.customer_name}:${r.step_label}`);

describe('the outreach queue', () => {
  let w: SequenceWorld;
  beforeAll(async () => {
    w = await sequenceWorld();
  });
  beforeEach(() => w.fresh());
  afterAll(() => w.dispose());

  const queue = (query = '') => w.api('GET', w.path(`/sequences/queue${query}`));

  it('promotes due steps to ready when it is read, and only those', async () => {
    const seq = await activeSequence(w, 'Dunning', [
      { label: 'Now', offset_days: 0, offset_time: '06:00' },
      { label: 'Tomorrow', offset_days: 1, offset_time: '06:00' },
      { label: 'Next week', step_type: 'call', offset_days: 7, offset_time: '06:00' },
    ]);
    const acme = await addCustomer(w.engine, w.company, { name: 'Acme Corp' });
    const e = await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: acme, start_date: '2026-11-23' });
    const statuses = async () => (await w.api('GET', w.path(`/sequence-enrollments/${e.body.enrollment.id}`))).body.scheduled_steps.map((r: Row) => r.status);
    expect(await statuses()).toEqual(['scheduled', 'scheduled', 'scheduled']);

    const first = await queue();
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ count: 1, page: 1, page_size: 20 });
    expect(first.body.data[0]).toMatchObject({ step_label: 'Now', status: 'ready', sequence: seq.id, sequence_name: 'Dunning', customer: acme, enrollment: e.body.enrollment.id });
    expect(await statuses()).toEqual(['ready', 'scheduled', 'scheduled']);
    expect((await queue('?category=upcoming')).body.data.map((r: Row) => r.step_label)).toEqual(['Tomorrow', 'Next week']);

    // Catch-up after days without a read: every due step becomes ready, once.
    w.engine.clock.set('2026-12-05T12:00:00.000Z');
    const later = await queue();
    expect(later.body.data.map((r: Row) => r.step_label)).toEqual(['Now', 'Tomorrow', 'Next week']);
    const again = await queue();
    expect(again.body.data.map((r: Row) => r.id)).toEqual(later.body.data.map((r: Row) => r.id));
    const promotions = await w.engine.db.selectFrom('changes').select('entity_id').where('command', '=', 'promote_due_steps').where('company_id', '=', w.company).execute();
    expect(promotions).toHaveLength(3);
  });

  it('promotes at the UTC instant of the local time, not at UTC midnight', async () => {
    const seq = await activeSequence(w, 'Tokyo', [{ label: 'Nine in Tokyo', offset_days: 1, offset_time: '09:00' }], { timezone: 'Asia/Tokyo' });
    const acme = await addCustomer(w.engine, w.company, { name: 'Acme Corp' });
    await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: acme, start_date: '2026-11-24' });
    // 09:00 on the 25th in Tokyo is 00:00 UTC on the 25th.
    w.engine.clock.set('2026-11-24T23:59:59.000Z');
    expect((await queue()).body.count).toBe(0);
    w.engine.clock.set('2026-11-25T00:00:00.000Z');
    expect((await queue()).body.count).toBe(1);
  });

  it('holds a due email step after a manual touch of the customer (last-touch awareness), not call steps', async () => {
    const seq = await activeSequence(w, 'Dunning', [
      { label: 'Email', offset_days: 0, offset_time: '06:00' },
      { label: 'Call', step_type: 'call', offset_days: 0, offset_time: '06:00' },
    ]);
    const touched = await addCustomer(w.engine, w.company, { name: 'Touched' });
    const quiet = await addCustomer(w.engine, w.company, { name: 'Quiet' });
    await addManualEmail(w.engine, w.company, touched, '2026-11-22T16:00:00.000Z');
    await addManualEmail(w.engine, w.company, quiet, '2026-11-19T11:00:00.000Z');
    // An approved call action carried out yesterday touches the customer as much.
    const called = await addCustomer(w.engine, w.company, { name: 'Called' });
    await addAction(w.engine, w.company, { customer_id: called, action_type: 'call', status: 'completed', executed_at: '2026-11-22T10:00:00.000Z' });
    await w.api('POST', w.path(`/sequences/${seq.id}/enrollments/bulk`), { customer_ids: [touched, quiet, called], start_date: '2026-11-23' });

    expect(labels((await queue()).body).sort()).toEqual(['Called:Call', 'Quiet:Call', 'Quiet:Email', 'Touched:Call']);
    expect(labels((await queue('?category=upcoming')).body).sort()).toEqual(['Called:Email', 'Touched:Email']);
    // Three days after the manual email the hold ends.
    w.engine.clock.set('2026-11-25T16:00:01.000Z');
    expect(labels((await queue()).body)).toContain('Touched:Email');
  });

  it('filters by step type, sequence, enrollment, customer, AR owner and search, with paging', async () => {
    const dana = await addTeamMember(w.engine, w.company, 'Dana Owner');
    const eli = await addTeamMember(w.engine, w.company, 'Eli Owner');
    const acme = await addCustomer(w.engine, w.company, { name: 'Acme Corp', arOwner: dana });
    const globex = await addCustomer(w.engine, w.company, { name: 'Globex', arOwner: eli });
    const hooli = await addCustomer(w.engine, w.company, { name: 'Hooli' });
    await addInvoice(w.engine, w.company, globex, { number: 'INV-77', total: 10_000, dueDate: '2026-11-01' });
    const dunning = await activeSequence(w, 'Dunning', [
      { label: 'Polite email', subject_template: 'Invoice {{invoice_number}} for {{customer_name}}', offset_time: '00:00' },
      { label: 'Phone', step_type: 'call', offset_time: '00:01' },
    ]);
    const vip = await activeSequence(w, 'VIP care', [{ label: 'Check-in', step_type: 'task', offset_time: '00:02' }]);
    await w.api('POST', w.path(`/sequences/${dunning.id}/enrollments/bulk`), { customer_ids: [acme, globex, hooli] });
    const vipEnrollment = await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: vip.id, customer_id: acme });

    const all = await queue();
    expect(all.body.count).toBe(7);
    expect((await queue('?step_type=call')).body.data.every((r: Row) => r.step_type === 'call')).toBe(true);
    expect((await queue('?step_type=call,task')).body.count).toBe(4);
    expect(labels((await queue(`?sequence_id=${vip.id}`)).body)).toEqual(['Acme Corp:Check-in']);
    expect(labels((await queue(`?enrollment_id=${vipEnrollment.body.enrollment.id}`)).body)).toEqual(['Acme Corp:Check-in']);
    expect((await queue(`?customer_id=${acme}`)).body.count).toBe(3);
    expect((await queue(`?ar_owner=${dana}`)).body.data.every((r: Row) => r.ar_owner === dana && r.ar_owner_name === 'Dana Owner')).toBe(true);
    expect((await queue(`?ar_owner=${dana}`)).body.count).toBe(3);
    expect(labels((await queue('?ar_owner=__unassigned__')).body).sort()).toEqual(['Hooli:Phone', 'Hooli:Polite email']);
    expect((await queue(`?ar_owner=${eli},__unassigned__`)).body.count).toBe(4);
    expect((await queue(`?ar_owner=${MISSING}`)).body.count).toBe(0);

    expect((await queue('?search=vip')).body.count).toBe(1); // sequence name
    expect((await queue('?search=PHONE')).body.count).toBe(3); // step label
    expect((await queue('?search=glob')).body.count).toBe(2); // customer name
    expect((await queue('?search=invoice')).body.count).toBe(3); // email subject (template)
    expect((await queue('?search=nothing-like-this')).body.count).toBe(0);

    const globexEmail = (await queue(`?customer_id=${globex}&step_type=reminder`)).body.data[0];
    expect(globexEmail.email_subject).toBe('Invoice INV-77 for Globex');
    expect((await queue(`?customer_id=${globex}&step_type=call`)).body.data[0].email_subject).toBeNull();

    const page2 = await queue('?page=2&page_size=3');
    expect(page2.body).toMatchObject({ count: 7, page: 2, page_size: 3 });
    expect(page2.body.data.map((r: Row) => r.id)).toEqual(all.body.data.slice(3, 6).map((r: Row) => r.id));
    expect((await queue('?page_size=500')).body.page_size).toBe(100);
    expect((await queue('?category=ready')).body.count).toBe(7);
  });

  it('refuses bad query values with 400', async () => {
    for (const q of ['category=done', 'step_type=email', 'step_type=', 'sequence_id=abc', 'enrollment_id=1', 'customer_id=x', 'ar_owner=dana', 'ar_owner=', 'page=0', 'page_size=-1', 'page=one']) {
      const res = await queue(`?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.code).toBe('validation_error');
    }
  });

  it("shows only the company's own rows", async () => {
    const seq = await activeSequence(w, 'Dunning', [{ offset_time: '00:00' }]);
    await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: await addCustomer(w.engine, w.company, { name: 'Ours' }) });
    const theirSeq = await activeSequence(w, 'Dunning', [{ offset_time: '00:00' }], {}, w.other, w.tokens.carol);
    const theirCustomer = await addCustomer(w.engine, w.other, { name: 'Theirs' });
    await w.api('POST', w.path('/sequence-enrollments', w.other), { sequence_id: theirSeq.id, customer_id: theirCustomer }, w.tokens.carol);
    expect(labels((await queue()).body)).toEqual(['Ours:New Step']);
    const theirs = await w.api('GET', w.path('/sequences/queue', w.other), undefined, w.tokens.carol);
    expect(labels(theirs.body)).toEqual(['Theirs:New Step']);
    expect((await w.api('GET', w.path(`/sequences/queue/${theirs.body.data[0].id}`))).status).toBe(404);
    expect((await w.api('POST', w.path(`/sequences/queue/${theirs.body.data[0].id}/complete`))).status).toBe(404);
    expect((await w.api('POST', w.path(`/sequences/queue/${theirs.body.data[0].id}/send`))).status).toBe(404);
    expect((await w.api('GET', w.path('/sequences/queue'), undefined, w.tokens.vic)).status).toBe(200);
    expect((await w.api('GET', w.path('/sequences/queue', w.other))).status).toBe(403);
  });

  it('completes call and task steps, records the touch, and lists them in history', async () => {
    const seq = await activeSequence(w, 'Calls', [
      { label: 'Ring', step_type: 'call', offset_time: '00:00' },
      { label: 'Review account', step_type: 'task', offset_time: '00:01' },
      { label: 'Later', step_type: 'call', offset_days: 5 },
    ]);
    const acme = await addCustomer(w.engine, w.company, { name: 'Acme Corp' });
    const invoice = await addInvoice(w.engine, w.company, acme, { number: 'INV-1', total: 5_000, dueDate: '2026-11-01' });
    const e = await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: acme });
    const ready = (await queue()).body.data as Row[];
    expect(ready.map((r) => r.step_label)).toEqual(['Ring', 'Review account']);

    w.engine.clock.set('2026-11-23T15:00:00.000Z');
    const call = await w.api('POST', w.path(`/sequences/queue/${ready[0].id}/complete`), { note: 'Promised to pay Friday' });
    expect(call.status).toBe(200);
    expect(call.body).toMatchObject({ status: 'completed', updated_at: '2026-11-23T15:00:00.000Z', sent_at: null });
    w.engine.clock.set('2026-11-23T16:00:00.000Z');
    const task = await w.api('POST', w.path(`/sequences/queue/${ready[1].id}/complete`));
    expect(task.body.status).toBe('completed');
    const repeat = await w.api('POST', w.path(`/sequences/queue/${ready[0].id}/complete`), { note: 'again' });
    expect(repeat.status).toBe(200);
    expect(repeat.body).toEqual(call.body);

    const comms = await w.engine.db.selectFrom('communications').select(['kind', 'direction', 'subject', 'body', 'author_name']).where('customer_id', '=', acme).orderBy('occurred_at').execute();
    expect(comms).toEqual([
      { kind: 'call', direction: 'outbound', subject: 'Ring', body: 'Promised to pay Friday', author_name: 'alice' },
      { kind: 'note', direction: 'internal', subject: 'Review account', body: null, author_name: 'alice' },
    ]);
    // The call touches the customer's oldest open invoice; the internal task does not.
    const touch = await w.engine.db.selectFrom('invoices').select(['last_touch_at', 'last_touched_by']).where('id', '=', invoice).executeTakeFirstOrThrow();
    expect(touch).toEqual({ last_touch_at: '2026-11-23T15:00:00.000Z', last_touched_by: 'alice' });

    const history = await queue('?category=history');
    expect(history.body.data.map((r: Row) => [r.step_label, r.status])).toEqual([
      ['Review account', 'completed'],
      ['Ring', 'completed'],
    ]);
    const later = (await queue('?category=upcoming')).body.data[0] as Row;
    const notReady = await w.api('POST', w.path(`/sequences/queue/${later.id}/complete`));
    expect(notReady.status).toBe(400);
    expect(notReady.body.code).toBe('not_ready');
    expect((await w.api('POST', w.path(`/sequences/queue/${MISSING}/complete`))).status).toBe(404);

    // The last step done completes the enrollment.
    w.engine.clock.set('2026-11-28T15:00:00.000Z');
    expect((await w.api('POST', w.path(`/sequences/queue/${later.id}/complete`))).body.status).toBe('completed');
    const enrollment = await w.api('GET', w.path(`/sequence-enrollments/${e.body.enrollment.id}`));
    expect(enrollment.body).toMatchObject({ status: 'completed', stop_reason: null, completed_at: '2026-11-28T15:00:00.000Z' });
  });

  it('refuses to send call and task steps (400 not_email_step) and steps not ready yet (400 not_ready)', async () => {
    const seq = await activeSequence(w, 'Mixed', [
      { label: 'Ring', step_type: 'call', offset_time: '00:00' },
      { label: 'Email later', offset_days: 3, subject_template: 'Hi', body_plain_template: 'Hello' },
    ]);
    await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: await addCustomer(w.engine, w.company, { name: 'Acme' }) });
    const ring = (await queue()).body.data[0] as Row;
    const res = await w.api('POST', w.path(`/sequences/queue/${ring.id}/send`), {});
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('not_email_step');
    const upcoming = (await queue('?category=upcoming')).body.data[0] as Row;
    const early = await w.api('POST', w.path(`/sequences/queue/${upcoming.id}/send`));
    expect(early.status).toBe(400);
    expect(early.body.code).toBe('not_ready');
    expect((await w.api('POST', w.path(`/sequences/queue/${upcoming.id}/send`), { sender_connection_id: 'nope' })).status).toBe(400);
    expect((await w.api('POST', w.path(`/sequences/queue/${MISSING}/send`))).status).toBe(404);
    expect((await w.api('POST', w.path(`/sequences/queue/${ring.id}/send`), undefined, w.tokens.vic)).status).toBe(403);
  });
});
