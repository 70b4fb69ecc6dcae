/**
 * The race the contact rule closes: a Queue step is sent (its invoice PDF drawn between the claim
 * and SMTP) while a dispute on its invoice is recorded at a random (seeded) offset of 0-500 ms. Every
 * email that reached the SMTP server was claimed and re-checked before the dispute committed; none
 * after. The server records both: the claim and the re-check ('contact_check') and the dispute are
 * rows of the change log, in commit order (seq) and with their times, on a clock that runs.
 * The same for an answer sent from the timeline (its statement drawn between the claim and SMTP)
 * while a person pauses the customer or marks them "do not contact".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../core/auth/users';
import type { Clock } from '../../core/clock';
import { insertCompany, insertMembership } from '../../core/companies/companies';
import { type Engine, runCommand, systemActor } from '../../core/engine';
import { createApp } from '../../core/http/app';
import { openEngine } from '../../core/runtime/engine';
import { type App, call, loginAs } from '../support/api';
import { addSmtpConnection } from '../support/reminders-fixtures';
import { fixture, insertCommunicationRow } from '../support/rows';
import { addCustomer, addInvoice } from '../support/sequence-fixtures';
import { type SmtpServer, startSmtp } from '../support/smtp';

const TRIALS = 50;
/** Answers from the timeline raced against a person's stop, this many at a time. */
const REPLY_TRIALS = 30;
const REPLIES_AT_ONCE = 5;
/** Trials run this many at a time (their PDFs wait their turn in the render pool). */
const AT_ONCE = 10;

/** mulberry32: the offsets are the same on every run. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Change {
  seq: number;
  entity: string;
  entity_id: string;
  data: string;
  created_at: string;
}

describe('a hold recorded while a step is being sent', () => {
  let dir: string;
  let engine: Engine;
  let app: App;
  let token: string;
  let smtp: SmtpServer;
  let company: string;
  let sequence: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ardesk-race-'));
    // The wall clock: the change log's times are the real ones.
    const clock: Clock = { now: () => new Date() };
    engine = await openEngine({ file: join(dir, 'ardesk.sqlite'), clock });
    app = createApp(engine);
    await createUser(engine, { username: 'alice', password: 'alice-pw' });
    token = await loginAs(app, 'alice');
    const user = await engine.db.selectFrom('users').select('id').where('username', '=', 'alice').executeTakeFirstOrThrow();
    company = await runCommand(engine, 'test_company', { actor: systemActor, companyId: null }, async (tx) => {
      const id = await insertCompany(tx, 'Acme Supply');
      await insertMembership(tx, id, user.id, 'owner');
      return id;
    });
    smtp = await startSmtp();
    const sender = await addSmtpConnection(engine, company, smtp);
    const created = await api('POST', '/sequences', { name: 'Past-due follow-up', sender_connection_id: sender });
    sequence = created.body.id;
    await api('POST', `/sequences/${sequence}/steps`, { label: 'First notice', offset_time: '00:00', subject_template: 'Invoice {{invoice_number}}', body_plain_template: 'Hello {{contact_name}}, {{invoice_number}} is open.', attach: ['invoice_pdf'] });
    expect((await api('POST', `/sequences/${sequence}`, { action: 'activate' })).status).toBe(200);
  });
  afterAll(async () => {
    await smtp?.close();
    await engine?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const api = (method: string, path: string, body?: unknown) => call(app, method, `/api/companies/${company}${path}`, { token, body });

  /** One trial: a customer with a ready step; the send and, `offset` ms after it started, a dispute. */
  async function trial(n: number, offset: number) {
    const email = `ap@customer-${n}.test`;
    const customer = await addCustomer(engine, company, { name: `Customer ${n}`, email });
    const invoice = await addInvoice(engine, company, customer, { number: `INV-${n}`, total: 120_000, dueDate: '2026-10-01' });
    const today = new Date().toISOString().slice(0, 10);
    expect((await api('POST', '/sequence-enrollments', { sequence_id: sequence, customer_id: customer, start_date: today })).status).toBe(201);
    const step = (await api('GET', `/sequences/queue?customer_id=${customer}`)).body.data[0].id as string;

    const sending = api('POST', `/sequences/queue/${step}/send`);
    // The offset is the experiment itself: when the second request arrives.
    await new Promise((resolve) => setTimeout(resolve, offset));
    const dispute = await api('POST', '/disputes', { invoice_id: invoice, reason: 'Charged twice' });
    expect(dispute.status).toBe(201);
    const sent = await sending;
    return { customer, step, email, dispute: dispute.body.id as string, status: sent.status, body: sent.body };
  }

  it(`${TRIALS} trials: every email that reached SMTP was claimed and re-checked before the dispute committed, none after`, async () => {
    const next = seeded(36);
    const offsets = Array.from({ length: TRIALS }, () => Math.floor(next() * 501));
    const results: Array<Awaited<ReturnType<typeof trial>>> = [];
    for (let i = 0; i < TRIALS; i += AT_ONCE) results.push(...(await Promise.all(offsets.slice(i, i + AT_ONCE).map((offset, k) => trial(i + k, offset)))));

    const changes = (await engine.db.selectFrom('changes').select(['seq', 'entity', 'entity_id', 'data', 'created_at']).where('company_id', '=', company).orderBy('seq').execute()) as Change[];
    let sentCount = 0;
    let heldAtDoor = 0;
    const gapsMs: number[] = [];
    for (const r of results) {
      const delivered = smtp.messages.filter((m) => m.to.includes(r.email));
      const hold = changes.find((c) => c.entity === 'dispute' && c.entity_id === r.dispute);
      expect(hold).toBeDefined();
      const checks = changes.filter((c) => c.entity === 'contact_check' && JSON.parse(c.data).customer_id === r.customer);
      const claim = changes.find((c) => c.entity === 'scheduled_step' && c.entity_id === r.step && JSON.parse(c.data).send_started_at);
      if (delivered.length > 0) {
        sentCount += 1;
        expect(delivered).toHaveLength(1);
        expect(r.status).toBe(200);
        // The claim and the re-check that let it go committed before the dispute.
        const passed = checks.filter((c) => JSON.parse(c.data).allowed === true);
        expect(passed).toHaveLength(1);
        expect(claim!.seq).toBeLessThan(hold!.seq);
        expect(passed[0].seq).toBeLessThan(hold!.seq);
        gapsMs.push(Date.parse(hold!.created_at) - Date.parse(passed[0].created_at));
      } else {
        // Held: the answer says so, and no re-check ever let it go.
        expect(r.status).toBe(409);
        expect(r.body.detail).toMatch(/disputed/);
        expect(checks.filter((c) => JSON.parse(c.data).allowed === true)).toEqual([]);
        // Claimed before the dispute, held by the re-check right before SMTP: the race the issue saw go out.
        if (claim && claim.seq < hold!.seq) heldAtDoor += 1;
      }
    }
    // Both outcomes happen within 0-500 ms: the race was run, not dodged.
    expect(sentCount).toBeGreaterThan(0);
    expect(sentCount).toBeLessThan(TRIALS);
    console.log(`contact race: ${TRIALS} trials, ${sentCount} sent (each re-checked before its dispute committed, by ${Math.min(...gapsMs)}-${Math.max(...gapsMs)} ms), ${TRIALS - sentCount} held (${heldAtDoor} of them claimed before the dispute and held by the re-check before SMTP), 0 sent after a hold`);
  }, 60_000);

  /** One trial: a customer's email to answer; the answer (a statement with it) and, `offset` ms after it started, a person's stop. */
  async function replyTrial(n: number, offset: number, stop: 'paused' | 'do_not_contact') {
    const email = `ap@replier-${n}.test`;
    const customer = await addCustomer(engine, company, { name: `Replier ${n}`, email });
    await addInvoice(engine, company, customer, { number: `R-${n}`, total: 80_000, dueDate: '2026-10-01' });
    const reply = await fixture(engine, company, (tx) =>
      insertCommunicationRow(tx, company, { customer_id: customer, kind: 'email', direction: 'inbound', from_email: email, subject: 'Statement?', body: 'Could you send our statement again?', occurred_at: new Date().toISOString(), message_id: `<r-${n}@replier.test>` }),
    );
    const sending = api('POST', `/communications/${reply}/reply`, { body: 'Here it is.', attach: ['statement'] });
    await new Promise((resolve) => setTimeout(resolve, offset));
    const stopped = await api('PUT', `/customers/${customer}/contact-stop`, { stop, reason: 'Their lawyer writes to us now' });
    expect(stopped.status).toBe(200);
    const sent = await sending;
    return { customer, email, status: sent.status, body: sent.body };
  }

  it(`${REPLY_TRIALS} trials: an answer from the timeline reached SMTP only when claimed and re-checked before the pause or "do not contact" committed`, async () => {
    const next = seeded(41);
    const trials = Array.from({ length: REPLY_TRIALS }, (_, i) => ({ offset: Math.floor(next() * 501), stop: i % 2 === 0 ? ('paused' as const) : ('do_not_contact' as const) }));
    // One answer first, not raced: the render pool's threads start, so the trials' claim-to-SMTP time is the statement's drawing alone.
    await replyTrial(TRIALS + REPLY_TRIALS, 0, 'paused');
    const results: Array<Awaited<ReturnType<typeof replyTrial>>> = [];
    for (let i = 0; i < REPLY_TRIALS; i += REPLIES_AT_ONCE) results.push(...(await Promise.all(trials.slice(i, i + REPLIES_AT_ONCE).map((t, k) => replyTrial(TRIALS + i + k, t.offset, t.stop)))));

    const changes = (await engine.db.selectFrom('changes').select(['seq', 'entity', 'entity_id', 'data', 'created_at']).where('company_id', '=', company).orderBy('seq').execute()) as Change[];
    let sentCount = 0;
    let heldAtDoor = 0;
    const drawMs: number[] = [];
    for (const r of results) {
      const delivered = smtp.messages.filter((m) => m.to.includes(r.email));
      const hold = changes.find((c) => c.entity === 'customer' && c.entity_id === r.customer && JSON.parse(c.data).contact_stop);
      expect(hold).toBeDefined();
      const checks = changes.filter((c) => c.entity === 'contact_check' && JSON.parse(c.data).customer_id === r.customer);
      const claim = checks.find((c) => JSON.parse(c.data).stage === 'claim');
      const door = checks.filter((c) => JSON.parse(c.data).stage === undefined);
      if (delivered.length > 0) {
        sentCount += 1;
        expect(delivered).toHaveLength(1);
        expect(r.status).toBe(201);
        expect(door.map((c) => JSON.parse(c.data).allowed)).toEqual([true]);
        expect(claim!.seq).toBeLessThan(door[0].seq);
        expect(door[0].seq).toBeLessThan(hold!.seq);
      } else {
        expect(r.status).toBe(409);
        expect(r.body.detail).toMatch(/Paused by alice|Do not contact, set by alice/);
        expect(door.filter((c) => JSON.parse(c.data).allowed === true)).toEqual([]);
        // Claimed before the stop, held by the re-check right before SMTP.
        if (claim && claim.seq < hold!.seq) heldAtDoor += 1;
      }
      if (claim && door[0]) drawMs.push(Date.parse(door[0].created_at) - Date.parse(claim.created_at));
    }
    drawMs.sort((a, b) => a - b);
    expect(sentCount).toBeGreaterThan(0);
    expect(sentCount).toBeLessThan(REPLY_TRIALS);
    console.log(`reply race: ${REPLY_TRIALS} trials, claim to SMTP ${drawMs[0]}-${drawMs.at(-1)} ms, ${sentCount} sent (each claimed and re-checked before the stop committed), ${REPLY_TRIALS - sentCount} held (${heldAtDoor} of them claimed before the stop and held by the re-check before SMTP), 0 sent after a hold`);
  }, 60_000);
});
