import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addConnection, addCustomer, addInvoice, activeSequence, type SequenceWorld, sequenceWorld } from '../support/sequence-fixtures';
import { type SmtpServer, startSmtp } from '../support/smtp';

type Row = { id: string; step_label: string; status: string; hold_reason: string | null; scheduled_date: string; error: string | null; email_subject: string | null };

const email = (label: string, offset_days: number) => ({
  label,
  offset_days,
  offset_time: '09:00',
  subject_template: `${label}: invoice {{invoice_number}}`,
  body_plain_template: `Hello {{contact_name}}, this is the ${label.toLowerCase()} about {{invoice_number}}.`,
});

describe("queue control: every upcoming step under the collector's hand", () => {
  let w: SequenceWorld;
  let smtp: SmtpServer;

  beforeAll(async () => {
    w = await sequenceWorld();
    smtp = await startSmtp();
  });
  beforeEach(async () => {
    await w.fresh();
    smtp.messages.length = 0;
  });
  afterAll(async () => {
    await smtp.close();
    await w.dispose();
  });

  async function world(steps: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}) {
    const sender = await addConnection(w.engine, w.company, { name: 'Acme AR', port: smtp.port, fromEmail: 'ar@acme.test', fromName: 'Acme Receivables' });
    const customer = await addCustomer(w.engine, w.company, { name: 'Globex', contactName: 'Hank Scorpio', email: 'ap@globex.test' });
    const invoice = await addInvoice(w.engine, w.company, customer, { number: 'INV-7', total: 70_000, dueDate: '2026-11-01' });
    const seq = await activeSequence(w, 'Dunning', steps, { sender_connection_id: sender, ...extra });
    return { sender, customer, invoice, seq };
  }
  const queue = async (category: string) => (await w.api('GET', w.path(`/sequences/queue?category=${category}`))).body.data as Row[];
  const enroll = (body: Record<string, unknown>) => w.api('POST', w.path('/sequence-enrollments'), body);
  const stepsOf = async (enrollment: string) => (await w.api('GET', w.path(`/sequence-enrollments/${enrollment}`))).body.scheduled_steps as Row[];

  it('asks before enrolling an enrolled customer when told to ask: 409 changes nothing, keep leaves it, restart starts again from today', async () => {
    const g = await world([email('Heads-up', 2), email('Reminder', 9)]);
    const first = await enroll({ sequence_id: g.seq.id, customer_id: g.customer, start_date: '2026-11-20' });
    expect(first.status).toBe(201);
    const changes = async () => Number((await w.engine.db.selectFrom('changes').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const before = await changes();

    const asked = await enroll({ sequence_id: g.seq.id, customer_id: g.customer, on_enrolled: 'ask' });
    expect(asked.status).toBe(409);
    expect(asked.headers.get('content-type')).toContain('application/problem+json');
    expect(asked.body).toMatchObject({ code: 'already_enrolled', detail: 'Globex is already in "Dunning" (started Nov 20). Keep that enrollment, or restart it from Nov 23.' });
    expect(asked.body.errors.on_enrolled).toHaveLength(1);
    const bulkAsked = await w.api('POST', w.path(`/sequences/${g.seq.id}/enrollments/bulk`), { customer_ids: [g.customer], on_enrolled: 'ask' });
    expect([bulkAsked.status, bulkAsked.body.code]).toEqual([409, 'already_enrolled']);
    expect(await changes()).toBe(before);

    const kept = await enroll({ sequence_id: g.seq.id, customer_id: g.customer, on_enrolled: 'keep' });
    expect([kept.status, kept.body.created, kept.body.enrollment.id, kept.body.enrollment.start_date]).toEqual([200, false, first.body.enrollment.id, '2026-11-20']);

    const restarted = await enroll({ sequence_id: g.seq.id, customer_id: g.customer, on_enrolled: 'restart' });
    expect([restarted.status, restarted.body.created, restarted.body.enrollment.start_date]).toEqual([201, true, '2026-11-23']);
    expect((await w.api('GET', w.path(`/sequence-enrollments/${first.body.enrollment.id}`))).body).toMatchObject({ status: 'completed', stop_reason: 're-enrolled' });
    expect((await stepsOf(restarted.body.enrollment.id)).map((r) => r.scheduled_date)).toEqual(['2026-11-25', '2026-12-02']);

    const other = await addCustomer(w.engine, w.company, { name: 'Initech' });
    const bulkKept = await w.api('POST', w.path(`/sequences/${g.seq.id}/enrollments/bulk`), { customer_ids: [g.customer, other], on_enrolled: 'keep' });
    expect(bulkKept.body).toEqual({ enrolled_count: 1, updated_count: 0, kept_count: 1, skipped_count: 0, skipped_customer_ids: [] });
    expect((await w.api('GET', w.path(`/sequence-enrollments?customer_id=${g.customer}&status=active`))).body.data.map((e: { id: string }) => e.id)).toEqual([restarted.body.enrollment.id]);
    expect((await enroll({ sequence_id: g.seq.id, customer_id: g.customer, on_enrolled: 'always' })).status).toBe(400);
  });

  it('sends one catch-up email for a back-dated enrollment: the missed earlier ones are skipped as caught up', async () => {
    const g = await world([email('Heads-up', 0), email('Reminder', 3), email('Final notice', 7), email('Later', 20), { step_type: 'call', label: 'Call them', offset_days: 1 }]);
    const res = await enroll({ sequence_id: g.seq.id, customer_id: g.customer, start_date: '2026-11-13' });
    expect(res.status).toBe(201);
    const ready = await queue('ready');
    expect(ready.map((r) => [r.step_label, r.scheduled_date])).toEqual([
      ['Call them', '2026-11-14'],
      ['Final notice', '2026-11-20'],
    ]);
    const history = await queue('history');
    expect(history.map((r) => [r.step_label, r.status, r.hold_reason]).sort()).toEqual([
      ['Heads-up', 'cancelled', 'caught_up'],
      ['Reminder', 'cancelled', 'caught_up'],
    ]);
    const sent = await w.api('POST', w.path(`/sequences/queue/${ready[1].id}/send`), {});
    expect(sent.body.status).toBe('sent');
    expect(smtp.messages.map((m) => m.subject)).toEqual(['Final notice: invoice INV-7']);
    expect((await queue('upcoming')).map((r) => r.step_label)).toEqual(['Later']);
  });

  it('skips, snoozes, edits and sends now an upcoming step; a step that ran shows the message as sent', async () => {
    const g = await world([email('Heads-up', 2), email('Reminder', 5), email('Final notice', 9), { step_type: 'task', label: 'Check the account', offset_days: 12 }]);
    await enroll({ sequence_id: g.seq.id, customer_id: g.customer, start_date: '2026-11-23' });
    const [headsUp, reminder, final, task] = await queue('upcoming');
    expect([headsUp.step_label, reminder.step_label, final.step_label, task.step_label]).toEqual(['Heads-up', 'Reminder', 'Final notice', 'Check the account']);

    const edited = await w.api('POST', w.path(`/sequences/queue/${headsUp.id}/edit`), { subject: 'About INV-7, from Dana', body: 'Hank, could you confirm when INV-7 is paid?' });
    expect(edited.body).toMatchObject({ status: 'scheduled', edited_subject: 'About INV-7, from Dana' });
    const now = await w.api('POST', w.path(`/sequences/queue/${headsUp.id}/send-now`), {});
    expect(now.status).toBe(200);
    expect(now.body).toMatchObject({ status: 'sent', email_subject: 'About INV-7, from Dana' });
    const [mail] = await smtp.waitFor(1);
    expect([mail.subject, mail.to, mail.text.trim()]).toEqual(['About INV-7, from Dana', ['ap@globex.test'], 'Hank, could you confirm when INV-7 is paid?']);
    const shown = await w.api('GET', w.path(`/sequences/queue/${headsUp.id}/sent`));
    expect(shown.body).toMatchObject({ kind: 'email', to: 'ap@globex.test', from: 'Acme Receivables <ar@acme.test>', subject: 'About INV-7, from Dana', body: 'Hank, could you confirm when INV-7 is paid?', message_id: mail.messageId });

    // The second email the same day: the one-a-day limit holds it, says why, and the step stays as it was.
    const second = await w.api('POST', w.path(`/sequences/queue/${reminder.id}/send-now`), {});
    expect([second.status, second.body.code]).toEqual([409, 'emailed_today']);
    expect(second.body.detail).toContain('Globex');
    expect((await w.api('GET', w.path(`/sequences/queue/${reminder.id}`))).body).toMatchObject({ status: 'scheduled', scheduled_date: '2026-11-28' });
    expect(smtp.messages).toHaveLength(1);

    const snoozed = await w.api('POST', w.path(`/sequences/queue/${reminder.id}/snooze`), { date: '2026-12-05' });
    expect(snoozed.body).toMatchObject({ status: 'scheduled', scheduled_date: '2026-12-05' });
    const skipped = await w.api('POST', w.path(`/sequences/queue/${final.id}/skip`));
    expect(skipped.body).toMatchObject({ status: 'cancelled', hold_reason: 'skipped' });
    expect((await w.api('GET', w.path(`/sequences/queue/${final.id}/sent`))).status).toBe(409);

    // A task sent now is today's work: ready, then done, and what it recorded shows.
    const taskNow = await w.api('POST', w.path(`/sequences/queue/${task.id}/send-now`), {});
    expect(taskNow.body.status).toBe('ready');
    expect((await queue('ready')).map((r) => r.step_label)).toEqual(['Check the account']);
    await w.api('POST', w.path(`/sequences/queue/${task.id}/complete`), { note: 'Checked: cheque in the mail' });
    expect((await w.api('GET', w.path(`/sequences/queue/${task.id}/sent`))).body).toMatchObject({ kind: 'note', body: 'Checked: cheque in the mail', to: null });
    expect((await queue('upcoming')).map((r) => [r.step_label, r.scheduled_date])).toEqual([['Reminder', '2026-12-05']]);
  });

  it('sends now through the contact rule: a held step says why and nothing goes', async () => {
    const g = await world([email('Heads-up', 4)]);
    // The sequence goes on through disputes: the contact rule still leaves a disputed invoice out.
    await w.api('PATCH', w.path(`/sequences/${g.seq.id}`), { pause_on_dispute: false });
    await enroll({ sequence_id: g.seq.id, customer_id: g.customer, start_date: '2026-11-23' });
    const [step] = await queue('upcoming');
    expect((await w.api('POST', w.path('/disputes'), { invoice_id: g.invoice, reason: 'Wrong quantity' })).status).toBe(201);
    const held = await w.api('POST', w.path(`/sequences/queue/${step.id}/send-now`), {});
    expect([held.status, held.body.code, held.body.detail]).toEqual([409, 'contact_held', 'Held: INV-7 is disputed (Wrong quantity).']);
    expect((await w.api('GET', w.path(`/sequences/queue/${step.id}`))).body).toMatchObject({ status: 'scheduled', error: 'Held: INV-7 is disputed (Wrong quantity).' });
    expect(smtp.messages).toHaveLength(0);
    expect((await w.api('POST', w.path(`/sequences/queue/${step.id}/send-now`), {}, w.tokens.vic)).status).toBe(403);
    expect((await w.api('POST', w.path('/sequences/queue/00000000-0000-7000-8000-000000000000/send-now'), {})).status).toBe(404);
  });
});
