import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { activeSequence, addConnection, addCustomer, addInvoice, type SequenceWorld, sequenceWorld } from '../support/sequence-fixtures';
import { type SmtpServer, startSmtp } from '../support/smtp';

/** Two steps timed from each invoice's due date, at 09:00 New York (14:00 UTC in November). */
const STEPS = [
  { label: 'Heads up', due_offset_days: -3, offset_time: '09:00', subject_template: 'Coming due for {{customer_name}}', body_plain_template: 'These invoices come due soon:\n{{invoice_list}}\n{{sender_name}}' },
  { label: 'Overdue', due_offset_days: 7, offset_time: '09:00', subject_template: 'Past due for {{customer_name}}', body_plain_template: 'Still open:\n{{invoice_list}}' },
];

describe('sequences timed from each invoice due date', () => {
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

  /** A customer with INV-A and INV-B due Nov 26, INV-C due Dec 20 and INV-D already paid, enrolled on Nov 23 (today). */
  async function enrolled() {
    const sender = await addConnection(w.engine, w.company, { name: 'AR', port: smtp.port, fromEmail: 'ar@acme.test', fromName: 'Acme AR', allowShared: true });
    const customer = await addCustomer(w.engine, w.company, { name: 'Tri-County', email: 'ap@tricounty.test' });
    const inv = {
      a: await addInvoice(w.engine, w.company, customer, { number: 'INV-A', total: 100_000, dueDate: '2026-11-26' }),
      b: await addInvoice(w.engine, w.company, customer, { number: 'INV-B', total: 25_000, dueDate: '2026-11-26' }),
      c: await addInvoice(w.engine, w.company, customer, { number: 'INV-C', total: 5_000, dueDate: '2026-12-20' }),
      d: await addInvoice(w.engine, w.company, customer, { number: 'INV-D', total: 7_000, dueDate: '2026-11-01', closed: true }),
    };
    const seq = await activeSequence(w, 'From due dates', STEPS, { timing: 'due_date', sender_connection_id: sender });
    const res = await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: customer });
    expect(res.status).toBe(201);
    return { customer, inv, seq, enrollment: res.body.enrollment.id as string };
  }

  const detail = async (id: string) => (await w.api('GET', w.path(`/sequence-enrollments/${id}`))).body;
  const queue = async (category = 'ready') => (await w.api('GET', w.path(`/sequences/queue?category=${category}`))).body;

  it('gives each open invoice its own schedule from its due date, and says so in the enrollment', async () => {
    const { enrollment } = await enrolled();
    const e = await detail(enrollment);
    expect(e.timing).toBe('due_date');
    const schedule = e.scheduled_steps.map((s: Record<string, unknown>) => [s.invoice_number, s.step_label, s.due_date, s.due_offset_days, s.scheduled_date, s.scheduled_at]);
    expect(schedule).toEqual([
      ['INV-A', 'Heads up', '2026-11-26', -3, '2026-11-23', '2026-11-23T14:00:00.000Z'],
      ['INV-B', 'Heads up', '2026-11-26', -3, '2026-11-23', '2026-11-23T14:00:00.000Z'],
      ['INV-A', 'Overdue', '2026-11-26', 7, '2026-12-03', '2026-12-03T14:00:00.000Z'],
      ['INV-B', 'Overdue', '2026-11-26', 7, '2026-12-03', '2026-12-03T14:00:00.000Z'],
      ['INV-C', 'Heads up', '2026-12-20', -3, '2026-12-17', '2026-12-17T14:00:00.000Z'],
      ['INV-C', 'Overdue', '2026-12-20', 7, '2026-12-27', '2026-12-27T14:00:00.000Z'],
    ]);
    // 07:00 in New York: nothing is due yet.
    expect((await queue()).count).toBe(0);
  });

  it('sends "3 days before due" for two invoices due the same day as one email listing both', async () => {
    const { enrollment } = await enrolled();
    w.engine.clock.set('2026-11-23T14:05:00.000Z');
    const ready = await queue();
    expect(ready.count).toBe(1);
    const row = ready.data[0];
    expect(row.covered_invoices.map((i: { invoice_number: string }) => i.invoice_number)).toEqual(['INV-A', 'INV-B']);
    expect(row.step_label).toBe('Heads up');
    // The preview lists what the email will: the day's invoices, not every open one.
    const preview = (await w.api('GET', w.path(`/sequences/queue/${row.id}/preview`))).body;
    expect(preview.body).toContain('INV-A, due November 26, 2026');
    expect(preview.body).toContain('INV-B, due November 26, 2026');
    expect(preview.body).not.toContain('INV-C');

    const sent = await w.api('POST', w.path(`/sequences/queue/${row.id}/send`), {});
    expect(sent.body.status).toBe('sent');
    expect(smtp.messages).toHaveLength(1);
    const mail = smtp.messages[0];
    expect(mail.subject).toBe('Coming due for Tri-County');
    expect(mail.text).toContain('INV-A, due November 26, 2026: $1,000.00');
    expect(mail.text).toContain('INV-B, due November 26, 2026: $250.00');
    expect(mail.text).not.toContain('INV-C');
    // Both invoices' rows are sent, by that one email.
    const rows = (await detail(enrollment)).scheduled_steps.filter((s: { scheduled_date: string }) => s.scheduled_date === '2026-11-23');
    expect(rows.map((s: Record<string, unknown>) => [s.invoice_number, s.status, s.message_id])).toEqual([
      ['INV-A', 'sent', mail.messageId],
      ['INV-B', 'sent', mail.messageId],
    ]);
    expect((await queue()).count).toBe(0);
    expect((await queue('history')).count).toBe(1);
    // A retried send answers with the sent row and sends nothing.
    expect((await w.api('POST', w.path(`/sequences/queue/${row.id}/send`), {})).body.status).toBe('sent');
    expect(smtp.messages).toHaveLength(1);
  });

  it('lets a paid invoice leave its schedule and a new invoice join, and keeps the enrollment open for later invoices', async () => {
    const { customer, inv, enrollment } = await enrolled();
    await w.engine.db.updateTable('invoices').set({ closing_reason: 'paid', closed_date: '2026-11-23', paid_amount: 5_000, balance: 0 }).where('id', '=', inv.c).execute();
    const added = await addInvoice(w.engine, w.company, customer, { number: 'INV-E', total: 9_900, dueDate: '2026-12-01' });
    await queue();
    const steps = (await detail(enrollment)).scheduled_steps as Array<Record<string, unknown>>;
    expect(steps.filter((s) => s.invoice === inv.c).map((s) => s.status)).toEqual(['cancelled', 'cancelled']);
    expect(steps.filter((s) => s.invoice === added).map((s) => [s.step_label, s.scheduled_date, s.status])).toEqual([
      ['Heads up', '2026-11-28', 'scheduled'],
      ['Overdue', '2026-12-08', 'scheduled'],
    ]);
    const cancelled = await w.engine.db.selectFrom('scheduled_steps').select('cancel_reason').where('invoice_id', '=', inv.c).execute();
    expect(cancelled).toEqual([{ cancel_reason: 'invoice_closed' }, { cancel_reason: 'invoice_closed' }]);
    // A second read changes nothing: each invoice joins once.
    await queue();
    expect((await detail(enrollment)).scheduled_steps).toHaveLength(steps.length);
  });

  it('leaves an invoice closed after its step became ready out of the email, and sends nothing for a day whose invoices all closed', async () => {
    const { inv } = await enrolled();
    w.engine.clock.set('2026-11-23T14:05:00.000Z');
    const row = (await queue()).data[0];
    expect(row.covered_invoices).toHaveLength(2);
    await w.engine.db.updateTable('invoices').set({ closing_reason: 'credit_memo', closed_date: '2026-11-23', balance: 0 }).where('id', '=', inv.a).execute();
    const now = (await queue()).data;
    expect(now.map((r: { covered_invoices: Array<{ invoice_number: string }> }) => r.covered_invoices.map((i) => i.invoice_number))).toEqual([['INV-B']]);
    expect((await w.api('POST', w.path(`/sequences/queue/${now[0].id}/send`), {})).body.status).toBe('sent');
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0].text).toContain('INV-B');
    expect(smtp.messages[0].text).not.toContain('INV-A');

    await w.engine.db.updateTable('invoices').set({ closing_reason: 'written_off', closed_date: '2026-11-24', balance: 0 }).where('id', 'in', [inv.b, inv.c]).execute();
    w.engine.clock.set('2026-12-17T14:05:00.000Z');
    expect((await queue()).count).toBe(0);
    expect(smtp.messages).toHaveLength(1);
  });

  it('takes the timing on create and update, refuses a change while customers are enrolled, and refuses bad offsets with 400', async () => {
    const created = await w.api('POST', w.path('/sequences'), { name: 'Plain' });
    expect(created.body.timing).toBe('enrollment_start');
    const patched = await w.api('PATCH', w.path(`/sequences/${created.body.id}`), { timing: 'due_date' });
    expect(patched.body.timing).toBe('due_date');
    const bad = await w.api('PATCH', w.path(`/sequences/${created.body.id}`), { timing: 'weekly' });
    expect(bad.status).toBe(400);
    const step = await w.api('POST', w.path(`/sequences/${created.body.id}/steps`), { due_offset_days: -5 });
    expect(step.body.due_offset_days).toBe(-5);
    for (const value of [1.5, 4000, -4000, '3']) {
      const res = await w.api('POST', w.path(`/sequences/${created.body.id}/steps`), { due_offset_days: value });
      expect(res.status, String(value)).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
    expect(await w.engine.db.selectFrom('sequence_steps').select('due_offset_days').where('sequence_id', '=', created.body.id).execute()).toEqual([{ due_offset_days: -5 }]);

    const { seq } = await enrolled();
    const refused = await w.api('PATCH', w.path(`/sequences/${seq.id}`), { timing: 'enrollment_start' });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('has_active_enrollments');
    expect((await w.api('GET', w.path(`/sequences/${seq.id}`))).body.timing).toBe('due_date');
  });
});
