import { beforeEach, describe, expect, it } from 'vitest';
import { runCommand, systemActor } from '../../core/engine';
import { insertPayment } from '../../core/payments/commands';
import { call, useApiWorkspace } from '../support/api';
import { type Ledger, ledger } from '../support/ledger-fixtures';

const PAYMENT_KEYS = [
  'amount',
  'company',
  'created_at',
  'id',
  'invoice',
  'invoice_number',
  'notes',
  'payment_date',
  'payment_method',
  'payment_type',
  'remote_id',
  'status',
  'status_reason',
  'transaction_id',
];

describe('payments API', () => {
  const w = useApiWorkspace();
  let l: Ledger;
  let customer: string;

  beforeEach(async () => {
    w.engine.clock.set('2026-11-23T12:00:00.000Z');
    l = ledger(w.engine, w.company);
    customer = await l.customer({ name: 'Cobalt Industries' });
  });

  const get = (path: string) => call(w.app, 'GET', path, { token: w.tokens.demo });
  const post = (path: string, body?: unknown) => call(w.app, 'POST', path, { token: w.tokens.demo, body });

  async function invoiceRow(id: string) {
    return w.engine.db.selectFrom('invoices').select(['paid_amount', 'balance', 'closing_reason', 'closed_date']).where('id', '=', id).executeTakeFirstOrThrow();
  }

  /** Three invoices with five payments across dates, methods and statuses. */
  async function sampleLedger() {
    const a = await l.invoice({ customer, number: 'INV-A', total: 500, dueDate: '2026-11-01' });
    const b = await l.invoice({ customer, number: 'INV-B', total: 300, dueDate: '2026-11-15' });
    const c = await l.invoice({ customer, number: 'INV-C', total: 100, dueDate: '2026-12-01' });
    const p1 = await l.payment({ invoice: a, amount: 100, payment_date: '2026-10-05', payment_method: 'ACH' });
    const p2 = await l.payment({ invoice: a, amount: 400, payment_date: '2026-11-02', payment_method: 'check' });
    const p3 = await l.payment({ invoice: b, amount: 50, payment_date: '2026-11-02', payment_method: 'credit card' });
    const p4 = await l.payment({ invoice: b, amount: 75, payment_date: '2026-11-20', payment_method: 'ACH', status: 'PENDING' });
    const p5 = await l.payment({ invoice: c, amount: 20, payment_date: '2026-09-30', payment_method: 'WIRE', remote_id: 'QB-9' });
    return { invoices: { a, b, c }, payments: { p1, p2, p3, p4, p5 } };
  }

  describe('GET /payments', () => {
    it('lists every payment newest payment date first, ties newest created first, in the spec shape', async () => {
      const { invoices, payments } = await sampleLedger();
      const res = await get(`${w.base}/payments`);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['count', 'data']);
      expect(res.body.count).toBe(5);
      expect(res.body.data.map((p: { id: string }) => p.id)).toEqual([payments.p4, payments.p3, payments.p2, payments.p1, payments.p5]);
      for (const p of res.body.data) expect(Object.keys(p).sort()).toEqual(PAYMENT_KEYS);
      const p2 = res.body.data[2];
      expect(p2).toEqual({
        id: payments.p2,
        invoice: invoices.a,
        invoice_number: 'INV-A',
        company: w.company,
        payment_type: 'PAYMENT',
        amount: 400,
        payment_date: '2026-11-02',
        payment_method: 'CHECK',
        transaction_id: null,
        remote_id: null,
        status: 'PAID',
        notes: null,
        status_reason: null,
        created_at: '2026-11-23T12:00:00.000Z',
      });
      expect(res.body.data[0]).toMatchObject({ status: 'PENDING', amount: 75 });
      expect(res.body.data[1]).toMatchObject({ status: 'PARTIAL', payment_method: 'CREDIT_CARD' });
      expect(res.body.data[4]).toMatchObject({ remote_id: 'QB-9', status: 'PARTIAL' });
    });

    it('filters by status, method (case-insensitive) and date range, alone and combined, with count matching', async () => {
      const { payments } = await sampleLedger();
      const ids = async (query: string) => {
        const res = await get(`${w.base}/payments?${query}`);
        expect(res.status).toBe(200);
        expect(res.body.count).toBe(res.body.data.length);
        return res.body.data.map((p: { id: string }) => p.id);
      };
      expect(await ids('status=PARTIAL')).toEqual([payments.p3, payments.p1, payments.p5]);
      expect(await ids('status=PAID')).toEqual([payments.p2]);
      expect(await ids('status=PENDING')).toEqual([payments.p4]);
      expect(await ids('status=VOIDED')).toEqual([]);
      expect(await ids('payment_method=ach')).toEqual([payments.p4, payments.p1]);
      expect(await ids('payment_method=Credit%20Card')).toEqual([payments.p3]);
      expect(await ids('date_from=2026-11-02')).toEqual([payments.p4, payments.p3, payments.p2]);
      expect(await ids('date_to=2026-11-02')).toEqual([payments.p3, payments.p2, payments.p1, payments.p5]);
      expect(await ids('date_from=2026-10-01&date_to=2026-11-02')).toEqual([payments.p3, payments.p2, payments.p1]);
      expect(await ids('date_from=2026-11-02&date_to=2026-11-02&status=PAID')).toEqual([payments.p2]);
      expect(await ids('payment_method=ACH&status=PARTIAL&date_to=2026-10-31')).toEqual([payments.p1]);
      expect(await ids('payment_method=ACH&status=PAID')).toEqual([]);
    });

    it('pages with limit and offset while count stays the total matching', async () => {
      await sampleLedger();
      const all = (await get(`${w.base}/payments`)).body.data.map((p: { id: string }) => p.id);
      const pages: string[] = [];
      for (let offset = 0; offset < 5; offset += 2) {
        const res = await get(`${w.base}/payments?limit=2&offset=${offset}`);
        expect(res.body.count).toBe(5);
        pages.push(...res.body.data.map((p: { id: string }) => p.id));
      }
      expect(pages).toEqual(all);
      expect((await get(`${w.base}/payments?offset=10`)).body).toEqual({ count: 5, data: [] });
    });

    it('returns 100 rows by default and never more than 1000', async () => {
      const invoice = await l.invoice({ customer, number: 'INV-BIG', total: 100_000 });
      await runCommand(w.engine, 'test_many_payments', { actor: systemActor, companyId: w.company }, async (tx) => {
        for (let i = 0; i < 1005; i++) await insertPayment(tx, w.company, { invoice, amount: 1, payment_date: '2026-11-01' });
      });
      const first = await get(`${w.base}/payments`);
      expect(first.body.count).toBe(1005);
      expect(first.body.data).toHaveLength(100);
      const capped = await get(`${w.base}/payments?limit=5000`);
      expect(capped.body.data).toHaveLength(1000);
    });

    it('answers 400 problem+json for an unknown status, a bad date, an inverted range and bad paging', async () => {
      for (const query of ['status=paid', 'status=REFUNDED', 'date_from=2026-13-01', 'date_to=yesterday', 'date_from=2026-11-02&date_to=2026-11-01', 'limit=0', 'limit=abc', 'offset=-1', 'limit=1.5']) {
        const res = await get(`${w.base}/payments?${query}`);
        expect(res.status, query).toBe(400);
        expect(res.headers.get('content-type')).toContain('application/problem+json');
        expect(res.body.code).toBe('validation_error');
      }
    });

    it("lists one customer's payments (extension customer_id), with the other filters and paging", async () => {
      const { payments } = await sampleLedger();
      const umbra = await l.customer({ name: 'Umbra Ltd' });
      const umbraInvoice = await l.invoice({ customer: umbra, number: 'INV-U', total: 90 });
      const theirs = await l.payment({ invoice: umbraInvoice, amount: 30, payment_date: '2026-11-21' });
      const page = async (query: string) => (await get(`${w.base}/payments?${query}`)).body as { count: number; data: Array<{ id: string }> };
      const cobalt = await page(`customer_id=${customer}`);
      expect(cobalt.count).toBe(5);
      expect(cobalt.data.map((p) => p.id)).toEqual([payments.p4, payments.p3, payments.p2, payments.p1, payments.p5]);
      expect((await page(`customer_id=${umbra}`)).data.map((p) => p.id)).toEqual([theirs]);
      expect(await page(`customer_id=${customer}&status=PARTIAL&date_from=2026-10-01`)).toMatchObject({ count: 2, data: [{ id: payments.p3 }, { id: payments.p1 }] });
      expect(await page(`customer_id=${customer}&payment_method=ach`)).toMatchObject({ count: 2, data: [{ id: payments.p4 }, { id: payments.p1 }] });
      const second = await page(`customer_id=${customer}&limit=2&offset=2`);
      expect(second.count).toBe(5);
      expect(second.data.map((p) => p.id)).toEqual([payments.p2, payments.p1]);
      expect((await get(`${w.base}/payments?customer_id=not-a-uuid`)).status).toBe(400);
      // Another company's customer: nothing, as for every other filter.
      const rival = await call(w.app, 'GET', `/api/companies/${w.other}/payments?customer_id=${customer}`, { token: w.tokens.rival });
      expect(rival.body).toEqual({ count: 0, data: [] });
    });

    it("never shows another company's payments", async () => {
      await sampleLedger();
      const res = await call(w.app, 'GET', `/api/companies/${w.other}/payments`, { token: w.tokens.rival });
      expect(res.body).toEqual({ count: 0, data: [] });
      expect((await call(w.app, 'GET', `/api/companies/${w.company}/payments`, { token: w.tokens.rival })).status).toBe(403);
    });
  });

  describe('GET /payments/{id} and /invoices/{id}/payments', () => {
    it('reads one payment', async () => {
      const { payments } = await sampleLedger();
      const res = await get(`${w.base}/payments/${payments.p5}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: payments.p5, invoice_number: 'INV-C', amount: 20, payment_method: 'WIRE', remote_id: 'QB-9' });
    });

    it('answers 404 for unknown, malformed and foreign payment ids', async () => {
      const { payments } = await sampleLedger();
      const foreignLedger = ledger(w.engine, w.other);
      const foreignInvoice = await foreignLedger.invoice({ customer: await foreignLedger.customer({ name: 'Elsewhere' }), number: 'X-1', total: 10 });
      const foreignPayment = await foreignLedger.payment({ invoice: foreignInvoice, amount: 5 });
      for (const id of ['0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a', 'not-a-uuid', foreignPayment]) {
        const res = await get(`${w.base}/payments/${id}`);
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('not_found');
      }
      expect((await call(w.app, 'GET', `/api/companies/${w.other}/payments/${payments.p1}`, { token: w.tokens.rival })).status).toBe(404);
    });

    it("lists one invoice's payments newest first, all statuses, and 404s unknown or foreign invoices", async () => {
      const { invoices, payments } = await sampleLedger();
      const res = await get(`${w.base}/invoices/${invoices.b}/payments`);
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(2);
      expect(res.body.data.map((p: { id: string }) => p.id)).toEqual([payments.p4, payments.p3]);
      for (const p of res.body.data) expect(Object.keys(p).sort()).toEqual(PAYMENT_KEYS);
      const empty = await l.invoice({ customer, number: 'INV-EMPTY', total: 5 });
      expect((await get(`${w.base}/invoices/${empty}/payments`)).body).toEqual({ count: 0, data: [] });
      expect((await get(`${w.base}/invoices/0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a/payments`)).status).toBe(404);
      expect((await call(w.app, 'GET', `/api/companies/${w.other}/invoices/${invoices.b}/payments`, { token: w.tokens.rival })).status).toBe(404);
    });
  });

  describe('POST /payments (extension)', () => {
    it('records a partial then a settling payment, moving the invoice to closed paid in the same transaction', async () => {
      const invoice = await l.invoice({ customer, number: 'INV-1', total: 250.75, dueDate: '2026-11-01' });
      const first = await post(`${w.base}/payments`, {
        invoice,
        amount: 100.25,
        payment_date: '2026-11-10',
        payment_method: 'wire',
        payment_type: 'payment',
        transaction_id: 'TX-1',
        remote_id: 'R-1',
        notes: ' first instalment ',
      });
      expect(first.status).toBe(201);
      expect(first.body).toMatchObject({
        invoice,
        invoice_number: 'INV-1',
        company: w.company,
        amount: 100.25,
        payment_date: '2026-11-10',
        payment_method: 'WIRE',
        payment_type: 'PAYMENT',
        transaction_id: 'TX-1',
        remote_id: 'R-1',
        status: 'PARTIAL',
        notes: 'first instalment',
      });
      expect(await invoiceRow(invoice)).toEqual({ paid_amount: 10_025, balance: 15_050, closing_reason: null, closed_date: null });

      const second = await post(`${w.base}/payments`, { invoice, amount: 150.5 });
      expect(second.status).toBe(201);
      expect(second.body).toMatchObject({ status: 'PAID', payment_date: '2026-11-23', payment_method: 'OTHER', payment_type: 'PAYMENT' });
      expect(await invoiceRow(invoice)).toEqual({ paid_amount: 25_075, balance: 0, closing_reason: 'paid', closed_date: '2026-11-23' });
    });

    it('records each write as a change: the payment and the invoice, under one command', async () => {
      const invoice = await l.invoice({ customer, number: 'INV-1', total: 10 });
      const res = await post(`${w.base}/payments`, { invoice, amount: 10 });
      const changes = await w.engine.db.selectFrom('changes').selectAll().where('command', '=', 'record_payment').where('company_id', '=', w.company).orderBy('seq').execute();
      expect(changes.map((c) => [c.entity, c.entity_id, c.op])).toEqual([
        ['payment', res.body.id, 'insert'],
        ['invoice', invoice, 'update'],
      ]);
      expect(changes.every((c) => c.company_id === w.company && c.user_id !== null)).toBe(true);
      expect(JSON.parse(changes[1].data)).toMatchObject({ paid_amount: 1_000, balance: 0, closing_reason: 'paid' });
    });

    it('allows an overpayment, closing the invoice as overpaid', async () => {
      const invoice = await l.invoice({ customer, number: 'INV-1', total: 100 });
      const res = await post(`${w.base}/payments`, { invoice, amount: 120, payment_date: '2026-11-20' });
      expect(res.body.status).toBe('PAID');
      expect(await invoiceRow(invoice)).toEqual({ paid_amount: 12_000, balance: -2_000, closing_reason: 'overpaid', closed_date: '2026-11-20' });
    });

    it('keeps PENDING and FAILED payments out of paid_amount', async () => {
      const invoice = await l.invoice({ customer, number: 'INV-1', total: 100 });
      expect((await post(`${w.base}/payments`, { invoice, amount: 100, status: 'PENDING' })).body.status).toBe('PENDING');
      expect((await post(`${w.base}/payments`, { invoice, amount: 100, status: 'FAILED' })).body.status).toBe('FAILED');
      expect(await invoiceRow(invoice)).toEqual({ paid_amount: 0, balance: 10_000, closing_reason: null, closed_date: null });
    });

    it('refuses payments on invoices closed by a credit memo or written off with 409', async () => {
      for (const closingReason of ['credit_memo', 'written_off'] as const) {
        const invoice = await l.invoice({ customer, number: `INV-${closingReason}`, total: 100, closingReason });
        const res = await post(`${w.base}/payments`, { invoice, amount: 10 });
        expect(res.status).toBe(409);
        expect(res.body.code).toBe('invoice_closed');
      }
      expect(await w.engine.db.selectFrom('payments').select('id').where('company_id', '=', w.company).execute()).toEqual([]);
    });

    it('refuses a second payment with the same remote_id with 409 and writes nothing', async () => {
      const invoice = await l.invoice({ customer, number: 'INV-1', total: 100 });
      expect((await post(`${w.base}/payments`, { invoice, amount: 10, remote_id: 'R-1' })).status).toBe(201);
      const dup = await post(`${w.base}/payments`, { invoice, amount: 10, remote_id: 'R-1' });
      expect(dup.status).toBe(409);
      expect(dup.body.code).toBe('duplicate_remote_id');
      expect(await invoiceRow(invoice)).toMatchObject({ paid_amount: 1_000 });
    });

    it('answers 400 with field errors for every kind of bad body', async () => {
      const invoice = await l.invoice({ customer, number: 'INV-1', total: 100 });
      const foreignLedger = ledger(w.engine, w.other);
      const foreignInvoice = await foreignLedger.invoice({ customer: await foreignLedger.customer({ name: 'Elsewhere' }), number: 'X-1', total: 10 });
      const cases: Array<[unknown, string]> = [
        [{ amount: 10 }, 'invoice'],
        [{ invoice }, 'amount'],
        [{ invoice, amount: 0 }, 'amount'],
        [{ invoice, amount: -1 }, 'amount'],
        [{ invoice, amount: 1.234 }, 'amount'],
        [{ invoice, amount: '10' }, 'amount'],
        [{ invoice, amount: 10, payment_date: '2026-11-31' }, 'payment_date'],
        [{ invoice, amount: 10, payment_date: '2026-11-24' }, 'payment_date'],
        [{ invoice, amount: 10, status: 'VOIDED' }, 'status'],
        [{ invoice, amount: 10, payment_method: '' }, 'payment_method'],
        [{ invoice, amount: 10, notes: 'x'.repeat(5001) }, 'notes'],
        [{ invoice: 'nope', amount: 10 }, 'invoice'],
        [{ invoice: '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a', amount: 10 }, 'invoice'],
        [{ invoice: foreignInvoice, amount: 10 }, 'invoice'],
        [{ invoice, amount: 10, paymentDate: '2026-11-01' }, 'non_field_errors'],
      ];
      for (const [body, field] of cases) {
        const res = await post(`${w.base}/payments`, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.headers.get('content-type')).toContain('application/problem+json');
        expect(Object.keys(res.body.errors), JSON.stringify(body)).toContain(field);
      }
      expect((await post(`${w.base}/payments`, '{"invoice":')).status).toBe(400);
      expect(await w.engine.db.selectFrom('payments').select('id').where('company_id', '=', w.company).execute()).toEqual([]);
    });

    it('forbids viewers from recording payments', async () => {
      const invoice = await l.invoice({ customer, number: 'INV-1', total: 100 });
      const res = await call(w.app, 'POST', `${w.base}/payments`, { token: w.tokens.watcher, body: { invoice, amount: 10 } });
      expect(res.status).toBe(403);
      expect((await call(w.app, 'GET', `${w.base}/payments`, { token: w.tokens.watcher })).status).toBe(200);
    });
  });

  describe('void, settle, fail (extension)', () => {
    it('voids a payment and reopens the invoice in the same transaction; voiding again changes nothing', async () => {
      const invoice = await l.invoice({ customer, number: 'INV-1', total: 100, dueDate: '2026-11-01' });
      const payment = (await post(`${w.base}/payments`, { invoice, amount: 100, payment_date: '2026-11-05' })).body;
      expect(await invoiceRow(invoice)).toMatchObject({ closing_reason: 'paid' });
      w.engine.clock.set('2026-11-24T09:00:00.000Z');
      const voided = await post(`${w.base}/payments/${payment.id}/void`);
      expect(voided.status).toBe(200);
      expect(voided.body).toEqual({ ...payment, status: 'VOIDED' });
      expect(await invoiceRow(invoice)).toEqual({ paid_amount: 0, balance: 10_000, closing_reason: null, closed_date: null });
      const row = await w.engine.db.selectFrom('payments').select(['voided_at', 'updated_at']).where('id', '=', payment.id).executeTakeFirstOrThrow();
      expect(row).toEqual({ voided_at: '2026-11-24T09:00:00.000Z', updated_at: '2026-11-24T09:00:00.000Z' });

      w.engine.clock.set('2026-11-25T09:00:00.000Z');
      const again = await post(`${w.base}/payments/${payment.id}/void`);
      expect(again.status).toBe(200);
      expect(again.body.status).toBe('VOIDED');
      expect((await w.engine.db.selectFrom('payments').select('voided_at').where('id', '=', payment.id).executeTakeFirstOrThrow()).voided_at).toBe('2026-11-24T09:00:00.000Z');
      const voids = await w.engine.db.selectFrom('changes').select('entity').where('command', '=', 'void_payment').where('company_id', '=', w.company).execute();
      expect(voids.map((c) => c.entity)).toEqual(['payment', 'invoice']);
      expect((await get(`${w.base}/payments?status=VOIDED`)).body.count).toBe(1);
      expect((await get(`${w.base}/payments?status=PAID`)).body.count).toBe(0);
    });

    it('settles a PENDING payment as PAID or PARTIAL against the open balance', async () => {
      const invoice = await l.invoice({ customer, number: 'INV-1', total: 100 });
      const pending = (await post(`${w.base}/payments`, { invoice, amount: 40, status: 'PENDING' })).body;
      const settled = await post(`${w.base}/payments/${pending.id}/settle`);
      expect(settled.body.status).toBe('PARTIAL');
      expect(await invoiceRow(invoice)).toMatchObject({ paid_amount: 4_000, balance: 6_000 });
      expect((await post(`${w.base}/payments/${pending.id}/settle`)).body.status).toBe('PARTIAL');
      const rest = (await post(`${w.base}/payments`, { invoice, amount: 60, status: 'PENDING' })).body;
      expect((await post(`${w.base}/payments/${rest.id}/settle`)).body.status).toBe('PAID');
      expect(await invoiceRow(invoice)).toMatchObject({ paid_amount: 10_000, balance: 0, closing_reason: 'paid' });
    });

    it('fails a PENDING payment, and refuses to settle or fail what is not pending with 400', async () => {
      const invoice = await l.invoice({ customer, number: 'INV-1', total: 100 });
      const pending = (await post(`${w.base}/payments`, { invoice, amount: 40, status: 'PENDING' })).body;
      expect((await post(`${w.base}/payments/${pending.id}/fail`)).body.status).toBe('FAILED');
      expect((await post(`${w.base}/payments/${pending.id}/fail`)).status).toBe(200);
      const settleFailed = await post(`${w.base}/payments/${pending.id}/settle`);
      expect(settleFailed.status).toBe(400);
      expect(settleFailed.body.code).toBe('invalid_payment_transition');
      const paid = (await post(`${w.base}/payments`, { invoice, amount: 10 })).body;
      expect((await post(`${w.base}/payments/${paid.id}/fail`)).status).toBe(400);
      expect(await invoiceRow(invoice)).toMatchObject({ paid_amount: 1_000 });
    });

    it('keeps the reason given for a void, settle or fail, and refuses an unknown body field', async () => {
      const invoice = await l.invoice({ customer, number: 'INV-1', total: 100 });
      const pending = (await post(`${w.base}/payments`, { invoice, amount: 40, status: 'PENDING' })).body;
      expect(pending.status_reason).toBeNull();
      expect((await post(`${w.base}/payments/${pending.id}/fail`, { reason: 'x', extra: 1 })).status).toBe(400);
      expect((await post(`${w.base}/payments/${pending.id}/fail`, { reason: 'x'.repeat(501) })).status).toBe(400);
      expect((await get(`${w.base}/payments/${pending.id}`)).body.status).toBe('PENDING');
      const failed = await post(`${w.base}/payments/${pending.id}/fail`, { reason: '  Returned ACH R01 ' });
      expect(failed.body).toMatchObject({ status: 'FAILED', status_reason: 'Returned ACH R01' });
      const change = await w.engine.db.selectFrom('changes').select('data').where('command', '=', 'fail_payment').where('entity', '=', 'payment').where('company_id', '=', w.company).executeTakeFirstOrThrow();
      expect(JSON.parse(change.data as string)).toMatchObject({ status: 'FAILED', status_reason: 'Returned ACH R01' });
    });

    it('answers 404 for unknown or foreign payments', async () => {
      const invoice = await l.invoice({ customer, number: 'INV-1', total: 100 });
      const payment = (await post(`${w.base}/payments`, { invoice, amount: 10 })).body;
      for (const op of ['void', 'settle', 'fail']) {
        expect((await post(`${w.base}/payments/0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a/${op}`)).status).toBe(404);
        expect((await call(w.app, 'POST', `/api/companies/${w.other}/payments/${payment.id}/${op}`, { token: w.tokens.rival })).status).toBe(404);
      }
      expect((await get(`${w.base}/payments/${payment.id}`)).body.status).toBe('PARTIAL');
    });
  });

  it('keeps payment_day_totals equal to the payments it summarises', async () => {
    const { payments } = await sampleLedger();
    await post(`${w.base}/payments/${payments.p2}/void`);
    const totals = await w.engine.db
      .selectFrom('payment_day_totals')
      .select(['payment_date', 'status', 'payment_method', 'payment_count', 'amount'])
      .where('company_id', '=', w.company)
      .orderBy('payment_date')
      .orderBy('status')
      .orderBy('payment_method')
      .execute();
    const grouped = await w.engine.db
      .selectFrom('payments')
      .select(['payment_date', 'status', 'payment_method', (eb) => eb.fn.countAll<number>().as('payment_count'), (eb) => eb.fn.sum<number>('amount').as('amount')])
      .where('company_id', '=', w.company)
      .groupBy(['payment_date', 'status', 'payment_method'])
      .orderBy('payment_date')
      .orderBy('status')
      .orderBy('payment_method')
      .execute();
    expect(totals).toEqual(grouped);
    expect(totals.find((t) => t.status === 'VOIDED')).toMatchObject({ payment_method: 'CHECK', payment_count: 1, amount: 40_000 });
  });
});
