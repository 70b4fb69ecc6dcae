/**
 * At most one chase email per customer per day, over the real server on a loopback port and the
 * real SMTP server: an invoice that opens after the customer's email of the day went out, or a
 * second sequence's step ready beside the first, waits for the next day, and the queue says why.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../core/runtime/server';
import { listen } from '../support/http';
import { activeSequence, addConnection, addCustomer, addInvoice, type SequenceWorld, sequenceWorld } from '../support/sequence-fixtures';
import { type SmtpServer, startSmtp } from '../support/smtp';

const HEADS_UP = [{ label: 'Heads up', due_offset_days: -3, offset_time: '09:00', subject_template: 'Coming due for {{customer_name}}', body_plain_template: 'These invoices come due soon:\n{{invoice_list}}' }];

describe('one chase email per customer per day', () => {
  let w: SequenceWorld;
  let smtp: SmtpServer;
  let server: Runtime;

  beforeAll(async () => {
    w = await sequenceWorld();
    smtp = await startSmtp();
    server = await listen(w.engine, { replyReadIntervalMs: 0 });
  });
  beforeEach(async () => {
    await w.fresh();
    smtp.messages.length = 0;
  });
  afterAll(async () => {
    await server.stop();
    await smtp.close();
    await w.dispose();
  });

  async function http(method: string, rest: string, body?: unknown) {
    const res = await fetch(`${server.url}/api/companies/${w.company}${rest}`, {
      method,
      headers: { authorization: `Token ${w.tokens.alice}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.json() };
  }
  const queue = async (category: string) => (await http('GET', `/sequences/queue?category=${category}`)).body;

  it('an invoice that opens after the day’s email went out waits for tomorrow, says why, and is refused a send today', async () => {
    const sender = await addConnection(w.engine, w.company, { name: 'AR', port: smtp.port, fromEmail: 'ar@acme.test', fromName: 'Acme AR', allowShared: true });
    const customer = await addCustomer(w.engine, w.company, { name: 'Tri-County', email: 'ap@tricounty.test' });
    await addInvoice(w.engine, w.company, customer, { number: 'INV-A', total: 100_000, dueDate: '2026-11-26' });
    const seq = await activeSequence(w, 'From due dates', HEADS_UP, { timing: 'due_date', sender_connection_id: sender });
    expect((await http('POST', '/sequence-enrollments', { sequence_id: seq.id, customer_id: customer })).status).toBe(201);

    // 09:05 in New York: INV-A's "3 days before due" is ready and goes out.
    w.engine.clock.set('2026-11-23T14:05:00.000Z');
    const first = (await queue('ready')).data;
    expect(first.map((r: { invoice_number: string }) => r.invoice_number)).toEqual(['INV-A']);
    expect((await http('POST', `/sequences/queue/${first[0].id}/send`, {})).body.status).toBe('sent');
    expect(smtp.messages).toHaveLength(1);

    // At 10:00 INV-E opens, due in two days: its "3 days before due" is already past, so it runs today.
    await addInvoice(w.engine, w.company, customer, { number: 'INV-E', total: 9_900, dueDate: '2026-11-25' });
    w.engine.clock.set('2026-11-23T15:00:00.000Z');
    expect((await queue('ready')).count).toBe(0);
    const upcoming = (await queue('upcoming')).data as Array<{ id: string; invoice_number: string; hold_reason: string | null }>;
    const waiting = upcoming.find((r) => r.invoice_number === 'INV-E');
    expect(waiting).toMatchObject({ hold_reason: 'emailed_today' });
    const refused = await http('POST', `/sequences/queue/${waiting?.id}/send`, {});
    expect(refused.status).toBe(409);
    expect(refused.type).toContain('application/problem+json');
    expect(refused.body).toMatchObject({ code: 'emailed_today', detail: 'Tri-County already got an email from us today. One email a day: this step waits for tomorrow' });
    expect(smtp.messages).toHaveLength(1);

    // The next day it goes out, once.
    w.engine.clock.set('2026-11-24T14:05:00.000Z');
    const next = (await queue('ready')).data;
    expect(next.map((r: { invoice_number: string }) => r.invoice_number)).toEqual(['INV-E']);
    expect((await http('POST', `/sequences/queue/${next[0].id}/send`, {})).body.status).toBe('sent');
    expect(smtp.messages).toHaveLength(2);
    expect(smtp.messages[1].text).toContain('INV-E');
    expect(smtp.messages[1].text).not.toContain('INV-A');
    expect((await queue('ready')).count).toBe(0);
  });

  it('a second sequence’s step ready beside the first leaves Today once the first email is sent, and goes out the next day', async () => {
    const sender = await addConnection(w.engine, w.company, { name: 'AR', port: smtp.port, fromEmail: 'ar@acme.test', allowShared: true });
    const customer = await addCustomer(w.engine, w.company, { name: 'Greenfield', email: 'ap@greenfield.test' });
    await addInvoice(w.engine, w.company, customer, { number: 'INV-G', total: 50_000, dueDate: '2026-10-15' });
    for (const name of ['Dunning', 'Statements']) {
      const seq = await activeSequence(w, name, [{ label: `${name} first`, subject_template: `${name}: {{invoice_number}}`, body_plain_template: 'Please pay.', offset_days: 0, offset_time: '06:00' }], { sender_connection_id: sender });
      expect((await http('POST', '/sequence-enrollments', { sequence_id: seq.id, customer_id: customer, start_date: '2026-11-23' })).status).toBe(201);
    }
    const ready = (await queue('ready')).data as Array<{ id: string; sequence_name: string }>;
    expect(ready.map((r) => r.sequence_name).sort()).toEqual(['Dunning', 'Statements']);
    expect((await http('POST', `/sequences/queue/${ready[0].id}/send`, {})).body.status).toBe('sent');

    const second = ready[1];
    expect((await queue('ready')).count).toBe(0);
    expect((await http('GET', `/sequences/queue/${second.id}`)).body).toMatchObject({ status: 'scheduled', hold_reason: 'emailed_today' });
    expect((await http('POST', `/sequences/queue/${second.id}/send`, {})).body).toMatchObject({ code: 'emailed_today' });
    expect(smtp.messages).toHaveLength(1);

    w.engine.clock.set('2026-11-24T11:00:00.000Z');
    expect((await queue('ready')).data.map((r: { id: string }) => r.id)).toEqual([second.id]);
    expect((await http('POST', `/sequences/queue/${second.id}/send`, {})).body.status).toBe('sent');
    expect(smtp.messages.map((m) => m.subject)).toEqual([`${ready[0].sequence_name}: INV-G`, `${second.sequence_name}: INV-G`]);
  });
});
