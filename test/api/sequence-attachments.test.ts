/**
 * Sequence email steps with documents attached (issue 26): a step's `attach` choice is kept, shown
 * in the queue's preview with file names and sizes, and the email that reaches the real SMTP server
 * on loopback carries the PDFs made when it was sent (the figures of that moment); the customer's
 * timeline keeps their names. A bad kind is a 400 problem+json that changes nothing.
 */
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pdfText } from '../support/pdf';
import { activeSequence, addConnection, addCustomer, addInvoice, type SequenceWorld, sequenceWorld } from '../support/sequence-fixtures';
import { type SmtpServer, startSmtp } from '../support/smtp';

const EMAIL_STEP = {
  label: 'Firm reminder',
  offset_time: '00:00',
  subject_template: 'Invoice {{invoice_number}} is {{days_past_due}} days past due',
  body_plain_template: 'Hello {{contact_name}},\nPlease find invoice {{invoice_number}} attached.\n{{sender_name}}',
};

describe('sequence email steps with documents attached (extension)', () => {
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

  const queue = async () => (await w.api('GET', w.path('/sequences/queue'))).body;

  it('sends the invoice copy made at send time with the step, shows it in the preview and keeps it on the timeline', async () => {
    const sender = await addConnection(w.engine, w.company, { name: 'Acme AR', port: smtp.port, fromEmail: 'ar@acme.test' });
    const customer = await addCustomer(w.engine, w.company, { name: 'Globex & Sons', contactName: 'Hank Scorpio', email: 'ap@globex.test' });
    const invoice = await addInvoice(w.engine, w.company, customer, { number: 'INV-100', total: 120_000, dueDate: '2026-10-24' });
    await addInvoice(w.engine, w.company, customer, { number: 'INV-101', total: 30_000, dueDate: '2026-11-10' });
    const seq = await activeSequence(w, 'Dunning', [{ ...EMAIL_STEP, attach: ['invoice_pdf'] }], { sender_connection_id: sender });
    const step = await w.api('GET', w.path(`/sequences/${seq.id}/steps/${seq.stepIds[0]}`));
    expect(step.body.attach).toEqual(['invoice_pdf']);
    await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: customer, start_date: '2026-11-23' });
    const ready = (await queue()).data[0];

    const preview = await w.api('GET', w.path(`/sequences/queue/${ready.id}/preview`));
    expect(preview.status).toBe(200);
    expect(preview.body.attachments.map((a: { kind: string; file_name: string }) => [a.kind, a.file_name])).toEqual([['invoice_pdf', 'Invoice-INV-100.pdf']]);
    expect(preview.body.attachments[0].bytes).toBeGreaterThan(5_000);

    // A payment arrives between the preview and the send: the copy shows it.
    await w.engine.db.updateTable('invoices').set({ paid_amount: 20_000, balance: 100_000 }).where('id', '=', invoice).execute();
    w.engine.clock.set('2026-11-23T14:05:00.000Z');
    const sent = await w.api('POST', w.path(`/sequences/queue/${ready.id}/send`), {});
    expect(sent.status).toBe(200);
    expect(sent.body.status).toBe('sent');

    expect(smtp.messages).toHaveLength(1);
    const parsed = await simpleParser(smtp.messages[0].raw);
    expect(parsed.subject).toBe('Invoice INV-100 is 30 days past due');
    expect(parsed.attachments.map((a) => [a.filename, a.contentType])).toEqual([['Invoice-INV-100.pdf', 'application/pdf']]);
    const pdf = parsed.attachments[0].content;
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const text = pdfText(pdf);
    expect(text).toContain('Copy of invoice');
    expect(text).toMatch(/Invoice\s+INV-100/);
    expect(text).toContain('Globex & Sons');
    expect(text).toMatch(/Open\s+\$1,000\.00/);
    expect(text).not.toContain('INV-101');

    const timeline = await w.api('GET', w.path(`/communications?customer_id=${customer}`));
    expect(timeline.body.data).toHaveLength(1);
    expect(timeline.body.data[0]).toMatchObject({ kind: 'email', direction: 'outbound', invoice });
    expect(timeline.body.data[0].attachments).toEqual([{ name: 'Invoice-INV-100.pdf', size: pdf.length }]);

    // The step has run: its documents are part of what was sent and no longer change.
    const locked = await w.api('PUT', w.path(`/sequences/${seq.id}/steps/${seq.stepIds[0]}`), { attach: ['invoice_pdf', 'statement'] });
    expect(locked.status).toBe(409);
    expect(locked.body.code).toBe('step_has_history');
    expect((await w.api('PUT', w.path(`/sequences/${seq.id}/steps/${seq.stepIds[0]}`), { attach: ['invoice_pdf'], is_active: false })).status).toBe(200);
  });

  it("attaches every invoice a due-date email lists and the customer's statement as of that day", async () => {
    const sender = await addConnection(w.engine, w.company, { name: 'AR', port: smtp.port, fromEmail: 'ar@acme.test', allowShared: true });
    const customer = await addCustomer(w.engine, w.company, { name: 'Tri-County', email: 'ap@tricounty.test' });
    await addInvoice(w.engine, w.company, customer, { number: 'INV-A', total: 100_000, dueDate: '2026-11-26' });
    await addInvoice(w.engine, w.company, customer, { number: 'INV-B', total: 25_000, dueDate: '2026-11-26' });
    await addInvoice(w.engine, w.company, customer, { number: 'INV-C', total: 5_000, dueDate: '2026-12-20' });
    const step = { label: 'Heads up', due_offset_days: -3, offset_time: '09:00', subject_template: 'Coming due for {{customer_name}}', body_plain_template: '{{invoice_list}}', attach: ['statement', 'invoice_pdf'] };
    const seq = await activeSequence(w, 'From due dates', [step], { timing: 'due_date', sender_connection_id: sender });
    expect((await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: customer })).status).toBe(201);
    w.engine.clock.set('2026-11-23T14:05:00.000Z');
    const row = (await queue()).data[0];
    expect(row.covered_invoices).toHaveLength(2);

    const preview = (await w.api('GET', w.path(`/sequences/queue/${row.id}/preview`))).body;
    const files = ['Invoice-INV-A.pdf', 'Invoice-INV-B.pdf', 'Statement-Tri-County-2026-11-23.pdf'];
    expect(preview.attachments.map((a: { file_name: string }) => a.file_name)).toEqual(files);

    expect((await w.api('POST', w.path(`/sequences/queue/${row.id}/send`), {})).body.status).toBe('sent');
    expect(smtp.messages).toHaveLength(1);
    const parsed = await simpleParser(smtp.messages[0].raw);
    expect(parsed.attachments.map((a) => a.filename)).toEqual(files);
    expect(pdfText(parsed.attachments[0].content)).toMatch(/Invoice\s+INV-A/);
    expect(pdfText(parsed.attachments[1].content)).toMatch(/Invoice\s+INV-B/);
    const statement = pdfText(parsed.attachments[2].content);
    expect(statement).toContain('Tri-County');
    expect(statement).toMatch(/Total due\s+\$1,300\.00/);
  });

  it('refuses an unknown document with problem+json and changes nothing', async () => {
    const seq = await activeSequence(w, 'Dunning', [EMAIL_STEP]);
    const steps = w.path(`/sequences/${seq.id}/steps`);

    const created = await w.api('POST', steps, { ...EMAIL_STEP, label: 'Second', attach: ['contract'] });
    expect(created.status).toBe(400);
    expect(created.headers.get('content-type')).toContain('application/problem+json');
    expect((await w.api('GET', steps)).body.count).toBe(1);

    const updated = await w.api('PUT', `${steps}/${seq.stepIds[0]}`, { label: 'Renamed', attach: ['invoice_pdf', 'receipt'] });
    expect(updated.status).toBe(400);
    expect(updated.headers.get('content-type')).toContain('application/problem+json');
    const unchanged = await w.api('GET', `${steps}/${seq.stepIds[0]}`);
    expect(unchanged.body).toMatchObject({ label: 'Firm reminder', attach: [] });

    const preview = await w.api('POST', w.path(`/sequences/${seq.id}/preview`), { customer_id: await addCustomer(w.engine, w.company, { name: 'Initech' }), attach: ['statement', 'statement', 'fax'] });
    expect(preview.status).toBe(400);
    expect(preview.headers.get('content-type')).toContain('application/problem+json');
  });

  it("lets one send choose its own documents instead of the step's, previewed the same way", async () => {
    const sender = await addConnection(w.engine, w.company, { name: 'Acme AR', port: smtp.port, fromEmail: 'ar@acme.test' });
    const customer = await addCustomer(w.engine, w.company, { name: 'Initech', email: 'ap@initech.test' });
    await addInvoice(w.engine, w.company, customer, { number: 'INV-300', total: 45_000, dueDate: '2026-11-01' });
    const seq = await activeSequence(w, 'Dunning', [{ ...EMAIL_STEP, attach: ['invoice_pdf'] }], { sender_connection_id: sender });
    await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: customer, start_date: '2026-11-23' });
    const ready = (await queue()).data[0];
    const preview = (query: string) => w.api('GET', w.path(`/sequences/queue/${ready.id}/preview${query}`));
    const files = (res: Awaited<ReturnType<typeof preview>>) => res.body.attachments.map((a: { file_name: string }) => a.file_name);
    expect(files(await preview(''))).toEqual(['Invoice-INV-300.pdf']);
    expect(files(await preview('?attach=statement'))).toEqual(['Statement-Initech-2026-11-23.pdf']);
    expect(files(await preview('?attach='))).toEqual([]);
    const badQuery = await preview('?attach=statement,fax');
    expect(badQuery.status).toBe(400);
    expect(badQuery.headers.get('content-type')).toContain('application/problem+json');

    const bad = await w.api('POST', w.path(`/sequences/queue/${ready.id}/send`), { attach: ['fax'] });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
    expect(smtp.messages).toHaveLength(0);
    expect((await queue()).data.map((r: { id: string; status: string }) => [r.id, r.status])).toEqual([[ready.id, 'ready']]);

    expect((await w.api('POST', w.path(`/sequences/queue/${ready.id}/send`), { attach: ['statement'] })).body.status).toBe('sent');
    const parsed = await simpleParser(smtp.messages[0].raw);
    expect(parsed.attachments.map((a) => a.filename)).toEqual(['Statement-Initech-2026-11-23.pdf']);
    expect(pdfText(parsed.attachments[0].content)).toMatch(/Total due\s+\$450\.00/);
    // The step keeps its own choice for the next customers.
    expect((await w.api('GET', w.path(`/sequences/${seq.id}/steps/${seq.stepIds[0]}`))).body.attach).toEqual(['invoice_pdf']);
  });
});
