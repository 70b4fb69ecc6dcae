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
import { testEngine } from '../support/engine';
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

describe('the demo', () => {
  it('has no invoice with two open recommended decisions, and every open decision it makes is due ahead of its today', async () => {
    const engine = await testEngine();
    try {
      await seedDemo(engine);
      // An invoice's decisions: its own, and those on its customer listing it. An alternative is an option of a decision, not another.
      const twice = await sql<{ invoice: string; n: number }>`
        SELECT invoice, count(*) AS n FROM (
          SELECT a.invoice_id AS invoice FROM actions a WHERE a.invoice_id IS NOT NULL
            AND a.status IN ('proposed', 'scheduled') AND a.deleted_at IS NULL AND coalesce(a.top_recommendation, '') != 'alternative'
          UNION ALL
          SELECT j.value FROM actions a, json_each(a.metadata, '$.invoice_ids') j WHERE a.invoice_id IS NULL
            AND a.status IN ('proposed', 'scheduled') AND a.deleted_at IS NULL AND coalesce(a.top_recommendation, '') != 'alternative'
        ) GROUP BY invoice HAVING n > 1`.execute(engine.db);
      expect(twice.rows).toEqual([]);
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
