import { describe, expect, it } from 'vitest';
import { conversationState, extractiveSummary, stressLevel, toneOf } from '../../core/intelligence/conversation';
import type { ActionFact, Communication, CustomerFacts, OpenInvoice } from '../../core/intelligence/facts';
import { portfolioSurvival } from '../../core/intelligence/conditional';
import { PayDateModel } from '../../core/intelligence/pay-date';
import { mergeScenarios, payDatePrediction } from '../../core/intelligence/predictions';
import { latestPromise, promiseIn } from '../../core/intelligence/promises';
import { proposeActions, REJECTIONS_TO_DEMOTE, unreachable } from '../../core/intelligence/proposals';
import { OLD_INVOICE_DAYS, WRITE_OFF_MAX } from '../../core/intelligence/thresholds';
import { balanceJump, customerSignal, invoiceSignal, patternShift, silenceAfterReminders } from '../../core/intelligence/signals';
import { chooseStrategy } from '../../core/intelligence/strategy';
import { addDays } from '../../core/dates';
import { customerFacts, openInvoice } from '../support/facts-fixtures';

const TODAY = '2026-11-23';

let n = 0;
const comm = (fields: Partial<Communication> & Pick<Communication, 'occurredAt'>): Communication => ({
  id: `c${++n}`,
  invoiceId: null,
  kind: 'email',
  direction: 'inbound',
  subject: null,
  body: null,
  authorName: null,
  promiseDate: null,
  promiseAmount: null,
  reading: null,
  ...fields,
});

const invoice = openInvoice;

const customer = customerFacts;

describe('promises read from what the customer said', () => {
  it('reads a payment date relative to when it was said, and ignores our own reminders and refusals', () => {
    const said = comm({ occurredAt: '2026-11-16T10:00:00.000Z', body: 'Sorry for the delay. We will pay on Friday.' });
    expect(promiseIn(said)).toMatchObject({ date: '2026-11-20', communicationId: said.id });
    expect(promiseIn(comm({ occurredAt: '2026-11-16T10:00:00.000Z', direction: 'outbound', body: 'Please pay by Friday.' }))).toBeNull();
    expect(promiseIn(comm({ occurredAt: '2026-11-16T10:00:00.000Z', body: 'We will not pay this by December 5.' }))).toBeNull();
    expect(promiseIn(comm({ occurredAt: '2026-11-16T10:00:00.000Z', body: 'See you at the trade fair on Friday.' }))).toBeNull();
  });

  it('takes a promise logged with a call as it was logged, whatever the call said or its direction', () => {
    const logged = comm({
      occurredAt: '2026-11-16T10:00:00.000Z',
      kind: 'call',
      direction: 'outbound',
      invoiceId: 'inv-1',
      body: 'They said they would pay on Friday. Will confirm by email.',
      promiseDate: '2026-11-25',
      promiseAmount: 50_000,
    });
    expect(promiseIn(logged)).toEqual({
      date: '2026-11-25',
      communicationId: logged.id,
      invoiceId: 'inv-1',
      madeAt: '2026-11-16T10:00:00.000Z',
      sentence: 'They said they would pay on Friday.',
      logged: true,
      amount: 50_000,
    });
    expect(promiseIn({ ...logged, body: null })!.sentence).toBe('Promise to pay logged with the call');
    // A later text promise about the invoice replaces it, as any later promise does.
    const later = comm({ occurredAt: '2026-11-18T10:00:00.000Z', invoiceId: 'inv-1', body: 'We will pay on December 2.' });
    expect(latestPromise([logged, later], 'inv-1')).toMatchObject({ date: '2026-12-02', logged: false, amount: null });
    expect(latestPromise([later, { ...logged, occurredAt: '2026-11-19T10:00:00.000Z' }], 'inv-1')).toMatchObject({ date: '2026-11-25', logged: true });
  });

  it('takes the latest promise about the invoice, or one about the customer as a whole', () => {
    const comms = [
      comm({ occurredAt: '2026-11-01T10:00:00.000Z', body: 'Payment will go out on November 10.', invoiceId: 'inv-1' }),
      comm({ occurredAt: '2026-11-12T10:00:00.000Z', body: 'We can transfer the money on December 1.' }),
      comm({ occurredAt: '2026-11-13T10:00:00.000Z', body: 'We will pay INV-9 on December 20.', invoiceId: 'inv-9' }),
    ];
    expect(latestPromise(comms, 'inv-1')?.date).toBe('2026-12-01');
    expect(latestPromise(comms, 'inv-9')?.date).toBe('2026-12-20');
  });
});

describe('tone, summary and stress', () => {
  it('scores tone with negation and calls a refusal defiant', () => {
    expect(toneOf([comm({ occurredAt: '2026-11-20T10:00:00.000Z', body: 'Thanks so much, happy to help, we will pay soon!' })], false)).toMatch(/amicable|cooperative/);
    expect(toneOf([comm({ occurredAt: '2026-11-20T10:00:00.000Z', body: 'This is not good. We are not happy with the pricing at all.' })], false)).toBe('frustrated');
    expect(toneOf([comm({ occurredAt: '2026-11-20T10:00:00.000Z', body: 'We will not pay this invoice.' })], false)).toBe('defiant');
    expect(toneOf([comm({ occurredAt: '2026-11-20T10:00:00.000Z', direction: 'outbound', body: 'Reminder' })], true)).toBe('avoidant');
    expect(toneOf([], false)).toBe('unknown');
  });

  it('summarises with the most telling sentence, at most 18 words', () => {
    const long = comm({
      occurredAt: '2026-11-20T10:00:00.000Z',
      body: 'Hello team. The invoice you sent has been forwarded to our accounts payable department which will process it together with all the other invoices of this month.',
    });
    const summary = extractiveSummary(long);
    expect(summary.startsWith('The invoice you sent')).toBe(true);
    expect(summary.split(/\s+/).length).toBeLessThanOrEqual(18);
  });

  it('puts the ball in the customer’s court while a promise stands, and with operations on a dispute', () => {
    const promise = { date: '2026-11-30', communicationId: 'c', invoiceId: null, madeAt: '2026-11-20T10:00:00.000Z', sentence: 'We will pay on the 30th', logged: false, amount: null };
    const comms = [comm({ occurredAt: '2026-11-20T10:00:00.000Z', body: 'We will pay on the 30th.' })];
    expect(conversationState(comms, promise, false, TODAY).activeCourt).toBe('Customer');
    expect(conversationState(comms, null, true, TODAY).activeCourt).toBe('Operations');
    expect(conversationState([], null, false, TODAY).action).toBeNull();
  });

  it('raises stress with lateness, silence, tone and amount, within 1-10', () => {
    const calm = stressLevel({ daysPastDue: 0, silenceDays: 2, tone: 'cooperative', balance: 100, typicalBalance: 100, contacted: true });
    const worst = stressLevel({ daysPastDue: 120, silenceDays: null, tone: 'defiant', balance: 1000, typicalBalance: 100, contacted: true });
    expect(calm).toBe(1);
    expect(worst).toBe(10);
    expect(stressLevel({ daysPastDue: 45, silenceDays: 20, tone: 'neutral', balance: 100, typicalBalance: 100, contacted: true })).toBe(4);
  });
});

describe('signals', () => {
  it('an invoice past due: newly past due, then moved to an older bucket, dated the day it crossed', () => {
    const a = invoiceSignal(invoice({ dueDate: '2026-11-10' }), 'Harbor Foods', null, TODAY).payload.signal as Record<string, string>;
    expect(a).toMatchObject({ type: 'newly_past_due', severity: 'low', detected_at: '2026-11-11' });
    const b = invoiceSignal(invoice({ dueDate: '2026-09-01' }), 'Harbor Foods', null, TODAY).payload.signal as Record<string, string>;
    expect(b).toMatchObject({ type: 'moved_to_older_bucket', severity: 'high', detected_at: '2026-11-01' });
    const none = invoiceSignal(invoice({ dueDate: '2026-12-10' }), 'Harbor Foods', null, TODAY).payload;
    expect(none.signal).toBeNull();
    expect(none.reason).toEqual(expect.any(String));
  });

  it('a broken promise outranks lateness; a payment after the promise was made keeps it', () => {
    const promise = { date: '2026-11-15', communicationId: 'c1', invoiceId: 'inv-1', madeAt: '2026-11-05T09:00:00.000Z', sentence: 'We will pay on the 15th', logged: false, amount: null };
    const broken = invoiceSignal(invoice(), 'Harbor Foods', promise, TODAY);
    expect(broken.payload.signal).toMatchObject({ type: 'broken_promise', severity: 'high', detected_at: '2026-11-16' });
    expect(broken.evidence[0]).toMatchObject({ source: 'communication', ref: { type: 'communication', id: 'c1' } });
    const kept = invoiceSignal(invoice({ lastPaymentDate: '2026-11-14' }), 'Harbor Foods', promise, TODAY);
    expect(kept.payload.signal).toMatchObject({ type: 'newly_past_due' });
  });

  it('pattern shift: recent days late clearly above the customer’s own baseline', () => {
    const day = (d: number) => 20_000 + d;
    const steady = [0, 1, -1, 2, 0, 1].map((daysLate, i) => ({ daysLate, settledDay: day(i * 30) }));
    expect(patternShift(steady)).toBeNull();
    const slower = [0, 1, -1, 15, 18, 14].map((daysLate, i) => ({ daysLate, settledDay: day(i * 30) }));
    expect(patternShift(slower)?.delta).toBeCloseTo(47 / 3, 6);
    expect(patternShift(slower)?.detectedAt).toBe('2025-03-03');
  });

  it('silence after reminders, and a balance jump', () => {
    const reminders = [comm({ occurredAt: '2026-11-01T09:00:00.000Z', direction: 'outbound' }), comm({ occurredAt: '2026-11-08T09:00:00.000Z', direction: 'outbound' })];
    expect(silenceAfterReminders(reminders, TODAY)).toMatchObject({ count: 2 });
    expect(silenceAfterReminders([...reminders, comm({ occurredAt: '2026-11-09T09:00:00.000Z' })], TODAY)).toBeNull();
    expect(balanceJump([invoice({ invoiceDate: '2026-09-01', balance: 1000 }), invoice({ invoiceDate: '2026-11-20', balance: 600 })], TODAY)).toMatchObject({ added: 600, before: 1000 });
    expect(balanceJump([invoice({ invoiceDate: '2026-09-01', balance: 1000 }), invoice({ invoiceDate: '2026-11-20', balance: 400 })], TODAY)).toBeNull();
  });

  it('a customer signal picks the most severe finding', () => {
    const c = customer({ communications: [comm({ occurredAt: '2026-11-01T09:00:00.000Z', direction: 'outbound' }), comm({ occurredAt: '2026-11-05T09:00:00.000Z', direction: 'outbound' })] });
    const shifted = [0, 0, 0, 25, 30, 28].map((daysLate, i) => ({ daysLate, settledDay: 20_000 + i * 30 }));
    const draft = customerSignal({ customer: c, daysLate: shifted, brokenPromises: [], today: TODAY });
    expect(draft.payload.signal).toMatchObject({ type: 'payment_pattern_shift', severity: 'high' });
    expect(customerSignal({ customer: customer({ openInvoices: [] }), daysLate: [], brokenPromises: [], today: TODAY }).payload.signal).toBeNull();
  });
});

describe('strategy', () => {
  it('chooses from the customer’s state', () => {
    const base = { tone: 'neutral' as const, promise: null, brokenPromise: false, silent: false, today: TODAY };
    expect(chooseStrategy({ ...base, customer: customer() }).key).toBe('friendly_reminder');
    expect(chooseStrategy({ ...base, customer: customer({ openInvoices: [invoice({ dueDate: '2026-12-20' })] }) }).key).toBe('monitor');
    expect(chooseStrategy({ ...base, tone: 'defiant', customer: customer() }).key).toBe('escalate');
    expect(chooseStrategy({ ...base, customer: customer({ openInvoices: [invoice({ disputed: true })] }) }).key).toBe('resolve_dispute');
    expect(chooseStrategy({ ...base, silent: true, customer: customer() }).key).toBe('change_channel');
    expect(chooseStrategy({ ...base, customer: customer({ openInvoices: [invoice({ dueDate: '2026-08-01', balance: 2_000_000 })] }) }).key).toBe('escalate');
  });
});

describe('recommended actions', () => {
  const action = (fields: Partial<ActionFact>): ActionFact => ({ id: 'a', invoiceId: 'inv-1', actionType: 'email', status: 'proposed', triggerKey: null, executedAt: null, rejected: false, deleted: false, ...fields });
  const propose = (c: CustomerFacts, promises = new Map()) => proposeActions({ customer: c, promises, customerSignal: null, companyName: 'Acme', today: TODAY });

  it('proposes a reminder with a call as alternative for a past-due invoice nobody touched, with a draft and evidence', () => {
    const { proposals } = propose(customer());
    expect(proposals.map((p) => [p.actionType, p.topRecommendation, p.triggerKey])).toEqual([
      ['email', 'recommended', 'past_due_no_touch:inv-1:1_30'],
      ['call', 'alternative', 'past_due_no_touch:inv-1:1_30:alt:call'],
    ]);
    expect(proposals[0].metadata).toMatchObject({ draft_subject: 'Invoice INV-1 is past due', draft_body: expect.stringContaining('INV-1') });
    expect(proposals[1].metadata.talking_points).toEqual(expect.arrayContaining([expect.stringContaining('INV-1')]));
    expect(proposals[0].evidence.map((e) => e.fact)).toContain('Due date');
    // Never touched says so, rather than a fact without a value.
    expect(proposals[0].evidence).toContainEqual(expect.objectContaining({ fact: 'Last touch', value: 'never' }));
    expect(proposals[0].responseDeadline).toBe('2026-11-25T17:00:00.000Z');
    expect(proposals[0].triggerEventLabel).toBe('1-30 days past due, no contact in the last 14 days');
    expect(propose(customer({ openInvoices: [invoice({ lastTouchAt: '2026-11-20T10:00:00.000Z' })] })).proposals).toEqual([]);
  });

  it('never proposes twice for one trigger, and a rejected proposal does not come back', () => {
    const answered = customer({ actions: [action({ triggerKey: 'past_due_no_touch:inv-1:1_30', status: 'cancelled', rejected: true })] });
    const { proposals, liveKeys } = propose(answered);
    expect(proposals).toEqual([]);
    expect(liveKeys.has('past_due_no_touch:inv-1:1_30')).toBe(true);
  });

  it('a customer’s rejections of a kind demote it, then drop it', () => {
    const rejected = (k: number, type: 'email' | 'call') => Array.from({ length: k }, (_, i) => action({ id: `r${type}${i}`, actionType: type, triggerKey: `old:${type}:${i}`, rejected: true, status: 'cancelled' }));
    const demoted = propose(customer({ actions: rejected(REJECTIONS_TO_DEMOTE, 'email') })).proposals;
    expect(demoted.map((p) => [p.actionType, p.topRecommendation])).toEqual([
      ['call', 'recommended'],
      ['email', 'alternative'],
    ]);
    expect(demoted[1].evidence.at(-1)).toMatchObject({ fact: 'email proposals this customer rejected', value: REJECTIONS_TO_DEMOTE });
    const dropped = propose(customer({ actions: rejected(4, 'email') })).proposals;
    expect(dropped.map((p) => p.actionType)).toEqual(['call']);
  });

  it('waits on a promise (awaiting_customer), checks on the day it is due, answers a reply', () => {
    const promise = (date: string) => new Map([['inv-1', { date, communicationId: 'c9', invoiceId: 'inv-1', madeAt: '2026-11-20T09:00:00.000Z', sentence: 's', logged: false, amount: null }]]);
    const waiting = propose(customer(), promise('2026-11-30')).proposals;
    expect(waiting).toHaveLength(1);
    expect(waiting[0]).toMatchObject({ topRecommendation: 'wait_for_customer', isActionRequired: false, triggerKey: 'promise_pending:inv-1:2026-11-30' });
    // The words a collector reads carry the date in words (the trigger key keeps the ISO date).
    expect(JSON.stringify(waiting[0])).toContain('promised to pay INV-1 by November 30, 2026.');
    expect(waiting[0].metadata).toMatchObject({ task: 'Check on November 30, 2026' });
    expect(propose(customer(), promise(TODAY)).proposals[0]).toMatchObject({ triggerEventLabel: 'Promise due today', topRecommendation: 'wait_for_customer' });
    const reply = comm({ id: 'reply-1', occurredAt: '2026-11-22T09:00:00.000Z', subject: 'Invoice INV-1' });
    const answered = propose(customer({ openInvoices: [], communications: [comm({ occurredAt: '2026-11-20T09:00:00.000Z', direction: 'outbound' }), reply] })).proposals;
    expect(answered[0]).toMatchObject({ triggerKey: 'reply_received:reply-1', actionType: 'email', metadata: { draft_subject: 'Re: Invoice INV-1' } });
  });
});

describe('scenarios', () => {
  it('merge by date and sum to exactly 1', () => {
    const merged = mergeScenarios([
      { date: '2026-12-02', probability: 0.1 },
      { date: '2026-12-01', probability: 1 / 3 },
      { date: '2026-12-02', probability: 1 / 3 },
      { date: '2026-12-03', probability: 0.2333333 },
    ]);
    expect(merged.map((s) => s.date)).toEqual(['2026-12-01', '2026-12-02', '2026-12-03']);
    expect(merged.reduce((s, x) => s + x.probability, 0)).toBeCloseTo(1, 12);
  });

  // A portfolio paid 0-29 days late (three invoices on each day), learnt from, with no open invoice.
  const model = new PayDateModel();
  for (let i = 0; i < 90; i++) model.observe({ customerId: `p${i % 9}`, dueDate: addDays('2026-01-31', i), settledDate: addDays('2026-01-31', i + (i % 30)), disputed: false });
  const survival = portfolioSurvival(model.residualSamples(), []);
  const late = invoice({ dueDate: '2026-10-08', customerId: 'new' });
  const predict = (today: string) => payDatePrediction(late, model.distribution('new', today), null, today, survival).payload;

  it("of an open invoice come from its distribution given still unpaid today: never before today, and later as it ages", () => {
    const ahead = predict('2026-10-01');
    expect(ahead.predicted_date).toBe('2026-10-22');
    const now = predict(TODAY);
    // 46 days past due, later than any invoice was ever paid: no date, and the reason.
    expect(now.predicted_date).toBeNull();
    expect(now.reason).toBe('No invoice of this company was ever paid this late; no reliable date');
    const aged = predict('2026-10-28');
    expect(aged.predicted_date! >= '2026-10-28').toBe(true);
    expect((aged.alternative_scenarios as { date: string }[]).every((s) => s.date >= '2026-10-28')).toBe(true);
    expect(aged.collectible_90d).toBe(1);
  });
});

describe('only what the collector can carry out', () => {
  const propose = (c: CustomerFacts, promises = new Map()) => proposeActions({ customer: c, promises, customerSignal: null, companyName: 'Acme', today: TODAY }).proposals;
  const reach = (fields: Partial<CustomerFacts['reach']>) => ({ phone: true, email: true, emailConnection: true, ...fields });

  it('no call without a phone number, no email without an address or a connection; with neither, a task says which is missing', () => {
    expect(propose(customer({ reach: reach({ phone: false }) })).map((p) => [p.actionType, p.triggerKey])).toEqual([['email', 'past_due_no_touch:inv-1:1_30:without:call']]);
    expect(propose(customer({ reach: reach({ emailConnection: false }) })).map((p) => p.actionType)).toEqual(['call']);
    const none = propose(customer({ reach: reach({ phone: false, email: false }) }));
    expect(none.map((p) => [p.actionType, p.recommendationLabel])).toEqual([['task', 'Find a contact']]);
    expect(none[0].description).toBe('Find who to reach at Harbor Foods about INV-1: no email address on file, and no phone number on file.');
    expect(unreachable('email', reach({ emailConnection: false }))).toBe('no email connection to send from');
    expect(unreachable('task', reach({ phone: false, email: false }))).toBeNull();
  });

  it('a disputed invoice gets the dispute resolved, never a reminder, a call or a wait', () => {
    const disputed = invoice({ disputed: true, disputedAt: '2026-11-10T09:00:00.000Z' });
    const promises = new Map([[disputed.id, { date: '2026-12-01', communicationId: 'c1', invoiceId: disputed.id, madeAt: '2026-11-20T09:00:00.000Z', sentence: 'We will pay', logged: true, amount: null }]]);
    const proposals = propose(customer({ openInvoices: [disputed] }), promises);
    expect(proposals.map((p) => [p.actionType, p.recommendationLabel, p.triggerKey])).toEqual([['task', 'Resolve the dispute', 'dispute:inv-1']]);
  });

  it('several past-due invoices make one statement listing them; a single one stays on its own', () => {
    const small = [invoice({ id: 'a', number: 'INV-A', balance: 20_000, dueDate: '2026-10-25' }), invoice({ id: 'b', number: 'INV-B', balance: 30_000, dueDate: '2026-10-31' })];
    const proposals = propose(customer({ openInvoices: small }));
    expect(proposals.map((p) => [p.actionType, p.invoiceId, p.triggerKey])).toEqual([
      ['email', null, expect.stringMatching(/^statement:cust-1:[0-9a-f]{16}$/)],
      ['call', null, `${proposals[0].triggerKey}:alt:call`],
    ]);
    expect(proposals[0].metadata.draft_body).toContain('- INV-A: $200.00, due October 25, 2026\n- INV-B: $300.00, due October 31, 2026\n\nTotal: $500.00.');
    // A small one and a large one of its first month: one statement too.
    expect(propose(customer({ openInvoices: [small[0], invoice({ id: 'c', balance: 500_000 })] })).map((p) => [p.actionType, p.metadata.invoice_ids])).toEqual([
      ['email', ['a', 'c']],
      ['call', ['a', 'c']],
    ]);
    expect(propose(customer({ openInvoices: [small[0]] })).map((p) => [p.actionType, p.invoiceId])).toEqual([
      ['email', 'a'],
      ['call', 'a'],
    ]);
  });
});

describe('old balances: no chasing invoice by invoice, one review per customer', () => {
  const propose = (c: CustomerFacts, customerSignal: Parameters<typeof proposeActions>[0]['customerSignal'] = null, today = TODAY) =>
    proposeActions({ customer: c, promises: new Map(), customerSignal, companyName: 'Acme', today }).proposals;
  const yearAgo = addDays(TODAY, -OLD_INVOICE_DAYS);
  const old = (id: string, balance: number, invoiceDate: string, fields: Partial<OpenInvoice> = {}) =>
    invoice({ id, number: id.toUpperCase(), invoiceDate, dueDate: addDays(invoiceDate, 30), balance, totalAmount: balance, ...fields });

  it('a small total more than a year old: write off first, a statement as the alternative, and no reminder, call or dispute task for those invoices', () => {
    const c = customer({ openInvoices: [old('o-1', 800, '2013-05-02'), old('o-2', 11_400, '2013-08-20', { disputed: true }), invoice()] });
    const proposals = propose(c);
    const review = proposals.filter((p) => p.triggerKey.startsWith('old_balances:'));
    expect(review.map((p) => [p.actionType, p.recommendationLabel, p.topRecommendation, p.metadata.recommendation])).toEqual([
      ['task', 'Write off the old balances', 'recommended', 'write_off'],
      ['task', 'Alternative: Send a statement', 'alternative', 'statement'],
    ]);
    expect(review[0].triggerKey).toBe('old_balances:cust-1:o-2');
    expect(review[0].triggerEventLabel).toBe('Review old balances: write off or send a statement (2 invoices more than a year old, $122.00)');
    expect(review[0].metadata.invoice_ids).toEqual(['o-1', 'o-2']);
    expect(review[0].evidence.map((e) => [e.fact, e.value])).toEqual([
      ['Oldest invoice date', '2013-05-02'],
      ['Invoices more than a year old', 2],
      ['Their open balance', '$122.00'],
    ]);
    // The recent invoice is chased as before; the old ones by no one else.
    expect(proposals.filter((p) => p.invoiceId === 'inv-1').length).toBe(2);
    expect(proposals.some((p) => p.invoiceId === 'o-1' || p.invoiceId === 'o-2')).toBe(false);
  });

  it('a larger total: the statement first; the threshold is WRITE_OFF_MAX, the age one year to the day', () => {
    const at = (balance: number) => propose(customer({ openInvoices: [old('o-1', balance, addDays(yearAgo, -1))] }))[0].metadata.recommendation;
    expect(at(WRITE_OFF_MAX)).toBe('write_off');
    expect(at(WRITE_OFF_MAX + 1)).toBe('statement');
    // Issued exactly a year ago is not old yet: chased as any invoice.
    expect(propose(customer({ openInvoices: [old('o-1', 500, yearAgo)] }))[0].triggerKey).toMatch(/^past_due_no_touch:o-1:/);
  });

  it('counts from the date the proposals count from: as of the ledger\'s last activity, the same invoices are chased one by one', () => {
    const c = customer({ openInvoices: [old('o-1', 800, '2013-08-02')] });
    expect(propose(c).map((p) => p.triggerKey)).toEqual(['old_balances:cust-1:o-1', 'old_balances:cust-1:o-1:alt:task']);
    expect(propose(c, null, '2013-09-30').map((p) => p.triggerKey)).toEqual(['past_due_no_touch:o-1:1_30', 'past_due_no_touch:o-1:1_30:alt:call']);
  });

  it('a customer whose every open invoice is old gets only the review, even with a high-severity signal; one with a recent invoice too gets the signal\'s review', () => {
    const signal = { type: 'long_overdue', severity: 'high', title: 'Long overdue', description: 'Years past due', detected_at: TODAY } as unknown as Parameters<typeof propose>[1];
    const onlyOld = propose(customer({ openInvoices: [old('o-1', 800, '2013-05-02')] }), signal);
    expect(new Set(onlyOld.map((p) => p.triggerKey.split(':')[0]))).toEqual(new Set(['old_balances']));
    const mixed = propose(customer({ openInvoices: [old('o-1', 800, '2013-05-02'), invoice()] }), signal);
    expect(mixed.some((p) => p.triggerKey.startsWith('signal:'))).toBe(true);
  });
});
