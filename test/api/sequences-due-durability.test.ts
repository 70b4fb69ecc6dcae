import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawnQueueSend } from '../support/sequence-crash';
import { activeSequence, addConnection, addCustomer, addInvoice, type SequenceWorld, sequenceWorld } from '../support/sequence-fixtures';
import { type ReceivedMail, type SmtpServer, startSmtp } from '../support/smtp';

const STEPS = [{ label: 'Heads up', due_offset_days: -3, offset_time: '09:00', subject_template: 'Coming due for {{customer_name}}', body_plain_template: 'Coming due:\n{{invoice_list}}' }];

describe('due-date schedules and pauses across kill -9', () => {
  let w: SequenceWorld;
  let smtp: SmtpServer;
  let beforeReply: ((mail: ReceivedMail) => Promise<void> | void) | null = null;

  beforeAll(async () => {
    w = await sequenceWorld();
    smtp = await startSmtp({ beforeReply: (mail) => beforeReply?.(mail) });
  });
  beforeEach(async () => {
    await w.fresh();
    smtp.messages.length = 0;
    beforeReply = null;
  });
  afterAll(async () => {
    await smtp.close();
    await w.dispose();
  });

  it('sends each invoice step once: a sender killed mid-send, a pause, an invoice joining meanwhile, then the retry', async () => {
    const sender = await addConnection(w.engine, w.company, { name: 'AR', port: smtp.port, fromEmail: 'ar@acme.test', allowShared: true });
    const customer = await addCustomer(w.engine, w.company, { name: 'Tri-County', email: 'ap@tricounty.test' });
    const a = await addInvoice(w.engine, w.company, customer, { number: 'INV-A', total: 100_000, dueDate: '2026-11-26' });
    const b = await addInvoice(w.engine, w.company, customer, { number: 'INV-B', total: 25_000, dueDate: '2026-11-26' });
    const seq = await activeSequence(w, 'From due dates', STEPS, { timing: 'due_date', sender_connection_id: sender });
    const enrollment = (await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: customer })).body.enrollment.id as string;
    const now = '2026-11-23T14:05:00.000Z';
    w.engine.clock.set(now);
    const queue = async (category = 'ready') => (await w.api('GET', w.path(`/sequences/queue?category=${category}`))).body;
    const leader = (await queue()).data[0];
    expect(leader.covered_invoices.map((i: { id: string }) => i.id)).toEqual([a, b]);
    const rows = () => w.engine.db.selectFrom('scheduled_steps').select(['id', 'invoice_id', 'status', 'merged_into', 'message_id']).where('enrollment_id', '=', enrollment).orderBy('id').execute();

    // The SMTP server has the whole message; the sender dies before it hears "250 OK".
    let child!: ReturnType<typeof spawnQueueSend>;
    let exited!: Promise<NodeJS.Signals | null>;
    beforeReply = async () => {
      child.kill('SIGKILL');
      await exited;
    };
    child = spawnQueueSend(join(w.engine.dir, 'ardesk.sqlite'), now, w.company, leader.id);
    let childOutput = '';
    child.stderr?.on('data', (chunk: Buffer) => (childOutput += chunk.toString()));
    exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    expect(await exited).toBe('SIGKILL');
    expect(childOutput).toBe('');
    beforeReply = null;
    expect(smtp.messages).toHaveLength(1);
    const firstId = smtp.messages[0].messageId;
    // Claimed, not sent: the merged row still belongs to the claimed one.
    expect((await rows()).map((r) => [r.invoice_id, r.status, r.merged_into])).toEqual(
      expect.arrayContaining([
        [leader.invoice, 'ready', null],
        [leader.invoice === a ? b : a, 'ready', leader.id],
      ]),
    );
    expect(await w.engine.db.selectFrom('communications').select('id').where('customer_id', '=', customer).execute()).toEqual([]);

    // Paused by the collector while an invoice due the same day joins: nothing becomes ready, nothing is sent.
    expect((await w.api('POST', w.path(`/sequence-enrollments/${enrollment}/pause`))).status).toBe(200);
    const f = await addInvoice(w.engine, w.company, customer, { number: 'INV-F', total: 3_000, dueDate: '2026-11-26' });
    w.engine.clock.set('2026-11-23T14:20:00.000Z');
    expect((await queue()).count).toBe(0);
    expect((await rows()).find((r) => r.invoice_id === f)?.status).toBe('scheduled');
    const paused = await w.api('POST', w.path(`/sequences/queue/${leader.id}/send`), {});
    expect([paused.status, paused.body.code]).toEqual([409, 'enrollment_paused']);
    expect(smtp.messages).toHaveLength(1);

    // Resumed: the claimed email keeps its invoices; the one that joined goes in an email of its own,
    // the next day (one chase email per customer per day, and the claimed one is on the wire).
    expect((await w.api('POST', w.path(`/sequence-enrollments/${enrollment}/resume`))).status).toBe(200);
    const ready = (await queue()).data as Array<{ id: string; covered_invoices: Array<{ invoice_number: string }> }>;
    expect(ready.map((r) => r.covered_invoices.map((i) => i.invoice_number))).toEqual([['INV-A', 'INV-B']]);
    expect((await queue('upcoming')).data.find((r: { invoice: string }) => r.invoice === f)).toMatchObject({ hold_reason: 'emailed_today' });
    expect((await w.api('POST', w.path(`/sequences/queue/${leader.id}/send`), {})).body.status).toBe('sent');
    expect(smtp.messages.map((m) => m.messageId)).toEqual([firstId, firstId]);
    w.engine.clock.set('2026-11-24T14:05:00.000Z');
    const next = (await queue()).data as Array<{ id: string; covered_invoices: Array<{ invoice_number: string }> }>;
    expect(next.map((r) => r.covered_invoices.map((i) => i.invoice_number))).toEqual([['INV-F']]);
    const other = next[0];
    expect((await w.api('POST', w.path(`/sequences/queue/${other.id}/send`), {})).body.status).toBe('sent');
    expect(smtp.messages).toHaveLength(3);
    expect(smtp.messages[2].text).toContain('INV-F');
    expect(smtp.messages[2].text).not.toContain('INV-A');

    // Each invoice's step ran once; ardesk recorded one email per Message-ID.
    const final = await rows();
    expect(final.map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
    expect(new Set(final.map((r) => r.invoice_id))).toEqual(new Set([a, b, f]));
    const comms = await w.engine.db.selectFrom('communications').select('message_id').where('customer_id', '=', customer).execute();
    expect(comms.map((c) => c.message_id).sort()).toEqual([firstId, smtp.messages[2].messageId].sort());
    expect((await queue()).count).toBe(0);
  });
});
