/**
 * The team view over a small ledger of two collectors and the unassigned customers: every figure is
 * recomputed here from the raw rows (invoices, payments, communications, steps, judged promises),
 * summed in JavaScript rather than in the view's SQL, and a few are checked by hand. Managers and
 * owners see it, collectors do not; the CSV has the same figures; the weekly digest emails them to
 * the managers over a real SMTP server, its CSV the same as the export.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { nextMonday, queueTeamDigests } from '../../core/analytics/team-digest';
import { collectionEffectiveness, countBackDso, promiseKeptRate } from '../../core/analytics/metrics';
import { addDays } from '../../core/dates';
import { buildMapping, guessChoice } from '../../core/import/guess';
import { AGGREGATES } from '../../core/sync/derived';
import { newId } from '../../core/ids';
import { createWorker } from '../../core/jobs/worker';
import { coreJobHandlers } from '../../core/runtime/job-handlers';
import { addMember, fixture, insertCommunicationRow, insertInvoiceRow } from '../support/rows';
import { addUser, loginAs } from '../support/api';
import { csv } from '../support/import-fixtures';
import { activeSequence, addConnection, addCustomer, addTeamMember, type SequenceWorld, sequenceWorld } from '../support/sequence-fixtures';
import { type SmtpServer, startSmtp } from '../support/smtp';

const AS_OF = '2026-11-23';
const FROM = addDays(AS_OF, -6);

describe('the team view', () => {
  let w: SequenceWorld;
  let smtp: SmtpServer;
  let mia = { id: '', token: '' };
  beforeAll(async () => {
    w = await sequenceWorld();
    smtp = await startSmtp();
    const id = await addUser(w.engine, 'mia', []);
    mia = { id, token: await loginAs(w.app, 'mia') };
  });
  beforeEach(async () => {
    await w.fresh('2026-11-23T12:00:00.000Z');
    smtp.messages.length = 0;
    await addMember(w.engine, w.company, mia.id, 'manager');
  });
  afterAll(async () => {
    await smtp?.close();
    await w?.dispose();
  });

  const invoice = (customer: string, number: string, total: number, issued: string, due: string) =>
    fixture(w.engine, w.company, (tx) => insertInvoiceRow(tx, w.company, customer, { invoice_number: number, invoice_date: issued, due_date: due, currency: 'USD', total_amount: total }));
  const pay = async (invoiceId: string, amount: number, date: string) => expect((await w.api('POST', w.path('/payments'), { invoice: invoiceId, amount, payment_date: date })).status).toBe(201);
  const judged = (customer: string, outcome: 'kept' | 'broken' | 'void', at: string) =>
    fixture(w.engine, w.company, (tx) =>
      tx.db
        .insertInto('promise_followups')
        .values({ id: newId(), company_id: w.company, customer_id: customer, invoice_id: null, source: 'communication', source_id: newId(), promised_date: addDays(at.slice(0, 10), -3), promised_amount: null, grace_days: 3, outcome, paid_amount: 0, action_id: null, judged_at: at })
        .execute(),
    );

  /** Ann has two customers, Ben one, one has no owner; a week of work on them. */
  async function ledger() {
    const ann = await addTeamMember(w.engine, w.company, 'Ann Archer');
    const ben = await addTeamMember(w.engine, w.company, 'Ben Baker');
    await fixture(w.engine, w.company, (tx) =>
      tx.db.insertInto('team_members').values({ id: newId(), company_id: w.company, user_id: null, name: 'Helen Cho', email: 'helen@acme-supply.test', role: 'manager', is_active: 1, created_at: tx.now, updated_at: tx.now }).execute(),
    );
    const a1 = await addCustomer(w.engine, w.company, { name: 'Anvil Works', arOwner: ann });
    const a2 = await addCustomer(w.engine, w.company, { name: 'Apex Foods', arOwner: ann });
    const b1 = await addCustomer(w.engine, w.company, { name: 'Birch Ltd', arOwner: ben });
    const u1 = await addCustomer(w.engine, w.company, { name: 'Umber Co' });
    await invoice(a1, 'A1-OLD', 100_000, '2026-09-01', '2026-10-01');
    await invoice(a1, 'A1-NEW', 50_000, '2026-11-05', '2026-12-05');
    const a2i = await invoice(a2, 'A2-1', 30_000, '2026-10-10', '2026-11-09');
    const b1i = await invoice(b1, 'B1-1', 80_000, '2026-10-15', '2026-11-14');
    await invoice(u1, 'U1-1', 40_000, '2026-11-01', '2026-12-01');
    await pay(a2i, 300, '2026-11-20');
    await pay(b1i, 200, '2026-11-10');
    await pay(b1i, 100, '2026-11-22');
    // A call with a promise (a touch and a promise), a reply read as a promise (a promise, no touch), a note, and an older call.
    const call = { customer_id: a1, kind: 'call', outcome: 'promised_to_pay', promise_date: '2026-11-30', occurred_at: '2026-11-20T10:00:00.000Z' };
    expect((await w.api('POST', w.path('/communications'), call)).status).toBe(201);
    await fixture(w.engine, w.company, (tx) => insertCommunicationRow(tx, w.company, { customer_id: a2, kind: 'email', direction: 'inbound', subject: 'Re: A2-1', body: 'We will pay on Friday.', occurred_at: '2026-11-21T09:00:00.000Z', reading_kind: 'promise' }));
    expect((await w.api('POST', w.path('/communications'), { customer_id: b1, kind: 'note', body: 'Asked for a remittance', occurred_at: '2026-11-18T09:00:00.000Z' })).status).toBe(201);
    expect((await w.api('POST', w.path('/communications'), { customer_id: b1, kind: 'call', outcome: 'no_answer', occurred_at: '2026-11-10T09:00:00.000Z' })).status).toBe(201);
    // Judged promises: Ann one kept and one broken this week; Ben one kept before it.
    await judged(a1, 'kept', '2026-11-19T06:00:00.000Z');
    await judged(a2, 'broken', '2026-11-21T06:00:00.000Z');
    await judged(b1, 'kept', '2026-11-01T06:00:00.000Z');
    // Ben's customer is enrolled: its first step is ready in the Queue.
    const sender = await addConnection(w.engine, w.company, { name: 'AR', port: smtp.port, fromEmail: 'ar@acme-supply.test' });
    await fixture(w.engine, w.company, (tx) => tx.db.updateTable('email_connections').set({ is_default: 1 }).where('id', '=', sender).execute());
    const seq = await activeSequence(w, 'Dunning', [{ label: 'First', offset_time: '00:00', subject_template: 'Overdue', body_plain_template: 'Please pay.' }], { sender_connection_id: sender });
    expect((await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: b1, start_date: AS_OF })).status).toBe(201);
    return { ann, ben };
  }

  /** The figures at `asOf`, recomputed from the rows as read back from the database. */
  async function recomputed(asOf = AS_OF) {
    const from = addDays(asOf, -6);
    const opening = addDays(`${asOf.slice(0, 7)}-01`, -1);
    const db = w.engine.db;
    const customers = await db.selectFrom('customers').selectAll().where('company_id', '=', w.company).execute();
    const owner = new Map(customers.map((c) => [c.id, c.ar_owner_id ?? '']));
    const invoices = await db.selectFrom('invoices').selectAll().where('company_id', '=', w.company).execute();
    const invoiceOwner = new Map(invoices.map((i) => [i.id, owner.get(i.customer_id)!]));
    const payments = (await db.selectFrom('payments').selectAll().where('company_id', '=', w.company).execute()).filter((p) => p.status === 'PAID' || p.status === 'PARTIAL');
    const comms = await db.selectFrom('communications').selectAll().where('company_id', '=', w.company).execute();
    const steps = await db.selectFrom('scheduled_steps').selectAll().where('company_id', '=', w.company).execute();
    const paused = new Set((await db.selectFrom('sequence_enrollments').select(['id', 'paused_kind']).where('company_id', '=', w.company).execute()).filter((e) => e.paused_kind !== null).map((e) => e.id));
    const promises = await db.selectFrom('promise_followups').selectAll().where('company_id', '=', w.company).execute();
    const inWeek = (at: string) => at.slice(0, 10) >= from && at.slice(0, 10) <= asOf;
    const receivables = (key: string, date: string) => {
      let total = 0;
      let current = 0;
      // Issued by then and not closed by then (paid, credited, written off).
      for (const i of invoices.filter((x) => invoiceOwner.get(x.id) === key && x.invoice_date <= date && (x.closed_date === null || x.closed_date > date))) {
        const paid = payments.filter((p) => p.invoice_id === i.id && p.payment_date <= date).reduce((s, p) => s + p.amount, 0);
        const open = i.total_amount - paid;
        if (open <= 0) continue;
        total += open;
        if (i.due_date >= date) current += open;
      }
      return { total, current };
    };
    return (key: string) => {
      const book = invoices.filter((i) => invoiceOwner.get(i.id) === key);
      const open = book.filter((i) => i.closing_reason === null && i.balance > 0);
      const sales = new Map<string, number>();
      for (const i of book.filter((x) => x.invoice_date <= asOf)) sales.set(i.invoice_date.slice(0, 7), (sales.get(i.invoice_date.slice(0, 7)) ?? 0) + i.total_amount);
      const end = receivables(key, asOf);
      const kept = promises.filter((p) => owner.get(p.customer_id) === key && p.outcome === 'kept' && inWeek(p.judged_at)).length;
      const broken = promises.filter((p) => owner.get(p.customer_id) === key && p.outcome === 'broken' && inWeek(p.judged_at)).length;
      return {
        customers: customers.filter((c) => (c.ar_owner_id ?? '') === key).length,
        open_balance: open.reduce((s, i) => s + i.balance, 0) / 100,
        overdue_balance: open.filter((i) => i.due_date < asOf).reduce((s, i) => s + i.balance, 0) / 100,
        touches: comms.filter((m) => owner.get(m.customer_id) === key && inWeek(m.occurred_at) && (m.kind !== 'email' || m.direction === 'outbound')).length,
        queue_backlog: steps.filter((s) => owner.get(s.customer_id) === key && !paused.has(s.enrollment_id) && (s.status === 'ready' || (s.status === 'scheduled' && s.scheduled_at <= `${asOf}T23:59:59.999Z`))).length,
        promises_obtained: comms.filter((m) => owner.get(m.customer_id) === key && inWeek(m.occurred_at) && (m.promise_date !== null || (m.direction === 'inbound' && m.reading_kind === 'promise'))).length,
        promises_kept: kept,
        promises_broken: broken,
        promise_kept_rate: promiseKeptRate([...Array(kept).fill({ kept: true }), ...Array(broken).fill({ kept: false })]),
        cash_collected: payments.filter((p) => invoiceOwner.get(p.invoice_id) === key && p.payment_date >= from && p.payment_date <= asOf).reduce((s, p) => s + p.amount, 0) / 100,
        cei: collectionEffectiveness({ opening: receivables(key, opening).total, sales: sales.get(asOf.slice(0, 7)) ?? 0, closingTotal: end.total, closingCurrent: end.current }),
        dso: countBackDso(end.total, asOf, sales),
      };
    };
  }

  it('gives each collector the figures their rows add up to; the CSV and the weekly digest say the same', async () => {
    const { ann, ben } = await ledger();
    const res = await w.api('GET', w.path(`/team-view?as_of=${AS_OF}`), undefined, mia.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ as_of: AS_OF, from: FROM, currency: 'USD' });
    const rows = res.body.collectors as Array<Record<string, unknown>>;
    expect(rows.map((r) => [r.name, r.member_id])).toEqual([
      ['Ann Archer', ann],
      ['Ben Baker', ben],
      ['Unassigned', null],
    ]);
    const expected = await recomputed();
    for (const [row, key] of [[rows[0], ann], [rows[1], ben], [rows[2], '']] as const) expect(row).toEqual({ member_id: row.member_id, name: row.name, ...expected(key) });
    // A few by hand: Ann is owed 1,000 overdue and 500 current, collected 300, kept one promise of two.
    expect(rows[0]).toMatchObject({ open_balance: 1500, overdue_balance: 1000, cash_collected: 300, touches: 1, promises_obtained: 2, promises_kept: 1, promises_broken: 1, promise_kept_rate: 50 });
    expect(rows[1]).toMatchObject({ open_balance: 500, overdue_balance: 500, cash_collected: 100, touches: 1, queue_backlog: 1, promises_kept: 0 });
    expect(rows[2]).toMatchObject({ open_balance: 400, overdue_balance: 0, customers: 1 });

    // The same figures as CSV (amounts in major units).
    const csv = await w.api('GET', w.path(`/team-view/export?as_of=${AS_OF}`), undefined, mia.token);
    expect(csv.status).toBe(200);
    const lines = String(csv.body).trim().split(/\r\n/);
    expect(lines[0]).toBe('Collector,Customers,Open balance,Overdue balance,Touches (7 days),Queue backlog,Promises obtained,Promises kept,Promises broken,Promise-kept rate (%),Cash collected,CEI (%),DSO (days)');
    expect(lines[1].split(',').slice(0, 4)).toEqual(['Ann Archer', '2', '1500.00', '1000.00']);
    expect(lines).toHaveLength(4);

    // The weekly digest: queued once a week on the bulk lane, due the next Monday morning (nothing goes out today), emailed to the managers.
    expect(await queueTeamDigests(w.engine)).toBeGreaterThanOrEqual(1);
    expect(await queueTeamDigests(w.engine)).toBe(0);
    const job = await w.engine.db.selectFrom('jobs').select(['kind', 'idempotency_key', 'run_after']).where('company_id', '=', w.company).where('kind', '=', 'team_digest').executeTakeFirstOrThrow();
    expect(job).toMatchObject({ idempotency_key: `team_digest:${w.company}:2026-11-30`, run_after: '2026-11-30T06:00:00.000Z' });
    expect(nextMonday(AS_OF)).toBe('2026-11-30');
    await createWorker(w.engine, { handlers: coreJobHandlers() }).runDueJobs();
    expect(smtp.messages).toHaveLength(0);
    w.engine.clock.set('2026-11-30T06:00:00.000Z');
    await createWorker(w.engine, { handlers: coreJobHandlers() }).runDueJobs();
    const [mail] = await smtp.waitFor(1);
    expect(mail.to).toEqual(['helen@acme-supply.test']);
    expect(mail.subject).toBe('Acme Supply: the collectors\' week to November 30, 2026');
    // The figures of the Monday it went out, as the view gives them for that day.
    const monday = (await w.api('GET', w.path('/team-view?as_of=2026-11-30'), undefined, mia.token)).body.collectors as Array<Record<string, number>>;
    const text = mail.text.replace(/\r\n/g, '\n');
    expect(text).toContain(`Ann Archer\n  Customers: 2; open $1,500.00, overdue $1,000.00\n  Touches: ${monday[0].touches}; queue backlog: ${monday[0].queue_backlog}`);
    expect(text).toContain(`Ben Baker\n  Customers: 1; open $500.00, overdue $500.00\n  Touches: ${monday[1].touches}; queue backlog: ${monday[1].queue_backlog}`);
    const exported = String((await w.api('GET', w.path('/team-view/export?as_of=2026-11-30'), undefined, mia.token)).body).trim().split(/\r\n/);
    const { simpleParser } = await import('mailparser');
    const parsed = await simpleParser(mail.raw);
    expect(parsed.attachments[0].content.toString('utf8').trim().split(/\r\n/)).toEqual(exported);
  });

  it('is for managers and owners only; a future date is refused', async () => {
    await ledger();
    expect((await w.api('GET', w.path('/team-view'))).status).toBe(200);
    for (const token of [w.tokens.bob, w.tokens.vic]) {
      const refused = await w.api('GET', w.path('/team-view'), undefined, token);
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('manager_only');
      expect((await w.api('GET', w.path('/team-view/export'), undefined, token)).status).toBe(403);
    }
    expect((await w.api('GET', w.path('/team-view?as_of=2026-11-24'))).status).toBe(400);
    expect((await w.api('GET', w.path('/team-view'), undefined, w.tokens.carol)).status).toBe(403);
  });

  /** The kept sums per owner and day (0470), without the rows that came to nothing. */
  const keptSums = () => {
    const read = (table: string, order: string) =>
      w.engine.database.sqlite.prepare(`SELECT * FROM ${table} WHERE company_id = ? ORDER BY ${order}`).all(w.company).filter((r) => Object.entries(r as Record<string, unknown>).some(([k, v]) => typeof v === 'number' && v !== 0 && k !== 'company_id'));
    return { days: read('team_book_days', 'owner_id, day'), dues: read('team_book_dues', 'due_date, owner_id, day') };
  };
  /** The same sums computed from scratch from the invoices and payments (as a bulk download rebuilds them). */
  const rebuiltSums = () => {
    const sqlite = w.engine.database.sqlite;
    return sqlite.transaction(() => {
      for (const table of ['team_book_dues', 'team_book_days']) {
        sqlite.prepare(`DELETE FROM ${table} WHERE company_id = ?`).run(w.company);
        sqlite.prepare(AGGREGATES[table]).run({ company: w.company });
      }
      return keptSums();
    })();
  };

  it('keeps each book right through payments, voids, overpayments, write-offs, credit memos and notes, edits, deletes, an import and moves, at any as_of', async () => {
    const { ann, ben } = await ledger();
    const sqlite = w.engine.database.sqlite;
    const id = (number: string) => (sqlite.prepare('SELECT id FROM invoices WHERE company_id = ? AND invoice_number = ?').get(w.company, number) as { id: string }).id;
    const customer = (name: string) => (sqlite.prepare('SELECT id FROM customers WHERE company_id = ? AND name = ?').get(w.company, name) as { id: string }).id;
    // Overpaid: A1-NEW ($500) paid $600, closed as overpaid this week.
    await pay(id('A1-NEW'), 600, '2026-11-21');
    // A payment dated before its invoice counts from the invoice's date.
    const b2 = await invoice(customer('Birch Ltd'), 'B1-2', 20_000, '2026-11-12', '2026-12-12');
    await pay(b2, 50, '2026-11-05');
    // A void reopens: B1-1's payment of the 22nd stops counting.
    const voided = (sqlite.prepare("SELECT id FROM payments WHERE invoice_id = ? AND payment_date = '2026-11-22'").get(id('B1-1')) as { id: string }).id;
    expect((await w.api('POST', w.path(`/payments/${voided}/void`), {})).status).toBe(200);
    // An edit of the total and the due date.
    const edit = { customer: customer('Birch Ltd'), total_amount: 900, invoice_date: '2026-10-15', due_date: '2026-11-30', number: 'B1-1' };
    expect((await w.api('PUT', w.path(`/invoices/${id('B1-1')}`), edit)).status).toBe(200);
    // Written off after the month's opening, as an accounting system's import or a sync writes it; a credit note open with nothing paid.
    await fixture(w.engine, w.company, (tx) => tx.db.updateTable('invoices').set({ closing_reason: 'written_off', closed_date: '2026-11-15' }).where('id', '=', id('A1-OLD')).execute());
    await invoice(customer('Apex Foods'), 'A2-CN', -5_000, '2026-11-16', '2026-11-16');
    // A credit memo after a payment (B1-2's $50), and a write-off with no closing date (owed at every date, the view's rule).
    await fixture(w.engine, w.company, (tx) => tx.db.updateTable('invoices').set({ closing_reason: 'credit_memo', closed_date: '2026-11-20' }).where('id', '=', b2).execute());
    const a22 = await invoice(customer('Apex Foods'), 'A2-2', 10_000, '2026-10-05', '2026-11-04');
    await fixture(w.engine, w.company, (tx) => tx.db.updateTable('invoices').set({ closing_reason: 'written_off', closed_date: null }).where('id', '=', a22).execute());
    // An invoice with a payment deleted (its payments go with it).
    await pay(id('U1-1'), 100, '2026-11-03');
    await fixture(w.engine, w.company, (tx) => tx.db.deleteFrom('invoices').where('id', '=', id('U1-1')).execute());
    // An import: new customers (no owner), open and paid invoices; then moved to Ann.
    const file = csv([
      ['Doc No', 'Client', 'Amt Due', 'Inv Date', 'Due', 'Stat'],
      ['IM-1', 'Ivy Imports', '700.00', '10/20/2026', '11/19/2026', 'OPEN'],
      ['IM-2', 'Ivy Imports', '250.00', '11/02/2026', '12/02/2026', 'PAID'],
      ['IM-3', 'Isle Traders', '1,100.00', '11/10/2026', '12/10/2026', 'OPEN'],
    ]);
    const upload = async (path: string, fields: Record<string, string | Blob>) => {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) {
        if (value instanceof Blob) form.append(name, value, 'ar.csv');
        else form.append(name, value);
      }
      const res = await w.app.request(w.path(path), { method: 'POST', body: form, headers: { authorization: `Token ${w.tokens.alice}` } });
      return { status: res.status, body: (await res.json()) as any };
    };
    const preview = await upload('/imports/preview', { file: new Blob([file]) });
    expect(preview.status).toBe(200);
    const imported = await upload('/imports', { file: new Blob([file]), mapping: JSON.stringify(buildMapping(guessChoice('ar-rows', preview.body.columns))) });
    expect(imported.status).toBe(200);
    expect(imported.body.counts.invoices.created).toBe(3);
    const check = async () => {
      expect(keptSums()).toEqual(rebuiltSums());
      for (const asOf of [AS_OF, '2026-11-14', '2026-10-31']) {
        const expected = await recomputed(asOf);
        const rows = (await w.api('GET', w.path(`/team-view?as_of=${asOf}`), undefined, mia.token)).body.collectors as Array<{ member_id: string | null; name: string }>;
        for (const row of rows) expect(row).toEqual({ member_id: row.member_id, name: row.name, ...expected(row.member_id ?? '') });
      }
    };
    await check();
    const moved = await w.api('POST', w.path('/customers/assign-ar-owner'), { ar_owner: ann, customer_ids: [customer('Ivy Imports'), customer('Isle Traders')] }, mia.token);
    expect(moved.status).toBe(200);
    expect((await w.api('POST', w.path('/customers/assign-ar-owner'), { ar_owner: null, customer_ids: [customer('Birch Ltd'), customer('Anvil Works')] }, mia.token)).status).toBe(200);
    expect((await w.api('POST', w.path('/customers/assign-ar-owner'), { ar_owner: ben, customer_ids: [customer('Apex Foods')] }, mia.token)).status).toBe(200);
    await check();
    // By hand, now: Ann's book is the imported customers, 700 + 1,100 open, the 700 overdue.
    const now = (await w.api('GET', w.path(`/team-view?as_of=${AS_OF}`), undefined, mia.token)).body.collectors as Array<Record<string, unknown>>;
    expect(now.find((r) => r.member_id === ann)).toMatchObject({ customers: 2, open_balance: 1800, overdue_balance: 700 });
  });

  it('moves customers between books in bulk, and the figures follow', async () => {
    const { ann, ben } = await ledger();
    const annCustomers = (await w.api('GET', w.path(`/customers?ar_owner=${ann}`))).body.data.map((c: { id: string }) => c.id);
    const moved = await w.api('POST', w.path('/customers/assign-ar-owner'), { ar_owner: ben, customer_ids: annCustomers }, mia.token);
    expect(moved.status).toBe(200);
    const rows = (await w.api('GET', w.path(`/team-view?as_of=${AS_OF}`), undefined, mia.token)).body.collectors;
    const expected = await recomputed();
    expect(rows.find((r: { member_id: string }) => r.member_id === ann)).toMatchObject({ customers: 0, open_balance: 0, cash_collected: 0 });
    expect(rows.find((r: { member_id: string }) => r.member_id === ben)).toMatchObject({ ...expected(ben), customers: 3, open_balance: 2000 });
  });
});
