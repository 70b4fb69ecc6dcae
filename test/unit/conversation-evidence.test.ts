import { describe, expect, it } from 'vitest';
import { customerConversationSummary, invoiceConversationSummary } from '../../core/intelligence/conversation';
import type { Communication, CustomerFacts, OpenInvoice } from '../../core/intelligence/facts';
import { evidenceLine } from '../../renderer/src/insights/describe';

const TODAY = '2026-11-23';

const comm = (id: string, fields: Partial<Communication> & Pick<Communication, 'occurredAt' | 'direction'>): Communication => ({
  id,
  invoiceId: null,
  kind: 'email',
  subject: null,
  body: null,
  authorName: 'Ana',
  promiseDate: null,
  promiseAmount: null,
  reading: null,
  ...fields,
});

const invoice: OpenInvoice = {
  id: 'inv-1',
  customerId: 'cust-1',
  number: 'INV-1',
  invoiceDate: '2026-09-01',
  dueDate: '2026-10-01',
  currency: 'USD',
  totalAmount: 100_000,
  balance: 100_000,
  billChannel: null,
  disputed: false,
  disputedAt: null,
  promiseLabel: null,
  lastPaymentDate: null,
  lastTouchAt: null,
};

const customer = (communications: Communication[]): CustomerFacts => ({
  id: 'cust-1',
  name: 'Harbor Foods',
  currency: 'USD',
  paymentTermsDays: 30,
  openInvoices: [invoice],
  communications,
  actions: [],
  reach: { phone: true, email: true, emailConnection: true },
});

const lines = (draft: { evidence: Array<{ fact: string; value?: unknown; source: string }> }) => draft.evidence.map(evidenceLine);

/** Issue 24: the summary read "The customer last wrote or called on (communication)", with nothing after "on". */
describe("a conversation summary's evidence", () => {
  it('leaves out when the customer last wrote while they never did', () => {
    const ours = [comm('c1', { occurredAt: '2026-11-02T09:00:00.000Z', direction: 'outbound', subject: 'INV-1 is past due' })];
    const said = lines(invoiceConversationSummary(customer(ours), invoice, null, TODAY));
    expect(said.some((l) => /last wrote/.test(l))).toBe(false);
    for (const line of said) expect(line).not.toMatch(/ on \(|: \(|:\s*$/);
  });

  it('says the day in words when they did', () => {
    const thread = [
      comm('c1', { occurredAt: '2026-11-02T09:00:00.000Z', direction: 'outbound', subject: 'INV-1 is past due' }),
      comm('c2', { occurredAt: '2026-11-20T15:30:00.000Z', direction: 'inbound', subject: 'Re: INV-1', body: 'We are checking with accounts.' }),
    ];
    const said = lines(invoiceConversationSummary(customer(thread), invoice, null, TODAY));
    expect(said).toContain('The customer last wrote or called on: Nov 20, 2026 (communication)');
  });

  it('takes its last touch from the last contact with the customer, not from an internal note after it', () => {
    const thread = [
      comm('c1', { occurredAt: '2026-11-20T15:30:00.000Z', direction: 'inbound', subject: 'Re: INV-1' }),
      comm('c2', { occurredAt: '2026-11-21T10:00:00.000Z', direction: 'internal', kind: 'note', subject: 'Dispute opened', invoiceId: 'inv-1' }),
    ];
    expect(invoiceConversationSummary(customer(thread), invoice, null, TODAY).payload.last_touch).toMatchObject({ at: '2026-11-20T15:30:00.000Z', direction: 'inbound' });
    expect(customerConversationSummary(customer(thread), null, null, TODAY).payload.last_touch).toMatchObject({ at: '2026-11-20T15:30:00.000Z', direction: 'inbound' });
    const onlyNotes = [comm('c3', { occurredAt: '2026-11-21T10:00:00.000Z', direction: 'internal', kind: 'note', subject: 'Call them Monday' })];
    expect(invoiceConversationSummary(customer(onlyNotes), invoice, null, TODAY).payload.last_touch).toEqual({});
  });
});
