/**
 * Words that match the facts: a held customer's step never reads "ready" (the invoice panel's plan
 * says why it waits, My work lists no "Dunning step ready"), and "Last touch" counts every email
 * that went out, whatever invoices it spoke of (a statement, an email listing several invoices).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWorker } from '../../core/jobs/worker';
import { coreJobHandlers } from '../../core/runtime/job-handlers';
import { nextStepWords } from '../../renderer/src/desk/glance-words';
import { addSmtpConnection } from '../support/reminders-fixtures';
import { activeSequence, addCustomer, addInvoice, type SequenceWorld, sequenceWorld } from '../support/sequence-fixtures';
import { type SmtpServer, startSmtp } from '../support/smtp';

const NOW = '2026-11-23T12:00:00.000Z';
const STEP = { label: 'Friendly reminder', offset_time: '00:00', subject_template: 'Your open invoices', body_plain_template: 'Hello {{contact_name}},\n\n{{invoice_list}}' };

describe('words that match the facts', () => {
  let w: SequenceWorld;
  let smtp: SmtpServer;
  beforeAll(async () => {
    w = await sequenceWorld();
    smtp = await startSmtp();
  });
  afterAll(async () => {
    await smtp?.close();
    await w?.dispose();
  });
  beforeEach(() => w.fresh(NOW));

  async function enrolled() {
    const sender = await addSmtpConnection(w.engine, w.company, smtp);
    const customer = await addCustomer(w.engine, w.company, { name: 'Granite State Roofing', email: 'ap@granite.test' });
    const first = await addInvoice(w.engine, w.company, customer, { number: 'INV-10333', total: 360_000, dueDate: '2026-10-01' });
    const second = await addInvoice(w.engine, w.company, customer, { number: 'INV-10334', total: 4_100_000, dueDate: '2026-10-10' });
    const seq = await activeSequence(w, 'Standard follow-up', [STEP], { sender_connection_id: sender });
    expect((await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: customer, start_date: '2026-11-23' })).status).toBe(201);
    const step = (await w.api('GET', w.path(`/sequences/queue?customer_id=${customer}`))).body.data[0].id as string;
    return { customer, first, second, step };
  }

  const attention = async (invoice: string) => {
    const items = (await w.api('GET', w.path('/invoices?attention=true'))).body.items as Array<{ id: string; attention: Array<{ reason: string; label: string }> }>;
    return items.find((i) => i.id === invoice)?.attention.map((a) => a.label) ?? [];
  };

  it('a disputed customer’s step reads on hold with the reason in the panel, and My work has no "Dunning step ready" for it', async () => {
    const g = await enrolled();
    const plan = async (invoice: string) => (await w.api('GET', w.path(`/invoices/${invoice}`))).body.dunning_plan;
    expect(nextStepWords(await plan(g.first))).toBe('Friendly reminder, ready to go');
    expect(await attention(g.first)).toContain('Dunning step ready: Friendly reminder');

    expect((await w.api('POST', w.path('/disputes'), { invoice_id: g.first, reason: 'Charged twice' })).status).toBe(201);
    const [held] = await plan(g.first);
    expect(held).toMatchObject({ status: 'ready', held_reason: expect.stringMatching(/INV-10333 is disputed/) });
    expect(nextStepWords([held])).toMatch(/^Friendly reminder, on hold \(INV-10333 is disputed/);
    expect(await attention(g.first)).not.toContain('Dunning step ready: Friendly reminder');
  });

  it('a statement and an email listing two invoices are the last touch of every invoice they spoke of', async () => {
    const g = await enrolled();
    const sent = await w.api('POST', w.path(`/sequences/queue/${g.step}/send`));
    expect(sent.body.status).toBe('sent');
    for (const invoice of [g.first, g.second]) expect((await w.api('GET', w.path(`/invoices/${invoice}`))).body.last_touch_date).toBe(NOW);

    w.engine.clock.set('2026-11-24T12:00:00.000Z');
    const run = await w.api('POST', w.path('/statement-runs'), { customer_ids: [g.customer] });
    await createWorker(w.engine, { handlers: coreJobHandlers() }).runDueJobs();
    expect((await w.api('GET', w.path(`/statement-runs/${run.body.id}`))).body.items[0].status).toBe('sent');
    for (const invoice of [g.first, g.second]) expect((await w.api('GET', w.path(`/invoices/${invoice}`))).body.last_touch_date).toBe('2026-11-24T12:00:00.000Z');
  });
});
