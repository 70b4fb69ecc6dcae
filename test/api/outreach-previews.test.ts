import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addAction } from '../support/actions-fixtures';
import { activeSequence, addConnection, addCustomer, addInvoice, addTeamMember, closedPort, type SequenceWorld, sequenceWorld } from '../support/sequence-fixtures';

const MISSING = '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a';

/** The extensions the outreach screens read: rendered email previews and the actions filters by type and AR owner. */
describe('outreach previews and filters', () => {
  let w: SequenceWorld;
  beforeAll(async () => {
    w = await sequenceWorld();
  });
  beforeEach(() => w.fresh());
  afterAll(() => w.dispose());

  async function world() {
    const sender = await addConnection(w.engine, w.company, { name: 'Collections', port: await closedPort(), fromEmail: 'ar@acme.test', fromName: 'Acme AR', allowShared: true });
    const seq = await activeSequence(
      w,
      'Dunning',
      [{ label: 'First notice', offset_days: 0, offset_time: '06:00', subject_template: 'Invoice {{invoice_number}} for {{customer_name}}', body_plain_template: 'Hi {{contact_name}}, {{balance}} is due {{due_date}}. {{sender_name}} {{nope}}' }],
      { sender_connection_id: sender, timezone: 'UTC' },
    );
    const customer = await addCustomer(w.engine, w.company, { name: 'Zephyr & Sons', contactName: 'Ada Payables' });
    const invoice = await addInvoice(w.engine, w.company, customer, { number: 'INV-77', total: 123_456, dueDate: '2026-11-01' });
    return { sender, seq, customer, invoice };
  }

  it('renders unsaved templates for a real customer and invoice with the sequence sender, writing nothing', async () => {
    const { sender, seq, customer, invoice } = await world();
    const before = await w.engine.db.selectFrom('changes').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const res = await w.api('POST', w.path(`/sequences/${seq.id}/preview`), {
      customer_id: customer,
      subject_template: 'About {{invoice_number}}',
      body_plain_template: 'Dear {{contact_name}}, {{balance}} for {{customer_name}} from {{sender_name}}. {{typo}}',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      subject: 'About INV-77',
      to: 'billing@zephyrsons.test',
      contact_name: 'Ada Payables',
      sender: { id: sender, from_email: 'ar@acme.test', from_name: 'Acme AR' },
      customer,
      customer_name: 'Zephyr & Sons',
      invoice,
      invoice_number: 'INV-77',
      unknown_placeholders: ['typo'],
    });
    expect(res.body.body).toBe('Dear Ada Payables, $1,234.56 for Zephyr & Sons from Acme AR. {{typo}}');
    const after = await w.engine.db.selectFrom('changes').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });

  it('refuses a customer or invoice of another company, and an unknown sequence', async () => {
    const { seq } = await world();
    const foreign = await addCustomer(w.engine, w.other, { name: 'Foreign' });
    const bad = await w.api('POST', w.path(`/sequences/${seq.id}/preview`), { customer_id: foreign });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toHaveProperty('customer_id');
    const own = await addCustomer(w.engine, w.company, { name: 'Own' });
    const foreignInvoice = await addInvoice(w.engine, w.other, foreign, { number: 'X-1', total: 100, dueDate: '2026-11-01' });
    const badInvoice = await w.api('POST', w.path(`/sequences/${seq.id}/preview`), { customer_id: own, invoice_id: foreignInvoice });
    expect(badInvoice.status).toBe(400);
    expect(badInvoice.body.errors).toHaveProperty('invoice_id');
    expect((await w.api('POST', w.path(`/sequences/${MISSING}/preview`), { customer_id: own })).status).toBe(404);
    expect((await w.api('POST', w.path(`/sequences/${seq.id}/preview`), {})).status).toBe(400);
  });

  it("previews a ready queue step as the sender will send it, with the sequence's sender", async () => {
    const { sender, seq, customer } = await world();
    await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: customer, start_date: '2026-11-23' });
    const queue = await w.api('GET', w.path('/sequences/queue'));
    expect(queue.body.count).toBe(1);
    const row = queue.body.data[0];
    const res = await w.api('GET', w.path(`/sequences/queue/${row.id}/preview`));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ subject: 'Invoice INV-77 for Zephyr & Sons', to: 'billing@zephyrsons.test', sender: { id: sender }, unknown_placeholders: ['nope'] });
    expect(res.body.subject).toBe(row.email_subject);
    expect(res.body.body).toBe('Hi Ada Payables, $1,234.56 is due November 1, 2026. Acme AR {{nope}}');
    expect((await w.api('GET', w.path(`/sequences/queue/${MISSING}/preview`))).status).toBe(404);
    expect((await w.api('GET', w.path(`/sequences/queue/${row.id}/preview`, w.other), undefined, w.tokens.carol)).status).toBe(404);
  });

  it('filters actions by type and by the customer’s AR owner', async () => {
    const dana = await addTeamMember(w.engine, w.company, 'Dana');
    const owned = await addCustomer(w.engine, w.company, { name: 'Owned', arOwner: dana });
    const loose = await addCustomer(w.engine, w.company, { name: 'Loose' });
    const call = await addAction(w.engine, w.company, { customer_id: owned, action_type: 'call' });
    const email = await addAction(w.engine, w.company, { customer_id: loose, action_type: 'email' });
    const task = await addAction(w.engine, w.company, { customer_id: owned, action_type: 'task' });
    const ids = async (query: string) => {
      const res = await w.api('GET', w.path(`/actions${query}`));
      expect(res.status).toBe(200);
      return (res.body.data as Array<{ id: string }>).map((a) => a.id).sort();
    };
    expect(await ids('?action_type=call,task')).toEqual([call, task].sort());
    expect(await ids(`?ar_owner=${dana}`)).toEqual([call, task].sort());
    expect(await ids('?ar_owner=__unassigned__')).toEqual([email]);
    expect(await ids(`?ar_owner=${dana}&action_type=task`)).toEqual([task]);
    const bad = await w.api('GET', w.path('/actions?action_type=fax&ar_owner=nobody'));
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['action_type', 'ar_owner']);
  });
});
