import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../core/ids';
import { call } from '../support/api';
import { addCustomer, addInvoice, type InvoiceWorld, invoiceWorld, pastDue, TODAY } from '../support/invoice-fixtures';

/**
 * Issue 24: My work ranked a $356 invoice with a follow-up date above a $14,183 one 229 days late.
 * Only what the customer did (a reply waiting, a promise falling due) lifts a small invoice first.
 */
describe('the worklist order', () => {
  let w: InvoiceWorld;
  const ids: Record<string, string> = {};
  const now = `${TODAY}T12:00:00.000Z`;

  beforeAll(async () => {
    w = await invoiceWorld();
    const tri = await addCustomer(w.engine, w.company, { name: 'Tri-County' });
    const small = await addCustomer(w.engine, w.company, { name: 'Corner Cafe' });
    const add = async (key: string, customer: string, days: number, total: number) => {
      ids[key] = await addInvoice(w.engine, w.company, customer, { number: key, dueDate: pastDue(days), total });
    };
    await add('BIG-LATE', tri, 229, 14_183);
    await add('SMALL-FOLLOW', small, 12, 356);
    await add('MID', tri, 60, 2_500);
    const s = w.engine.database.sqlite;
    s.prepare('UPDATE invoices SET next_follow_up_date = ? WHERE id = ?').run(pastDue(1), ids['SMALL-FOLLOW']);
  });

  afterAll(() => w?.dispose());

  const worklist = async () => {
    const res = await call(w.app, 'GET', `/api/companies/${w.company}/invoices?attention=true`, { token: w.token });
    expect(res.status).toBe(200);
    return (res.body.items as Array<{ invoice_number: string; attention: Array<{ reason: string }> }>).map((i) => [i.invoice_number, i.attention.map((a) => a.reason)]);
  };

  it('puts a much larger and much later invoice above a small one with only a follow-up date', async () => {
    expect(await worklist()).toEqual([
      ['BIG-LATE', ['past_due']],
      ['MID', ['past_due']],
      ['SMALL-FOLLOW', ['follow_up_due', 'past_due']],
    ]);
  });

  it('lifts the small one first when the customer replied and nobody answered, or a promise falls due today', async () => {
    const s = w.engine.database.sqlite;
    const customer = (s.prepare('SELECT customer_id FROM invoices WHERE id = ?').get(ids['SMALL-FOLLOW']) as { customer_id: string }).customer_id;
    const reply = newId();
    s.prepare(
      `INSERT INTO communications (id, company_id, customer_id, invoice_id, kind, direction, subject, occurred_at, created_at) VALUES (?, ?, ?, ?, 'email', 'inbound', 'Re: invoice', ?, ?)`,
    ).run(reply, w.company, customer, ids['SMALL-FOLLOW'], '2026-11-22T09:00:00.000Z', now);
    expect((await worklist()).map(([n]) => n)).toEqual(['SMALL-FOLLOW', 'BIG-LATE', 'MID']);
    s.prepare('DELETE FROM communications WHERE id = ?').run(reply);

    const tri = (s.prepare('SELECT customer_id FROM invoices WHERE id = ?').get(ids['MID']) as { customer_id: string }).customer_id;
    s.prepare(
      `INSERT INTO actions (id, company_id, invoice_id, customer_id, action_type, status, description, metadata, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'task', 'proposed', 'Wait for the promised payment', ?, ?, ?)`,
    ).run(newId(), w.company, ids['MID'], tri, JSON.stringify({ commitment_date: TODAY }), now, now);
    const order = await worklist();
    expect(order.map(([n]) => n)).toEqual(['MID', 'BIG-LATE', 'SMALL-FOLLOW']);
    expect(order[0][1]).toEqual(['promise_due', 'past_due']);
  });
});
