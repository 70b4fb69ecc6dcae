import { describe, expect, it } from 'vitest';
import { addDays } from '../../core/dates';
import { type ActionFact, type CustomerFacts, listedIds, type OpenInvoice } from '../../core/intelligence/facts';
import { decidedInvoices, proposeActions } from '../../core/intelligence/proposals';
import { SMALL_BALANCE } from '../../core/intelligence/thresholds';
import { contactAnswers, isSuperseded } from '../../core/supersede/withdraw';

// One decision per invoice (issue 36, part 4): what the engine proposes beside decisions already open.
const TODAY = '2026-11-23';

const invoice = (id: string, fields: Partial<OpenInvoice> = {}): OpenInvoice => ({
  id,
  customerId: 'cust-1',
  number: id.toUpperCase(),
  invoiceDate: '2026-10-01',
  dueDate: '2026-10-31',
  currency: 'USD',
  totalAmount: 100_000,
  balance: 100_000,
  billChannel: null,
  disputed: false,
  disputedAt: null,
  promiseLabel: null,
  lastPaymentDate: null,
  lastTouchAt: null,
  ...fields,
});

const customer = (openInvoices: OpenInvoice[], actions: ActionFact[] = []): CustomerFacts => ({
  id: 'cust-1',
  name: 'Harbor Foods',
  currency: 'USD',
  paymentTermsDays: 30,
  openInvoices,
  communications: [],
  actions,
  reach: { phone: true, email: true, emailConnection: true },
});

const action = (fields: Partial<ActionFact>): ActionFact => ({ id: 'a', invoiceId: null, actionType: 'task', status: 'proposed', triggerKey: null, executedAt: null, rejected: false, deleted: false, ...fields });
const propose = (c: CustomerFacts) => proposeActions({ customer: c, promises: new Map(), customerSignal: null, companyName: 'Acme', today: TODAY });
const invoicesOf = (c: CustomerFacts) => [...new Set(propose(c).proposals.map((p) => p.invoiceId))];

describe('one decision per invoice', () => {
  it('proposes nothing for an invoice a person’s or the demo’s open decision covers, and still proposes for the others', () => {
    const two = [invoice('inv-1'), invoice('inv-2')];
    const listed = (c: CustomerFacts) => propose(c).proposals.map((p) => p.invoiceId ?? (p.metadata.invoice_ids as string[]).join('+'));
    // Both undecided: one decision on the customer listing them.
    expect(listed(customer(two))).toEqual(['inv-1+inv-2', 'inv-1+inv-2']);
    // Made through the API or by the seed: no trigger key.
    expect(invoicesOf(customer(two, [action({ invoiceId: 'inv-1', actionType: 'call' })]))).toEqual(['inv-2']);
    // A scheduled or approved (processing) one is open too; a carried out, cancelled or deleted one is not.
    for (const status of ['scheduled', 'processing']) expect(invoicesOf(customer(two, [action({ invoiceId: 'inv-1', status })]))).toEqual(['inv-2']);
    for (const closed of [{ status: 'completed' }, { status: 'cancelled' }, { deleted: true }]) {
      expect(listed(customer(two, [action({ invoiceId: 'inv-1', ...closed })]))).toEqual(['inv-1+inv-2', 'inv-1+inv-2']);
    }
  });

  it('a decision on the customer that lists invoices decides for them: no invoice-level proposal repeats it', () => {
    const three = [invoice('inv-1'), invoice('inv-2'), invoice('inv-3')];
    const listing = action({ id: 'statement', listedInvoiceIds: ['inv-1', 'inv-3'] });
    expect(invoicesOf(customer(three, [listing]))).toEqual(['inv-2']);
  });

  it('the engine’s own statement of small invoices leaves out an invoice already decided, and is proposed again for no invoice', () => {
    const small = [invoice('s-1', { balance: SMALL_BALANCE - 1 }), invoice('s-2', { balance: SMALL_BALANCE - 1, dueDate: '2026-10-20' }), invoice('s-3', { balance: SMALL_BALANCE - 1 })];
    const first = propose(customer(small)).proposals;
    const statement = first.find((p) => p.triggerKey.startsWith('statement:'))!;
    expect(statement.metadata.invoice_ids).toEqual(['s-2', 's-1', 's-3']);
    // A person's call on s-1 first: the statement lists the other two only.
    const withCall = propose(customer(small, [action({ invoiceId: 's-1', actionType: 'call' })])).proposals;
    expect(withCall.find((p) => p.triggerKey.startsWith('statement:'))!.metadata.invoice_ids).toEqual(['s-2', 's-3']);
    // The statement open: the next refresh proposes nothing, and keeps it (its trigger is still live).
    const open = first.map((p, i) => action({ id: `p${i}`, triggerKey: p.triggerKey, actionType: p.actionType, listedInvoiceIds: p.metadata.invoice_ids as string[] }));
    const again = propose(customer(small, open));
    expect(again.proposals).toEqual([]);
    expect(again.liveKeys.has(statement.triggerKey)).toBe(true);
  });

  it('an engine proposal whose trigger is gone does not block the one that replaces it in the same refresh', () => {
    // Proposed at 1-30 days late; now 31-60: the old key is stale (withdrawn), the new trigger is proposed at once.
    const c = customer([invoice('inv-1', { dueDate: '2026-10-10' })], [action({ invoiceId: 'inv-1', actionType: 'email', triggerKey: 'past_due_no_touch:inv-1:1_30' })]);
    const { proposals, liveKeys } = propose(c);
    expect(liveKeys.has('past_due_no_touch:inv-1:1_30')).toBe(false);
    expect(proposals.map((p) => p.triggerKey)).toContain('past_due_no_touch:inv-1:31_60');
    expect(decidedInvoices(c.actions, liveKeys).size).toBe(0);
  });

  it('several past-due invoices of one customer: one decision listing them, a call first when one is past its first month', () => {
    const granite = [invoice('inv-1', { dueDate: '2026-09-01' }), invoice('inv-2', { dueDate: '2026-09-20' }), invoice('inv-3', { dueDate: '2026-11-01' })];
    const { proposals } = propose(customer(granite));
    expect(proposals.map((p) => [p.actionType, p.invoiceId, p.topRecommendation, p.metadata.invoice_ids])).toEqual([
      ['call', null, 'recommended', ['inv-1', 'inv-2', 'inv-3']],
      ['email', null, 'alternative', ['inv-1', 'inv-2', 'inv-3']],
    ]);
    expect(proposals[0].triggerKey).toMatch(/^call_customer:cust-1:[0-9a-f]{16}$/);
    expect(proposals[0].description).toBe('Call Harbor Foods about 3 past-due invoices ($3,000.00)');
    expect(proposals[0].metadata.talking_points).toEqual(expect.arrayContaining(['INV-1: $1,000.00, due September 1, 2026', 'INV-3: $1,000.00, due November 1, 2026']));
    // A long list: the call's notes name the oldest ten, and say how many more the decision lists.
    const many = Array.from({ length: 14 }, (_, i) => invoice(`m-${String(i).padStart(2, '0')}`, { dueDate: addDays('2026-08-01', i) }));
    const notes = propose(customer(many)).proposals[0].metadata.talking_points as string[];
    expect(notes.slice(0, 10).map((n) => n.split(':')[0])).toEqual(many.slice(0, 10).map((i) => i.number));
    expect(notes[10]).toBe('and 4 more, listed with the decision');
    // Its email and evidence name the oldest 25 and count the rest; the list itself is whole.
    const thirty = Array.from({ length: 30 }, (_, i) => invoice(`t-${String(i).padStart(2, '0')}`, { balance: SMALL_BALANCE - 1, dueDate: addDays('2026-10-01', i) }));
    const statement = propose(customer(thirty)).proposals[0];
    expect((statement.metadata.invoice_ids as string[]).length).toBe(30);
    expect(statement.evidence).toHaveLength(26);
    expect(statement.evidence.at(-1)).toMatchObject({ fact: 'Other past-due invoices listed', value: 5 });
    expect(statement.metadata.draft_body).toContain('- T-24: $999.99, due October 25, 2026\n- and 5 more, on the statement attached\n');
    // Small balances alone never make it a call: the statement first.
    const small = granite.map((i) => ({ ...i, balance: SMALL_BALANCE - 1 }));
    expect(propose(customer(small)).proposals.map((p) => p.actionType)).toEqual(['email', 'call']);
  });

  it('an invoice whose own proposal was answered stays out of the list; one joining makes a new decision and the one before is withdrawn', () => {
    const two = [invoice('inv-1'), invoice('inv-2')];
    const rejected = action({ id: 'r', invoiceId: 'inv-1', actionType: 'email', status: 'cancelled', rejected: true, triggerKey: 'past_due_no_touch:inv-1:1_30' });
    expect(invoicesOf(customer(two, [rejected]))).toEqual(['inv-2']);
    // Proposed on its own when it was the only one past due: it joins the list, and its own proposal loses its trigger.
    const earlier = action({ id: 'e', invoiceId: 'inv-1', actionType: 'email', triggerKey: 'past_due_no_touch:inv-1:1_30' });
    const joined = propose(customer(two, [earlier]));
    expect(joined.proposals.map((p) => p.metadata.invoice_ids)).toEqual([['inv-1', 'inv-2'], ['inv-1', 'inv-2']]);
    expect(joined.liveKeys.has('past_due_no_touch:inv-1:1_30')).toBe(false);
    const first = propose(customer(two)).proposals;
    const open = first.map((p, i) => action({ id: `p${i}`, triggerKey: p.triggerKey, actionType: p.actionType, listedInvoiceIds: p.metadata.invoice_ids as string[] }));
    const three = [...two, invoice('inv-3')];
    const after = propose(customer(three, open));
    expect(after.liveKeys.has(first[0].triggerKey)).toBe(false);
    expect(after.proposals.map((p) => p.metadata.invoice_ids)).toEqual([['inv-1', 'inv-2', 'inv-3'], ['inv-1', 'inv-2', 'inv-3']]);
    // Approved (processing), it stands for its invoices: the newcomer is proposed on its own.
    const approved = [{ ...open[0], status: 'processing' }, { ...open[1], status: 'cancelled' }];
    expect(invoicesOf(customer(three, approved))).toEqual(['inv-3']);
  });

  it('reads the listed invoices of a customer-level action defensively (metadata may come from any API caller)', () => {
    expect(listedIds('["a","b"]')).toEqual(['a', 'b']);
    expect(listedIds('[1,"b",null]')).toEqual(['b']);
    expect(listedIds('"a"')).toEqual([]);
    expect(listedIds('not json')).toEqual([]);
    expect(listedIds(null)).toEqual([]);
  });
});

describe('a fact that takes an invoice out of the chase withdraws the decision on the customer listing it', () => {
  const merged = { invoiceId: null, actionType: 'call' as const, triggerKey: 'call_customer:cust-1:x', listedInvoiceIds: ['inv-1', 'inv-2'] };
  const on = (fact: Parameters<typeof isSuperseded>[0]) => isSuperseded(fact, merged);

  it('a promise, a dispute, such a label or a payment in full on one of its invoices; not a part payment, not another invoice', () => {
    expect(on({ kind: 'promise', customerId: 'cust-1', invoiceId: 'inv-2', date: '2026-12-04' })).toBe(true);
    expect(on({ kind: 'dispute', customerId: 'cust-1', invoiceId: 'inv-1', on: TODAY })).toBe(true);
    expect(on({ kind: 'label', customerId: 'cust-1', invoiceId: 'inv-1', label: 'Disputed', on: TODAY })).toBe(true);
    expect(on({ kind: 'payment', customerId: 'cust-1', invoiceId: 'inv-1', paidInFull: true, on: TODAY })).toBe(true);
    // A part payment leaves the invoice in the list: its decision stands (withdrawn, the same list would never be proposed again).
    expect(on({ kind: 'payment', customerId: 'cust-1', invoiceId: 'inv-1', paidInFull: false, on: TODAY })).toBe(false);
    expect(on({ kind: 'dispute', customerId: 'cust-1', invoiceId: 'inv-9', on: TODAY })).toBe(false);
    // A review of old balances is a task: it stays.
    expect(isSuperseded({ kind: 'dispute', customerId: 'cust-1', invoiceId: 'inv-1', on: TODAY }, { ...merged, actionType: 'task', triggerKey: 'old_balances:cust-1:inv-2' })).toBe(false);
  });

  it('and the next refresh proposes one decision for the others', () => {
    const three = [invoice('inv-1'), invoice('inv-2'), invoice('inv-3', { disputed: true })];
    const first = propose(customer([invoice('inv-1'), invoice('inv-2'), invoice('inv-3')])).proposals;
    const withdrawn = first.map((p, i) => action({ id: `p${i}`, status: 'cancelled', triggerKey: p.triggerKey, actionType: p.actionType, listedInvoiceIds: p.metadata.invoice_ids as string[] }));
    const after = propose(customer(three, withdrawn)).proposals;
    expect(after.filter((p) => p.invoiceId === null).map((p) => p.metadata.invoice_ids)).toEqual([['inv-1', 'inv-2'], ['inv-1', 'inv-2']]);
    expect(after.filter((p) => p.invoiceId === 'inv-3').map((p) => p.triggerKey)).toEqual(['dispute:inv-3']);
  });
});

describe('an email of ours withdraws the proposals it answers', () => {
  const fact = { kind: 'contact' as const, customerId: 'cust-1', invoiceIds: ['inv-1'], on: TODAY };

  it('proposals to email or call about that invoice, or a statement listing it, and the answer to a reply', () => {
    expect(isSuperseded(fact, { invoiceId: 'inv-1', actionType: 'email', triggerKey: 'past_due_no_touch:inv-1:1_30' })).toBe(true);
    expect(isSuperseded(fact, { invoiceId: 'inv-1', actionType: 'call', triggerKey: null })).toBe(true);
    expect(isSuperseded(fact, { invoiceId: null, actionType: 'email', triggerKey: 'statement:cust-1:x', listedInvoiceIds: ['inv-9', 'inv-1'] })).toBe(true);
    expect(isSuperseded(fact, { invoiceId: null, actionType: 'email', triggerKey: 'reply_received:c1' })).toBe(true);
  });

  it('not another invoice’s, not a task (a dispute to resolve, a contact to find, a promise to wait on)', () => {
    expect(contactAnswers(['inv-1'], { invoiceId: 'inv-2', actionType: 'email', triggerKey: null })).toBe(false);
    expect(contactAnswers(['inv-1'], { invoiceId: null, actionType: 'call', triggerKey: 'signal:cust-1:x' })).toBe(false);
    expect(contactAnswers(['inv-1'], { invoiceId: 'inv-1', actionType: 'task', triggerKey: 'dispute:inv-1' })).toBe(false);
    expect(contactAnswers([], { invoiceId: null, actionType: 'email', triggerKey: 'statement:cust-1:x', listedInvoiceIds: ['inv-1'] })).toBe(false);
  });
});
