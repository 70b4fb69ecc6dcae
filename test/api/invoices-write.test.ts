import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemActor } from '../../core/engine';
import { recordPayment } from '../../core/payments/commands';
import { call } from '../support/api';
import { addCustomer, addInvoice, addLabel, type InvoiceWorld, invoiceWorld, pastDue, TODAY } from '../support/invoice-fixtures';

describe('invoice writes', () => {
  let w: InvoiceWorld;
  let base: string;
  let customer: string;
  let foreignCustomer: string;
  let disputed: string;
  let promise: string;
  let foreignLabel: string;

  // One world for the file (logins hash passwords, which is slow); each test makes its own invoices.
  beforeAll(async () => {
    w = await invoiceWorld();
    base = `/api/companies/${w.company}/invoices`;
    customer = await addCustomer(w.engine, w.company, { name: 'Globex', paymentTermsDays: 45 });
    foreignCustomer = await addCustomer(w.engine, w.other, { name: 'Elsewhere Ltd' });
    disputed = await addLabel(w.engine, w.company, 'Disputed');
    promise = await addLabel(w.engine, w.company, 'Promise to pay');
    foreignLabel = await addLabel(w.engine, w.other, 'Theirs');
  });
  afterAll(() => w.dispose());

  let serial = 0;
  /** A unique invoice number, so tests sharing the world never collide. */
  const num = (prefix: string) => `${prefix}-${++serial}`;
  const invoiceCount = () => w.engine.database.sqlite.prepare('SELECT count(*) FROM invoices').pluck().get() as number;

  const send = (method: string, path: string, body?: unknown, token = w.token) => call(w.app, method, `${base}${path}`, { token, body });
  const changes = (entityId: string) =>
    w.engine.database.sqlite.prepare('SELECT command, entity, op, data FROM changes WHERE entity_id = ? OR entity_id LIKE ? ORDER BY seq').all(entityId, `${entityId}:%`) as Array<{
      command: string;
      entity: string;
      op: string;
      data: string;
    }>;

  describe('POST', () => {
    it('creates with defaults: issued today, due after the customer’s terms, a generated number, nothing paid', async () => {
      const res = await send('POST', '', { customer, total_amount: 1250.5 });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        customer,
        customer_name: 'Globex',
        invoice_date: TODAY,
        due_date: '2027-01-07',
        total_amount: 1250.5,
        paid_amount: 0,
        balance: 1250.5,
        status: 'current',
        currency: 'USD',
        labels: [],
        transaction_type: 'invoice',
        is_progress_invoice: false,
      });
      expect(res.body.invoice_number).toMatch(/^INV-\d{6}$/);
      expect(res.body).not.toHaveProperty('dunning_plan');
      const again = await send('POST', '', { customer, total_amount: 10 });
      expect(again.body.invoice_number).not.toBe(res.body.invoice_number);
      expect(changes(res.body.id)).toEqual([expect.objectContaining({ command: 'create_invoice', entity: 'invoice', op: 'insert' })]);
      const listed = await call(w.app, 'GET', `${base}?search=${res.body.invoice_number}`, { token: w.token });
      expect(listed.body.items.map((i: { id: string }) => i.id)).toContain(res.body.id);
    });

    it('generates the number from the company’s own invoice count, past numbers already taken', async () => {
      await addInvoice(w.engine, w.other, foreignCustomer, { number: num('THEIRS'), dueDate: TODAY });
      const own = w.engine.database.sqlite.prepare('SELECT count(*) FROM invoices WHERE company_id = ?').pluck().get(w.company) as number;
      const taken = `INV-${String(own + 2).padStart(6, '0')}`;
      expect((await send('POST', '', { customer, total_amount: 10, number: taken })).status).toBe(201);
      const res = await send('POST', '', { customer, total_amount: 10 });
      expect(res.body.invoice_number).toBe(`INV-${String(own + 3).padStart(6, '0')}`);
    });

    it('takes every writable field, issue_date or its alias invoice_date, and labels', async () => {
      const res = await send('POST', '', {
        customer: customer.toUpperCase(),
        total_amount: 99.99,
        issue_date: '2026-10-01',
        due_date: '2026-10-31',
        number: ' A-100 ',
        payment_link: 'https://pay.example.com/A-100',
        next_follow_up_date: '2026-11-30',
        label_ids: [disputed, disputed],
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        invoice_number: 'A-100',
        invoice_date: '2026-10-01',
        due_date: '2026-10-31',
        status: 'past_due_1_30',
        payment_link: 'https://pay.example.com/A-100',
        next_follow_up_date: '2026-11-30',
        labels: [{ id: disputed, name: 'Disputed' }],
      });
      const alias = await send('POST', '', { customer, total_amount: 5, invoice_date: '2026-11-01' });
      expect(alias.body).toMatchObject({ invoice_date: '2026-11-01', due_date: '2026-12-16' });
    });

    it('answers 409 for a number already used in the company, but not for one used by another company', async () => {
      const number = num('DUP');
      await addInvoice(w.engine, w.company, customer, { number, dueDate: pastDue(0) });
      const dup = await send('POST', '', { customer, total_amount: 5, number });
      expect(dup.status).toBe(409);
      expect(dup.body.code).toBe('duplicate_invoice_number');
      const theirs = await call(w.app, 'POST', `/api/companies/${w.other}/invoices`, { token: w.token, body: { customer: foreignCustomer, total_amount: 5, number } });
      expect(theirs.status).toBe(201);
    });

    it.each([
      [{ total_amount: 5 }, 'customer'],
      [{ customer: 'nope', total_amount: 5 }, 'customer'],
      [{ customer: 'FOREIGN', total_amount: 5 }, 'customer'],
      [{ customer: 'OURS' }, 'total_amount'],
      [{ customer: 'OURS', total_amount: 0 }, 'total_amount'],
      [{ customer: 'OURS', total_amount: -3 }, 'total_amount'],
      [{ customer: 'OURS', total_amount: 1.234 }, 'total_amount'],
      [{ customer: 'OURS', total_amount: 1e-9 }, 'total_amount'],
      [{ customer: 'OURS', total_amount: '12' }, 'total_amount'],
      [{ customer: 'OURS', total_amount: 5, due_date: '2026-13-01' }, 'due_date'],
      [{ customer: 'OURS', total_amount: 5, issue_date: '2026-11-20', due_date: '2026-11-19' }, 'due_date'],
      [{ customer: 'OURS', total_amount: 5, issue_date: '2026-11-20', invoice_date: '2026-11-21' }, 'issue_date'],
      [{ customer: 'OURS', total_amount: 5, number: '   ' }, 'number'],
      [{ customer: 'OURS', total_amount: 5, payment_link: 'ftp://x.example.com' }, 'payment_link'],
      [{ customer: 'OURS', total_amount: 5, label_ids: ['x'] }, 'label_ids.0'],
      [{ customer: 'OURS', total_amount: 5, label_ids: ['THEIRS'] }, 'label_ids'],
      [{ customer: 'OURS', total_amount: 5, paid_amount: 5 }, 'non_field_errors'],
      [{ customer: 'OURS', total_amount: 5, balance: 0 }, 'non_field_errors'],
    ])('answers 400 problem+json for %j (field %s)', async (raw, field) => {
      const body = JSON.parse(JSON.stringify(raw).replace('"OURS"', `"${customer}"`).replace('"FOREIGN"', `"${foreignCustomer}"`).replace('"THEIRS"', `"${foreignLabel}"`));
      const before = invoiceCount();
      const res = await send('POST', '', body);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body.errors[field], JSON.stringify(res.body)).toBeDefined();
      expect(invoiceCount()).toBe(before);
    });

    it('answers 400 for malformed JSON, 415 for a body that is not JSON, 403 for a viewer', async () => {
      const malformed = await call(w.app, 'POST', base, { token: w.token, body: '{"customer": ' });
      expect(malformed.status).toBe(400);
      expect(malformed.headers.get('content-type')).toContain('application/problem+json');
      const text = await call(w.app, 'POST', base, { token: w.token, body: 'customer=x', headers: { 'content-type': 'text/plain' } });
      expect(text.status).toBe(415);
      const viewer = await send('POST', '', { customer, total_amount: 5 }, w.viewerToken);
      expect(viewer.status).toBe(403);
    });
  });

  describe('PATCH', () => {
    let id: string;
    beforeEach(async () => {
      id = await addInvoice(w.engine, w.company, customer, { number: num('P'), dueDate: pastDue(10), invoiceDate: pastDue(40), labels: [disputed] });
    });

    it('updates the given fields only and clears with null', async () => {
      const res = await send('PATCH', `/${id}`, { due_date: pastDue(-5), payment_link: 'https://pay.example.com/a', next_follow_up_date: '2026-12-01' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ due_date: pastDue(-5), status: 'current', payment_link: 'https://pay.example.com/a', next_follow_up_date: '2026-12-01', labels: [{ id: disputed }] });
      expect(res.body.updated_at).toBe('2026-11-23T12:00:00.000Z');
      const cleared = await send('PATCH', `/${id}`, { payment_link: null });
      expect(cleared.body).toMatchObject({ payment_link: null, next_follow_up_date: '2026-12-01' });
      expect(changes(id).filter((c) => c.command === 'update_invoice')).toHaveLength(2);
    });

    it('replaces the whole label set atomically with the other fields', async () => {
      const res = await send('PATCH', `/${id}`, { label_ids: [promise], next_follow_up_date: '2026-12-02' });
      expect(res.body.labels.map((l: { id: string }) => l.id)).toEqual([promise]);
      const ops = changes(id).filter((c) => c.entity === 'invoice_label').map((c) => c.op);
      expect(ops.sort()).toEqual(['delete', 'insert']);

      // One unknown label: nothing at all changes, not the labels and not the date.
      const failed = await send('PATCH', `/${id}`, { label_ids: [disputed, foreignLabel], next_follow_up_date: '2027-01-01' });
      expect(failed.status).toBe(400);
      expect(failed.body.errors.label_ids[0]).toContain(foreignLabel);
      const after = await send('GET', `/${id}`);
      expect(after.body.labels.map((l: { id: string }) => l.id)).toEqual([promise]);
      expect(after.body.next_follow_up_date).toBe('2026-12-02');

      expect((await send('PATCH', `/${id}`, { label_ids: [] })).body.labels).toEqual([]);
    });

    it('refuses a due date before the invoice date, an unknown field and a bad link', async () => {
      for (const [body, field] of [
        [{ due_date: pastDue(41) }, 'due_date'],
        [{ due_date: 'tomorrow' }, 'due_date'],
        [{ total_amount: 5 }, 'non_field_errors'],
        [{ payment_link: 'not a url' }, 'payment_link'],
        [{ label_ids: 'x' }, 'label_ids'],
      ] as const) {
        const res = await send('PATCH', `/${id}`, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.errors[field], JSON.stringify(res.body)).toBeDefined();
      }
    });

    it('answers 404 for unknown, malformed and other-company ids', async () => {
      const theirs = await addInvoice(w.engine, w.other, foreignCustomer, { number: num('X'), dueDate: pastDue(1) });
      for (const target of [theirs, '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a', 'nope']) {
        for (const [method, body] of [
          ['GET', undefined],
          ['PATCH', { next_follow_up_date: '2026-12-01' }],
          ['PUT', { customer, total_amount: 5, invoice_date: TODAY, due_date: TODAY, number: num('Z') }],
        ] as const) {
          const res = await send(method, `/${target}`, body);
          expect(res.status, `${method} ${target}`).toBe(404);
          expect(res.headers.get('content-type')).toContain('application/problem+json');
        }
      }
      const untouched = await call(w.app, 'GET', `/api/companies/${w.other}/invoices/${theirs}`, { token: w.token });
      expect(untouched.body.next_follow_up_date).toBeNull();
    });
  });

  describe('PUT', () => {
    let id: string;
    let number: string;
    beforeEach(async () => {
      number = num('R');
      id = await addInvoice(w.engine, w.company, customer, { number, dueDate: pastDue(10), invoiceDate: pastDue(40), total: 100, labels: [disputed] });
      await send('PATCH', `/${id}`, { payment_link: 'https://pay.example.com/a', next_follow_up_date: '2026-12-01' });
    });

    const full = (over: Record<string, unknown> = {}) => ({ customer, total_amount: 100, invoice_date: pastDue(40), due_date: pastDue(10), number, ...over });

    it('requires customer, total_amount, invoice_date (or issue_date), due_date and number', async () => {
      const res = await send('PUT', `/${id}`, { customer });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.errors).sort()).toEqual(['due_date', 'number', 'total_amount']);
      const noDate = await send('PUT', `/${id}`, { ...full(), invoice_date: undefined });
      expect(noDate.status).toBe(400);
      expect(noDate.body.errors.invoice_date).toBeDefined();
      const alias = await send('PUT', `/${id}`, { ...full(), invoice_date: undefined, issue_date: pastDue(35) });
      expect(alias.body.invoice_date).toBe(pastDue(35));
    });

    it('replaces the fields: omitted optional ones are cleared, labels kept unless given', async () => {
      const other = await addCustomer(w.engine, w.company, { name: 'Initech' });
      const renumbered = num('B');
      const res = await send('PUT', `/${id}`, full({ customer: other, number: renumbered, due_date: pastDue(-3), total_amount: 120 }));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        customer: other,
        customer_name: 'Initech',
        invoice_number: renumbered,
        status: 'current',
        total_amount: 120,
        balance: 120,
        payment_link: null,
        next_follow_up_date: null,
        labels: [{ id: disputed }],
      });
      const relabelled = await send('PUT', `/${id}`, full({ number: renumbered, label_ids: [promise] }));
      expect(relabelled.body.labels.map((l: { id: string }) => l.id)).toEqual([promise]);
    });

    it('recomputes paid amount, balance and closing from the payments when the total changes', async () => {
      await recordPayment(w.engine, { actor: systemActor, companyId: w.company }, { invoice: id, amount: 60, payment_date: pastDue(2) });
      const partial = await send('GET', `/${id}`);
      expect(partial.body).toMatchObject({ paid_amount: 60, balance: 40, status: 'past_due_1_30' });

      const paid = await send('PUT', `/${id}`, full({ total_amount: 60 }));
      expect(paid.body).toMatchObject({ total_amount: 60, paid_amount: 60, balance: 0, status: 'closed_paid', closing_reason: 'paid', closed_date: pastDue(2) });
      const over = await send('PUT', `/${id}`, full({ total_amount: 50 }));
      expect(over.body).toMatchObject({ balance: 0, balance_at_closing: -10, status: 'closed_overpaid' });
      const reopened = await send('PUT', `/${id}`, full({ total_amount: 75.25 }));
      expect(reopened.body).toMatchObject({ paid_amount: 60, balance: 15.25, status: 'past_due_1_30', closing_reason: null });

      const summary = await send('GET', '/summary');
      expect(summary.body.overdue_balance).toBeGreaterThanOrEqual(15.25);
    });

    it('answers 409 for another invoice’s number and 400 for a foreign customer', async () => {
      const taken = num('T');
      await addInvoice(w.engine, w.company, customer, { number: taken, dueDate: pastDue(1) });
      expect((await send('PUT', `/${id}`, full({ number: taken }))).status).toBe(409);
      expect((await send('PUT', `/${id}`, full())).status).toBe(200);
      const foreign = await send('PUT', `/${id}`, full({ customer: foreignCustomer }));
      expect(foreign.status).toBe(400);
      expect(foreign.body.errors.customer).toBeDefined();
    });
  });

  describe('PATCH /invoices/bulk', () => {
    let ids: string[];
    beforeEach(async () => {
      ids = [];
      for (let i = 0; i < 3; i++) ids.push(await addInvoice(w.engine, w.company, customer, { number: num('K'), dueDate: pastDue(5), labels: i === 0 ? [disputed] : [] }));
    });

    const labelsOf = async (id: string) => (await send('GET', `/${id}`)).body.labels.map((l: { id: string }) => l.id).sort();

    it('applies updates and label changes to every listed invoice and says how many', async () => {
      const res = await send('PATCH', '/bulk', {
        invoice_ids: [...ids, ids[0]],
        updates: { next_follow_up_date: '2026-12-05', payment_link: 'https://pay.example.com/all' },
        add_labels: [promise],
        remove_labels: [disputed],
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ updated: 3 });
      for (const id of ids) {
        const inv = (await send('GET', `/${id}`)).body;
        expect(inv).toMatchObject({ next_follow_up_date: '2026-12-05', payment_link: 'https://pay.example.com/all' });
        expect(inv.labels.map((l: { id: string }) => l.id)).toEqual([promise]);
        expect(changes(id).some((c) => c.command === 'bulk_update_invoices' && c.entity === 'invoice')).toBe(true);
      }
      // Adding a label already there keeps it once.
      expect((await send('PATCH', '/bulk', { invoice_ids: ids, add_labels: [promise] })).body).toEqual({ updated: 3 });
      expect(await labelsOf(ids[1])).toEqual([promise]);
    });

    it('is all or nothing: one unknown or foreign invoice or label id fails the whole request, naming it', async () => {
      const theirs = await addInvoice(w.engine, w.other, foreignCustomer, { number: num('X'), dueDate: pastDue(1) });
      const ghost = '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a';
      for (const [body, field, named] of [
        [{ invoice_ids: [...ids, ghost], updates: { next_follow_up_date: '2026-12-05' }, add_labels: [promise] }, 'invoice_ids', ghost],
        [{ invoice_ids: [...ids, theirs], add_labels: [promise] }, 'invoice_ids', theirs],
        [{ invoice_ids: ids, add_labels: [promise, foreignLabel] }, 'add_labels', foreignLabel],
        [{ invoice_ids: ids, remove_labels: [ghost] }, 'remove_labels', ghost],
      ] as const) {
        const res = await send('PATCH', '/bulk', body);
        expect(res.status).toBe(400);
        expect(res.body.errors[field][0]).toContain(named);
      }
      for (const id of ids) {
        const inv = (await send('GET', `/${id}`)).body;
        expect(inv.next_follow_up_date).toBeNull();
        expect(inv.labels.map((l: { id: string }) => l.id)).toEqual(id === ids[0] ? [disputed] : []);
      }
      expect(changes(ids[1]).filter((c) => c.command === 'bulk_update_invoices')).toEqual([]);
    });

    it('rolls back every row when one invoice refuses the new due date', async () => {
      const early = await addInvoice(w.engine, w.company, customer, { number: num('LATE'), dueDate: pastDue(-40), invoiceDate: pastDue(-30) });
      const res = await send('PATCH', '/bulk', { invoice_ids: [...ids, early], updates: { due_date: pastDue(-10) } });
      expect(res.status).toBe(400);
      expect(res.body.errors['updates.due_date'][0]).toContain(early);
      expect((await send('GET', `/${ids[0]}`)).body.due_date).toBe(pastDue(5));
    });

    it.each([
      [{ invoice_ids: [] }, 'invoice_ids'],
      [{ invoice_ids: ['not-a-uuid'], add_labels: ['x'] }, 'invoice_ids.0'],
      [{ add_labels: ['x'] }, 'invoice_ids'],
      [{ invoice_ids: 'IDS' }, 'non_field_errors'],
      [{ invoice_ids: 'IDS', updates: { total_amount: 5 } }, 'updates'],
      [{ invoice_ids: 'IDS', updates: { payment_link: 'nope' } }, 'updates.payment_link'],
      [{ invoice_ids: 'IDS', add_labels: ['L'], remove_labels: ['L'] }, 'remove_labels'],
    ])('answers 400 for %j', async (raw, field) => {
      const body = JSON.parse(JSON.stringify(raw).replace('"IDS"', JSON.stringify(ids)).replaceAll('"L"', `"${promise}"`));
      const res = await send('PATCH', '/bulk', body);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body.errors[field], JSON.stringify(res.body)).toBeDefined();
    });

    it('takes at most 1000 ids', async () => {
      const many = Array.from({ length: 1001 }, (_, i) => `0192f0c4-5f3e-7c4a-9a51-${String(i).padStart(12, '0')}`);
      const res = await send('PATCH', '/bulk', { invoice_ids: many, add_labels: [promise] });
      expect(res.status).toBe(400);
      expect(res.body.errors.invoice_ids).toBeDefined();
    });

    it('is not captured by the /invoices/{invoice_id} route, nor is the summary', async () => {
      expect((await send('PATCH', '/bulk', { invoice_ids: [ids[1]], add_labels: [promise] })).body).toEqual({ updated: 1 });
      const summary = await send('GET', '/summary');
      expect(summary.status).toBe(200);
      expect(summary.body.invoice_count).toBe(w.engine.database.sqlite.prepare('SELECT count(*) FROM invoices WHERE company_id = ?').pluck().get(w.company));
    });
  });
});
