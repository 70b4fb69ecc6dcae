/**
 * One decision per invoice (issue 36, part 4), against the real engine, HTTP server and SMTP: the
 * refresh proposes nothing for an invoice a decision already covers, whoever made it; an invoice's
 * list shows the decision on its customer that lists it; an email of ours on any channel withdraws
 * the proposals it answers; the seeded demo keeps to one open recommended decision per invoice.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { refreshIntelligence } from '../../core/intelligence/runner';
import { createWorker } from '../../core/jobs/worker';
import { coreJobHandlers } from '../../core/runtime/job-handlers';
import { seedDemo } from '../../core/seed';
import { addAction } from '../support/actions-fixtures';
import { type TestEngine, testEngine } from '../support/engine';
import { addSmtpConnection } from '../support/reminders-fixtures';
import { activeSequence, addCustomer, addInvoice, type SequenceWorld, sequenceWorld } from '../support/sequence-fixtures';
import { type SmtpServer, startSmtp } from '../support/smtp';

const NOW = '2026-11-23T12:00:00.000Z';

describe('one decision per invoice', () => {
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

  const runJobs = () => createWorker(w.engine, { handlers: coreJobHandlers() }).runDueJobs();
  // An invoice's open decisions: its own, and those on its customer listing it.
  const openOn = async (invoice: string) =>
    await w.engine.db
      .selectFrom('actions')
      .select(['id', 'trigger_key', 'is_ai_recommended'])
      .where((eb) => eb.or([eb('invoice_id', '=', invoice), sql<boolean>`invoice_id IS NULL AND EXISTS (SELECT 1 FROM json_each(metadata, '$.invoice_ids') j WHERE j.value = ${invoice})`]))
      .where('status', 'in', ['proposed', 'scheduled'])
      .where('deleted_at', 'is', null)
      .execute();

  async function customerOwingTwo() {
    await addSmtpConnection(w.engine, w.company, smtp);
    const customer = await addCustomer(w.engine, w.company, { name: 'Granite State Roofing', email: 'ap@granite.test' });
    const one = await addInvoice(w.engine, w.company, customer, { number: 'INV-1', total: 360_000, dueDate: '2026-11-01' });
    const two = await addInvoice(w.engine, w.company, customer, { number: 'INV-2', total: 410_000, dueDate: '2026-11-02' });
    return { customer, one, two };
  }

  it('a decision made through the API covers its invoice: the refresh proposes for the other only, with a "Decide by" ahead', async () => {
    const g = await customerOwingTwo();
    const made = await w.api('POST', w.path('/actions'), { customer: g.customer, invoice: g.one, action_type: 'call', description: 'Call about INV-1' });
    expect(made.status).toBe(201);
    expect(Date.parse(made.body.response_deadline)).toBeGreaterThan(Date.parse(NOW));
    await refreshIntelligence(w.engine, w.company);
    expect((await openOn(g.one)).map((a) => a.is_ai_recommended)).toEqual([made.body.is_ai_recommended ? 1 : 0]);
    // No phone on file: the email alone.
    expect((await openOn(g.two)).map((a) => a.trigger_key)).toEqual([expect.stringMatching(/^past_due_no_touch:.*:without:call$/)]);
  });

  it('a decision on the customer listing invoices is shown on each invoice it lists, and none is proposed for them', async () => {
    const g = await customerOwingTwo();
    const made = await w.api('POST', w.path('/actions'), { customer: g.customer, action_type: 'email', description: 'Send a statement of INV-1 and INV-2', metadata: { invoice_ids: [g.one, g.two] } });
    expect(made.status).toBe(201);
    await refreshIntelligence(w.engine, w.company);
    expect((await openOn(g.one)).map((a) => a.id)).toEqual([made.body.id]);
    expect((await openOn(g.two)).map((a) => a.id)).toEqual([made.body.id]);
    for (const invoice of [g.one, g.two]) {
      const listed = await w.api('GET', w.path(`/actions?invoice_id=${invoice}&status=proposed`));
      expect(listed.body.data.map((a: { id: string }) => a.id)).toEqual([made.body.id]);
    }
  });

  it('one customer with five overdue invoices gets one call listing them; each invoice points to it; approved, it covers them; a sixth gets its own', async () => {
    await addSmtpConnection(w.engine, w.company, smtp);
    const customer = await addCustomer(w.engine, w.company, { name: 'Granite State Roofing', email: 'ap@granite.test' });
    w.engine.database.sqlite.prepare('UPDATE customer_contacts SET phone = ? WHERE customer_id = ?').run('+1 603 555 0142', customer);
    const dues = ['2026-08-03', '2026-09-01', '2026-09-15', '2026-10-01', '2026-11-02'];
    const invoices: string[] = [];
    for (const [i, due] of dues.entries()) invoices.push(await addInvoice(w.engine, w.company, customer, { number: `INV-${i + 1}`, total: 400_000 + i * 100, dueDate: due }));
    await refreshIntelligence(w.engine, w.company);

    const open = await w.engine.db.selectFrom('actions').select(['id', 'invoice_id', 'action_type', 'top_recommendation', 'metadata']).where('customer_id', '=', customer).where('status', '=', 'proposed').orderBy('top_recommendation', 'desc').execute();
    expect(open.map((a) => [a.action_type, a.invoice_id, a.top_recommendation, JSON.parse(a.metadata).invoice_ids])).toEqual([
      ['call', null, 'recommended', invoices],
      ['email', null, 'alternative', invoices],
    ]);
    const callId = open[0].id;
    // The inbox: one row, naming the five invoices; the email is an option in its panel.
    const inbox = (await w.api('GET', w.path(`/actions?category=needs_action&include_alternatives=false&customer_id=${customer}`))).body;
    expect(inbox.data.map((a: { id: string }) => a.id)).toEqual([callId]);
    expect(inbox.data[0].description).toBe('Call Granite State Roofing about 5 past-due invoices ($20,010.00)');
    expect(inbox.data[0].listed_invoice_count).toBe(5);
    // Its figures are those of the invoices it lists: their balance, the oldest one's days past due.
    expect(inbox.data[0]).toMatchObject({ balance: 20_010, days_past_due: 112 });
    expect(inbox.data[0].listed_invoices.map((i: { invoice_number: string }) => i.invoice_number)).toEqual(['INV-1', 'INV-2', 'INV-3', 'INV-4', 'INV-5']);
    const options = (await w.api('GET', w.path(`/actions?category=alternatives&customer_id=${customer}`))).body.data;
    expect(options.map((a: { id: string }) => a.id).sort()).toEqual(open.map((a) => a.id).sort());
    // Each invoice points to it, and none has a decision of its own.
    for (const invoice of invoices) {
      const detail = (await w.api('GET', w.path(`/invoices/${invoice}`))).body;
      expect(detail.covered_by).toEqual({ action: callId, action_type: 'call', status: 'proposed', description: inbox.data[0].description, invoice_count: 5 });
      expect(await w.engine.db.selectFrom('actions').select('id').where('invoice_id', '=', invoice).execute()).toEqual([]);
    }

    const approved = await w.api('POST', w.path(`/actions/${callId}/approve`), {});
    expect(approved.status).toBe(200);
    expect(approved.body.status).toBe('processing');
    await refreshIntelligence(w.engine, w.company);
    expect((await w.api('GET', w.path(`/actions/${open[1].id}`))).body.status).toBe('cancelled');
    expect((await w.api('GET', w.path(`/invoices/${invoices[0]}`))).body.covered_by).toMatchObject({ action: callId, status: 'processing' });
    // A sixth invoice falls past due while the call waits to be made: it gets a decision of its own, the five stay with the call.
    const sixth = await addInvoice(w.engine, w.company, customer, { number: 'INV-6', total: 100_000, dueDate: '2026-11-05' });
    await refreshIntelligence(w.engine, w.company);
    const now = await w.engine.db.selectFrom('actions').select(['id', 'invoice_id', 'top_recommendation']).where('customer_id', '=', customer).where('status', 'in', ['proposed', 'scheduled', 'processing']).execute();
    expect(now.filter((a) => a.top_recommendation !== 'alternative').map((a) => a.invoice_id ?? a.id).sort()).toEqual([callId, sixth].sort());
    expect(await twiceDecided(w.engine)).toEqual([]);

    // The call made: it touched all five; nothing is proposed for them, and nothing covers them any more.
    const logged = await w.api('POST', w.path(`/actions/${callId}/log`), { outcome: 'reached', body: 'Spoke to Doug: payment run on Friday.' });
    expect(logged.body.status).toBe('completed');
    await refreshIntelligence(w.engine, w.company);
    for (const invoice of invoices) {
      expect(await openOn(invoice)).toEqual([]);
      expect((await w.api('GET', w.path(`/invoices/${invoice}`))).body.covered_by).toBeNull();
    }
  });

  it('a dispute on one invoice of a decision on the customer withdraws it at once; the refresh proposes one for the others', async () => {
    const g = await customerOwingTwo();
    const three = await addInvoice(w.engine, w.company, g.customer, { number: 'INV-3', total: 150_000, dueDate: '2026-11-03' });
    await refreshIntelligence(w.engine, w.company);
    // No phone on file: the statement email alone, listing the three.
    const before = await openOn(three);
    expect(before.map((a) => a.trigger_key)).toEqual([expect.stringMatching(/^statement:.*:without:call$/)]);
    expect((await w.api('POST', w.path('/disputes'), { invoice_id: three, reason: 'Charged twice' })).status).toBe(201);
    for (const a of before) expect((await w.api('GET', w.path(`/actions/${a.id}`))).body.approval_log.at(-1).reason).toBe('superseded: disputed by the customer on November 23, 2026');
    await refreshIntelligence(w.engine, w.company);
    const after = (await openOn(g.one)).filter((a) => a.trigger_key?.startsWith('statement:') && !a.trigger_key.includes(':alt:'));
    expect(after).toHaveLength(1);
    const listed = (await w.api('GET', w.path(`/actions/${after[0].id}`))).body.listed_invoices.map((i: { invoice_number: string }) => i.invoice_number);
    expect(listed).toEqual(['INV-1', 'INV-2']);
  });

  it('an approved email on the customer naming its invoices is held at its send when one of them was disputed meanwhile, and the approver reads why', async () => {
    const g = await customerOwingTwo();
    const made = await w.api('POST', w.path('/actions'), {
      customer: g.customer,
      action_type: 'email',
      description: 'Send a statement of INV-1 and INV-2',
      metadata: { invoice_ids: [g.one, g.two], email: { subject: 'INV-1 and INV-2 are open', body: 'Dear customer, INV-1 and INV-2 are open: $7,700.00 in all.' } },
    });
    expect((await w.api('POST', w.path(`/actions/${made.body.id}/approve`), {})).status).toBe(200);
    expect((await w.api('POST', w.path('/disputes'), { invoice_id: g.two, reason: 'Charged twice' })).status).toBe(201);
    await runJobs();
    expect(smtp.messages.filter((m) => m.to.includes('ap@granite.test'))).toEqual([]);
    const action = (await w.api('GET', w.path(`/actions/${made.body.id}`))).body;
    expect(action.delivery).toMatchObject({ status: 'held', error: expect.stringMatching(/^Held: INV-2 is disputed \(Charged twice\)\.$/) });
    // Approved again while INV-2 stays disputed: refused, in the rule's words.
    const again = await w.api('POST', w.path(`/actions/${made.body.id}/retry`), {});
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/INV-2 is disputed/);
  });

  it('a statement that went out withdraws the engine’s proposals to chase its invoices, with the reason; a task stays', async () => {
    const g = await customerOwingTwo();
    await refreshIntelligence(w.engine, w.company);
    const chase = await openOn(g.one);
    expect(chase.length).toBeGreaterThan(0);
    const task = await addAction(w.engine, w.company, { customer_id: g.customer, invoice_id: g.two, action_type: 'task', trigger_key: `dispute:${g.two}`, is_action_required: 1 });
    const run = await w.api('POST', w.path('/statement-runs'), { customer_ids: [g.customer] });
    expect(run.status).toBe(202);
    await runJobs();
    expect(smtp.messages.filter((m) => m.to.includes('ap@granite.test'))).toHaveLength(1);
    for (const a of chase) {
      const after = (await w.api('GET', w.path(`/actions/${a.id}`))).body;
      expect(after.status).toBe('cancelled');
      expect(after.approval_log.at(-1).reason).toBe('superseded: we emailed the customer about it on November 23, 2026');
    }
    expect((await w.api('GET', w.path(`/actions/${task}`))).body.status).toBe('proposed');
    // And the next refresh does not propose them again: the statement touched both invoices.
    await refreshIntelligence(w.engine, w.company);
    expect((await openOn(g.one)).length).toBe(0);
  });

  it('a sequence email withdraws the proposals to chase the invoices it speaks of (all the customer’s open ones)', async () => {
    const g = await customerOwingTwo();
    await refreshIntelligence(w.engine, w.company);
    expect((await openOn(g.one)).length + (await openOn(g.two)).length).toBeGreaterThan(0);
    const sender = (await w.engine.db.selectFrom('email_connections').select('id').where('company_id', '=', w.company).executeTakeFirstOrThrow()).id;
    const seq = await activeSequence(w, 'Past-due follow-up', [{ label: 'First notice', offset_time: '00:00', subject_template: 'Invoice {{invoice_number}}', body_plain_template: 'Hello,\n\n{{invoice_number}} is open.' }], { sender_connection_id: sender });
    await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: g.customer, start_date: '2026-11-23' });
    const step = (await w.api('GET', w.path(`/sequences/queue?customer_id=${g.customer}`))).body.data[0];
    expect((await w.api('POST', w.path(`/sequences/queue/${step.id}/send`))).body.status).toBe('sent');
    expect(await openOn(g.one)).toEqual([]);
    expect(await openOn(g.two)).toEqual([]);
  });
});

/** Invoices with two open decisions: their own, and those on their customer listing them. An alternative is an option of a decision, not another. */
async function twiceDecided(engine: Pick<TestEngine, 'db'>): Promise<Array<{ invoice: string; n: number }>> {
  const open = sql`a.status IN ('proposed', 'scheduled', 'processing') AND a.deleted_at IS NULL AND coalesce(a.top_recommendation, '') != 'alternative'`;
  const twice = await sql<{ invoice: string; n: number }>`
    SELECT invoice, count(*) AS n FROM (
      SELECT a.invoice_id AS invoice FROM actions a WHERE a.invoice_id IS NOT NULL AND ${open}
      UNION ALL
      SELECT j.value FROM actions a, json_each(a.metadata, '$.invoice_ids') j WHERE a.invoice_id IS NULL AND ${open}
    ) GROUP BY invoice HAVING n > 1`.execute(engine.db);
  return twice.rows;
}

describe('the demo', () => {
  it('has no invoice with two open recommended decisions, no customer chased invoice by invoice, and every open decision it makes is due ahead of its today', async () => {
    const engine = await testEngine();
    try {
      await seedDemo(engine);
      expect(await twiceDecided(engine)).toEqual([]);
      // Several past-due invoices of one customer are one decision (Granite State Roofing's five calls were five).
      const chased = await sql<{ customer: string; n: number }>`
        SELECT customer_id AS customer, count(*) AS n FROM actions WHERE status = 'proposed' AND deleted_at IS NULL
          AND trigger_key LIKE 'past_due_no_touch:%' AND trigger_key NOT LIKE '%:alt:%' GROUP BY customer_id HAVING n > 1`.execute(engine.db);
      expect(chased.rows).toEqual([]);
      const granite = await sql<{ type: string; n: number }>`
        SELECT a.action_type AS type, json_array_length(a.metadata, '$.invoice_ids') AS n FROM actions a JOIN customers c ON c.id = a.customer_id
          WHERE c.name = 'Granite State Roofing' AND a.status = 'proposed' AND a.trigger_key LIKE 'call_customer:%' AND a.trigger_key NOT LIKE '%:alt:%'`.execute(engine.db);
      expect(granite.rows).toEqual([{ type: 'call', n: 5 }]);
      const today = engine.clock.now().toISOString().slice(0, 10);
      // The seed's own (no trigger key): the engine's of a week ago keep their deadline and show as overdue.
      const seeded = await engine.db.selectFrom('actions').select(['response_deadline']).where('trigger_key', 'is', null).where('status', 'in', ['proposed', 'scheduled']).where('deleted_at', 'is', null).execute();
      expect(seeded.length).toBeGreaterThan(0);
      for (const a of seeded) expect(a.response_deadline! > today).toBe(true);
    } finally {
      await engine.dispose();
    }
  });
});
