/**
 * Recommended actions, proposed from triggers: an invoice past due with no recent touch, a broken
 * promise, a reply received, a high-severity signal, a promise due today (and a promise still
 * ahead: wait for the customer). Each trigger has a key; an action with that key, whatever became
 * of it (approved, sent, rejected, deleted), means the trigger was answered, so it is never
 * proposed twice, and a rejected proposal never comes back for the same trigger. A customer's
 * rejections of one kind of action (email, call, task) lower that kind for the customer: after
 * REJECTIONS_TO_DEMOTE it is offered only as an alternative, after REJECTIONS_TO_DROP not at all.
 * Invoices more than a year old are not chased one by one: their customer gets one "review old
 * balances" recommendation, write off or send a statement (thresholds.ts). Nor are several past-due
 * invoices of one customer: they get one decision listing them (mergeChase).
 */
import { createHash } from 'node:crypto';
import { DECIDE_WITHIN_DAYS } from '../actions/rules';
import { addDays, daysBetween, longDate } from '../dates';
import { formatMoney } from '../money';
import type { ActionType } from '../db/schema';
import type { AttachmentKind } from '../documents/attachments';
import { type EvidenceItem, fact } from '../insights/evidence';
import type { ActionFact, Communication, CustomerFacts, OpenInvoice, Reach } from './facts';
import type { PaymentPromise } from './promises';
import { agingStep, isBroken, type Signal } from './signals';
import { NO_TOUCH_DAYS, OLD_INVOICE_DAYS, SMALL_BALANCE, WRITE_OFF_MAX } from './thresholds';

export const REJECTIONS_TO_DEMOTE = 2;
export const REJECTIONS_TO_DROP = 4;
/** Days a proposal gives the collector before its response deadline (as any new decision). */
export const RESPONSE_DAYS = DECIDE_WITHIN_DAYS;

export interface ProposedAction {
  triggerKey: string;
  invoiceId: string | null;
  actionType: ActionType;
  description: string;
  recommendationLabel: string;
  triggerEventLabel: string;
  topRecommendation: string | null;
  isActionRequired: boolean;
  metadata: Record<string, unknown>;
  responseDeadline: string;
  evidence: EvidenceItem[];
}

export interface ProposalInput {
  customer: CustomerFacts;
  promises: Map<string, PaymentPromise | null>;
  customerSignal: Signal | null;
  /** The customer's name for the drafts, and the company's (the sender). */
  companyName: string;
  /** The date the proposals count from: today, or the company's as-of date. */
  today: string;
  /** The real day a response deadline runs from (default `today`). */
  answerFrom?: string;
}

interface Option {
  actionType: ActionType;
  label: string;
  description: string;
  metadata: Record<string, unknown>;
}

export interface Trigger {
  key: string;
  invoice: OpenInvoice | null;
  event: string;
  evidence: EvidenceItem[];
  /** The best option first; the others are alternatives for the same invoice. */
  options: Option[];
  wait?: boolean;
}

/** New proposals, and every trigger key still live (answered or not): a proposal outside them lost its reason. */
export function proposeActions(input: ProposalInput): { proposals: ProposedAction[]; liveKeys: Set<string> } {
  const { customer, today } = input;
  const answered = new Set(customer.actions.filter((a) => a.triggerKey).map((a) => a.triggerKey!));
  const rejections = new Map<ActionType, number>();
  for (const a of customer.actions) if (a.rejected && a.triggerKey) rejections.set(a.actionType, (rejections.get(a.actionType) ?? 0) + 1);
  const out: ProposedAction[] = [];
  const liveKeys = new Set<string>();
  const live = (list: Trigger[]) => {
    for (const trigger of list) {
      liveKeys.add(trigger.key);
      for (const o of trigger.options) liveKeys.add(`${trigger.key}:alt:${o.actionType}`);
    }
    return list;
  };
  // Every trigger stays live (its open proposals keep their reason); only invoices no open decision covers get new ones.
  const all = live(triggers(input, new Set()).map((t) => feasible(t, customer)));
  const decided = decidedInvoices(customer.actions, liveKeys);
  const fresh = decided.size ? live(triggers(input, decided).map((t) => feasible(t, customer))) : all;
  for (const trigger of fresh) {
    const keyed = (o: Option, i: number) => (i === 0 ? trigger.key : `${trigger.key}:alt:${o.actionType}`);
    if (answered.has(trigger.key)) continue;
    const usable = trigger.options.filter((o) => (rejections.get(o.actionType) ?? 0) < REJECTIONS_TO_DROP);
    // Demoted kinds go behind the others.
    const ranked = [...usable].sort((a, b) => Number((rejections.get(a.actionType) ?? 0) >= REJECTIONS_TO_DEMOTE) - Number((rejections.get(b.actionType) ?? 0) >= REJECTIONS_TO_DEMOTE));
    ranked.forEach((o, i) => {
      const demoted = (rejections.get(o.actionType) ?? 0) >= REJECTIONS_TO_DEMOTE;
      const evidence = [...trigger.evidence];
      if (demoted) evidence.push(fact(`${o.actionType} proposals this customer rejected`, rejections.get(o.actionType)!, 'action_history', { type: 'customer', id: customer.id }));
      out.push({
        triggerKey: keyed(o, i),
        invoiceId: trigger.invoice?.id ?? null,
        actionType: o.actionType,
        description: o.description,
        recommendationLabel: i === 0 ? o.label : `Alternative: ${o.label}`,
        triggerEventLabel: trigger.event,
        topRecommendation: trigger.wait ? 'wait_for_customer' : i === 0 ? 'recommended' : 'alternative',
        isActionRequired: !trigger.wait,
        metadata: { ...o.metadata, trigger: trigger.key, rank: i + 1 },
        responseDeadline: `${addDays(input.answerFrom ?? today, RESPONSE_DAYS)}T17:00:00.000Z`,
        evidence,
      });
    });
  }
  return { proposals: out, liveKeys };
}

/** A decision still open: awaiting a decision (proposed, scheduled) or approved and not yet carried out (processing). */
const OPEN_STATUSES = new Set(['proposed', 'scheduled', 'processing']);

/**
 * The invoices an open decision already covers, whoever made it (the engine, a person through the
 * API, the demo): its own invoice, or the invoices a decision on the whole customer lists. One
 * decision per invoice: the engine proposes nothing more for them. An engine proposal whose trigger
 * is gone does not count: it is withdrawn in this same refresh and the new trigger takes its place.
 */
export function decidedInvoices(actions: ActionFact[], liveKeys: Set<string>): Set<string> {
  const out = new Set<string>();
  for (const a of actions) {
    if (a.deleted || !OPEN_STATUSES.has(a.status)) continue;
    // Only a proposal is withdrawn when its trigger goes; an approved one stands until it is carried out.
    if (a.status === 'proposed' && a.triggerKey !== null && !liveKeys.has(a.triggerKey)) continue;
    if (a.invoiceId) out.add(a.invoiceId);
    else for (const id of a.listedInvoiceIds ?? []) out.add(id);
  }
  return out;
}

/** What stops the collector from reaching the customer by `actionType`, in words; null when nothing does. */
export function unreachable(actionType: ActionType, reach: Reach): string | null {
  if (actionType === 'call') return reach.phone ? null : 'no phone number on file';
  if (actionType === 'email') {
    if (!reach.email) return 'no email address on file';
    if (!reach.emailConnection) return 'no email connection to send from';
  }
  return null;
}

/**
 * Only what the collector can carry out: calls need a phone number, emails an address and a
 * connection to send from. A trigger left with no option asks to find a contact instead, saying
 * what is missing.
 */
export function feasible(trigger: Trigger, customer: Pick<CustomerFacts, 'name' | 'reach'>): Trigger {
  const options = trigger.options.filter((o) => unreachable(o.actionType, customer.reach) === null);
  if (options.length === trigger.options.length) return trigger;
  // A key of its own: the proposals made when every option could be done lose their reason and are withdrawn.
  const dropped = trigger.options.filter((o) => !options.includes(o)).map((o) => o.actionType);
  if (options.length) return { ...trigger, key: `${trigger.key}:without:${dropped.join('+')}`, options };
  const missing = [...new Set(trigger.options.map((o) => unreachable(o.actionType, customer.reach)).filter((m): m is string => m !== null))];
  const about = trigger.invoice ? ` about ${trigger.invoice.number}` : '';
  return {
    ...trigger,
    key: `${trigger.key}:find_contact`,
    options: [
      {
        actionType: 'task',
        label: 'Find a contact',
        description: `Find who to reach at ${customer.name}${about}: ${missing.join(', and ')}.`,
        metadata: { task: 'Find a contact with a phone number or email address', missing },
      },
    ],
  };
}

/** The triggers of a customer's facts; `decided` invoices (an open decision covers them) get none of their own and join no list. */
function triggers(input: ProposalInput, decided: Set<string>): Trigger[] {
  const { customer, today, companyName } = input;
  const out: Trigger[] = [];
  const chase: Trigger[] = [];
  const lastInbound = [...customer.communications].reverse().find((c) => c.direction === 'inbound');
  const lastOutbound = [...customer.communications].reverse().find((c) => c.direction === 'outbound');
  if (lastInbound && (!lastOutbound || lastInbound.occurredAt > lastOutbound.occurredAt)) {
    out.push(replyTrigger(customer, lastInbound));
  }
  const oldBefore = addDays(today, -OLD_INVOICE_DAYS);
  const old = customer.openInvoices.filter((i) => i.invoiceDate < oldBefore && i.balance > 0 && !decided.has(i.id));
  for (const invoice of customer.openInvoices) {
    if (invoice.invoiceDate < oldBefore || decided.has(invoice.id)) continue;
    const promise = input.promises.get(invoice.id) ?? null;
    const ref = { type: 'invoice' as const, id: invoice.id };
    const amount = formatMoney(invoice.balance, invoice.currency);
    if (invoice.disputed) {
      // A disputed invoice is neither chased nor waited on: the dispute is resolved first, as the strategy says.
      out.push({
        key: `dispute:${invoice.id}`,
        invoice,
        event: 'Invoice disputed',
        evidence: [fact('Disputed since', (invoice.disputedAt ?? today).slice(0, 10), 'invoice', ref), fact('Open balance', amount, 'invoice', ref)],
        options: [
          {
            actionType: 'task',
            label: 'Resolve the dispute',
            description: `Resolve the dispute on ${invoice.number} (${amount}) with ${customer.name} before asking for payment.`,
            metadata: { task: 'Find out what is disputed and agree a resolution' },
          },
        ],
      });
      continue;
    }
    if (promise && promise.date === today) {
      out.push({
        key: `promise_due:${invoice.id}:${promise.date}`,
        invoice,
        event: 'Promise due today',
        wait: true,
        evidence: [fact('Promised payment date', promise.date, 'communication', { type: 'communication', id: promise.communicationId })],
        options: [{ actionType: 'task', label: 'Check for the promised payment', description: `${customer.name} promised to pay ${invoice.number} today: check tomorrow that ${amount} arrived.`, metadata: { task: 'Check the payment arrived' } }],
      });
      continue;
    }
    if (promise && promise.date > today) {
      out.push({
        key: `promise_pending:${invoice.id}:${promise.date}`,
        invoice,
        event: 'Promise to pay on record',
        wait: true,
        evidence: [fact('Promised payment date', promise.date, 'communication', { type: 'communication', id: promise.communicationId })],
        options: [{ actionType: 'task', label: 'Wait for the promised payment', description: `Wait: ${customer.name} promised to pay ${invoice.number} by ${longDate(promise.date)}.`, metadata: { task: `Check on ${longDate(promise.date)}` } }],
      });
      continue;
    }
    if (!promise && invoice.promiseLabel) {
      // A label the company marked as a promise to pay: a promise on record, with no date to check on.
      out.push({
        key: `promise_label:${invoice.id}`,
        invoice,
        event: 'Promise to pay on record',
        wait: true,
        evidence: [fact('Label', invoice.promiseLabel, 'invoice_labels', ref), fact('Open balance', amount, 'invoice', ref)],
        options: [{ actionType: 'task', label: 'Wait for the promised payment', description: `Wait: ${invoice.number} is labelled ${invoice.promiseLabel}. Ask ${customer.name} for the payment date if none was given.`, metadata: { task: 'Confirm the promised payment date' } }],
      });
      continue;
    }
    if (promise && isBroken(promise, invoice, today)) {
      out.push({
        key: `broken_promise:${invoice.id}:${promise.date}`,
        invoice,
        event: 'Promise to pay broken',
        evidence: [
          fact('Promised payment date', promise.date, 'communication', { type: 'communication', id: promise.communicationId }),
          fact('Open balance', amount, 'invoice', ref),
        ],
        options: [
          callOption(`Call about the missed promise on ${invoice.number}`, [`${customer.name} promised ${amount} for ${longDate(promise.date)}`, 'Ask what happened and for a new firm date', 'Confirm the amount and the payment method']),
          emailOption(
            `Email about the missed promise on ${invoice.number}, with the invoice attached`,
            `${invoice.number}: the payment promised for ${longDate(promise.date)}`,
            `Hello,\n\nWe expected the payment of ${amount} for invoice ${invoice.number} on ${longDate(promise.date)}, as agreed, and have not received it. A copy of the invoice is attached. Could you confirm when it will be sent?\n\nThank you,\n${companyName}`,
            ['invoice_pdf'],
          ),
        ],
      });
      continue;
    }
    const step = agingStep(invoice.dueDate, today);
    const lastTouch = latest(invoice.lastTouchAt, customer.communications.filter((c) => c.invoiceId === invoice.id || c.invoiceId === null).map((c) => c.occurredAt));
    const untouched = lastTouch === null || daysBetween(lastTouch.slice(0, 10), today) >= NO_TOUCH_DAYS;
    if (step && untouched && invoice.balance > 0) {
      const late = daysBetween(invoice.dueDate, today);
      // Past the first month a reminder turns firm, and carries the invoice so nobody can say they never had it.
      const email =
        step.key === '1_30'
          ? emailOption(
              `Send a reminder for ${invoice.number}`,
              `Invoice ${invoice.number} is past due`,
              `Hello,\n\nOur records show invoice ${invoice.number} of ${amount}, due ${longDate(invoice.dueDate)}, is still open. Could you let us know when it will be paid?\n\nThank you,\n${companyName}`,
            )
          : emailOption(
              `Send a firm reminder for ${invoice.number} with the invoice attached`,
              `Invoice ${invoice.number} is ${late} days past due`,
              `Hello,\n\nInvoice ${invoice.number} of ${amount}, due ${longDate(invoice.dueDate)}, is now ${late} days past due. A copy is attached. Please arrange payment, or reply with the date it will be paid.\n\nThank you,\n${companyName}`,
              ['invoice_pdf'],
            );
      const options = [
        email,
        callOption(`Call about ${invoice.number}`, [`${invoice.number}: ${amount}, due ${longDate(invoice.dueDate)}`, 'Confirm the invoice was received and approved', 'Ask for a payment date']),
      ];
      // Older debts: a call first.
      if (step.key !== '1_30') options.reverse();
      chase.push({
        key: `past_due_no_touch:${invoice.id}:${step.key}`,
        invoice,
        event: `${step.label}, no contact in the last ${NO_TOUCH_DAYS} days`,
        evidence: [
          fact('Due date', invoice.dueDate, 'invoice', ref),
          fact('Open balance', amount, 'invoice', ref),
          fact('Last touch', lastTouch?.slice(0, 10) ?? 'never', 'communication', ref),
        ],
        options,
      });
    }
  }
  out.push(...mergeChase(customer, chase, companyName));
  if (old.length) out.push(oldBalancesTrigger(customer, old));
  const signal = input.customerSignal;
  // A customer whose every open invoice is old has the review already: the signal says the same.
  const onlyOld = customer.openInvoices.length > 0 && customer.openInvoices.every((i) => i.invoiceDate < oldBefore);
  if (signal && signal.severity === 'high' && signal.type !== 'broken_promise' && !onlyOld) {
    out.push({
      key: `signal:${customer.id}:${signal.type}:${signal.detected_at}`,
      invoice: null,
      event: `High-severity signal: ${signal.title}`,
      evidence: [fact(signal.title, signal.description, 'customer_signal', { type: 'customer', id: customer.id })],
      options: [
        { actionType: 'task', label: 'Review the account', description: `Review ${customer.name}: ${signal.description}`, metadata: { task: 'Review the account and agree the next step' } },
        callOption(`Call ${customer.name}`, [signal.description, 'Ask about their payment plans for the open invoices']),
      ],
    });
  }
  return out;
}

/**
 * One decision per customer for its past-due invoices, not one per invoice: those of one currency
 * that would each be chased become one decision on the customer listing them (`invoice_ids`), a
 * call first when any of them is past its first month (a small balance alone never makes it a
 * call), else a statement email. A single one stays on its own, and so does an invoice whose own
 * proposal a person rejected or deleted: it is not asked again. One the engine proposed on its own
 * before joins the list (that proposal loses its trigger and is withdrawn).
 */
export function mergeChase(customer: CustomerFacts, chase: Trigger[], companyName: string): Trigger[] {
  const refused = new Set(customer.actions.filter((a) => a.rejected || a.deleted).map((a) => a.triggerKey));
  const alone = chase.filter((t) => refused.has(feasible(t, customer).key));
  const byCurrency = new Map<string, Trigger[]>();
  for (const t of chase) if (!alone.includes(t)) byCurrency.set(t.invoice!.currency, [...(byCurrency.get(t.invoice!.currency) ?? []), t]);
  const out = [...alone];
  for (const group of byCurrency.values()) {
    if (group.length === 1) out.push(group[0]);
    else out.push(mergedTrigger(customer, group, companyName));
  }
  return out;
}

/** Invoices a merged call's talking points name one by one. */
const TALKED_ABOUT = 10;
/**
 * Invoices a merged decision's email and evidence name one by one; the rest are counted (the list
 * itself is invoice_ids, the statement attached has them all). A customer with 20,000 open invoices
 * wrote megabytes of lines and facts per refresh, in the write lock.
 */
const NAMED = 25;

function mergedTrigger(customer: CustomerFacts, each: Trigger[], companyName: string): Trigger {
  const invoices = each.map((t) => t.invoice!).sort((a, b) => a.dueDate.localeCompare(b.dueDate) || a.number.localeCompare(b.number));
  const total = formatMoney(
    invoices.reduce((sum, i) => sum + i.balance, 0),
    invoices[0].currency,
  );
  const more = invoices.length - NAMED;
  const lines = [
    ...invoices.slice(0, NAMED).map((i) => `- ${i.number}: ${formatMoney(i.balance, i.currency)}, due ${longDate(i.dueDate)}`),
    ...(more > 0 ? [`- and ${more} more, on the statement attached`] : []),
  ].join('\n');
  const callFirst = each.some((t) => t.invoice!.balance >= SMALL_BALANCE && t.options[0].actionType === 'call');
  const email = emailOption(
    `Send ${customer.name} a statement of ${invoices.length} past-due invoices (${total})`,
    `Statement: ${invoices.length} invoices past due (${total})`,
    `Hello,\n\nOur records show these invoices are past due:\n\n${lines}\n\nTotal: ${total}. Your statement of account is attached. Could you let us know when they will be paid?\n\nThank you,\n${companyName}`,
    ['statement'],
  );
  // A call goes through the oldest first; the rest are in the decision's list.
  const spoken = invoices.slice(0, TALKED_ABOUT).map((i) => `${i.number}: ${formatMoney(i.balance, i.currency)}, due ${longDate(i.dueDate)}`);
  const call = callOption(`Call ${customer.name} about ${invoices.length} past-due invoices (${total})`, [
    ...spoken,
    ...(invoices.length > TALKED_ABOUT ? [`and ${invoices.length - TALKED_ABOUT} more, listed with the decision`] : []),
    'Confirm they were received and approved',
    'Ask for a payment date for each',
  ]);
  // The members' own triggers name it: an invoice joining or leaving the list is a new decision, and the one before is withdrawn.
  const digest = createHash('sha256')
    .update(each.map((t) => t.key).sort().join('\n'))
    .digest('hex')
    .slice(0, 16);
  return {
    key: `${callFirst ? 'call_customer' : 'statement'}:${customer.id}:${digest}`,
    invoice: null,
    event: `${invoices.length} invoices past due, no contact in the last ${NO_TOUCH_DAYS} days`,
    evidence: [
      ...invoices.slice(0, NAMED).map((i) => fact(`Open balance of ${i.number}`, formatMoney(i.balance, i.currency), 'invoice', { type: 'invoice', id: i.id })),
      ...(more > 0 ? [fact('Other past-due invoices listed', more, 'customer', { type: 'customer', id: customer.id })] : []),
    ],
    // invoice_ids: the invoices it decides for (no proposal of their own; the inbox weighs its value at risk from them).
    options: (callFirst ? [call, email] : [email, call]).map((o) => ({ ...o, metadata: { ...o.metadata, invoice_ids: invoices.map((i) => i.id) } })),
  };
}

/**
 * Invoices more than a year old, of one customer: not chased one by one, but one review. A small
 * total is written off first (collecting it costs more than it brings), a larger one gets a
 * statement first, asking the customer to confirm or pay; each is the other's alternative.
 */
export function oldBalancesTrigger(customer: Pick<CustomerFacts, 'id' | 'name'>, old: OpenInvoice[]): Trigger {
  const invoices = [...old].sort((a, b) => a.invoiceDate.localeCompare(b.invoiceDate) || a.number.localeCompare(b.number));
  const currencies = new Set(invoices.map((i) => i.currency));
  const sum = invoices.reduce((s, i) => s + i.balance, 0);
  const total = currencies.size === 1 ? formatMoney(sum, invoices[0].currency) : `${invoices.length} balances in ${currencies.size} currencies`;
  const count = invoices.length === 1 ? `invoice ${invoices[0].number}` : `${invoices.length} invoices`;
  const ids = invoices.map((i) => i.id);
  const writeOff: Option = {
    actionType: 'task',
    label: 'Write off the old balances',
    description: `Write off ${customer.name}'s ${count} issued more than a year ago (${total}): collecting them is unlikely to be worth the cost.`,
    metadata: { task: 'Write off the old balances', recommendation: 'write_off', invoice_ids: ids },
  };
  const statement: Option = {
    actionType: 'task',
    label: 'Send a statement',
    description: `Send ${customer.name} a statement of ${count} issued more than a year ago (${total}), asking them to confirm or pay.`,
    metadata: { task: 'Send a statement of account', recommendation: 'statement', invoice_ids: ids },
  };
  const small = currencies.size === 1 && sum <= WRITE_OFF_MAX;
  const newest = invoices.at(-1)!;
  return {
    // The newest old invoice names the review: one more invoice turning a year old asks again.
    key: `old_balances:${customer.id}:${newest.id}`,
    invoice: null,
    event: `Review old balances: write off or send a statement (${count} more than a year old, ${total})`,
    evidence: [
      fact('Oldest invoice date', invoices[0].invoiceDate, 'invoice', { type: 'invoice', id: invoices[0].id }),
      fact('Invoices more than a year old', invoices.length, 'customer', { type: 'customer', id: customer.id }),
      fact('Their open balance', total, 'customer', { type: 'customer', id: customer.id }),
    ],
    options: small ? [writeOff, statement] : [statement, writeOff],
  };
}

/** Their words as evidence: at most 300 characters. */
const WORDS_MAX = 300;

function replyTrigger(customer: CustomerFacts, reply: Communication): Trigger {
  // An inbound note is what the customer wrote in the portal (core/portal/submit.ts), their words its body.
  const viaPortal = reply.kind === 'note';
  const subject = viaPortal ? 'Your message in our portal' : reply.subject ? (reply.subject.toLowerCase().startsWith('re:') ? reply.subject : `Re: ${reply.subject}`) : 'Re: your message';
  const ref = { type: 'communication' as const, id: reply.id };
  const words = (reply.body ?? '').trim();
  return {
    key: `reply_received:${reply.id}`,
    invoice: null,
    event: viaPortal ? 'Wrote via the portal' : 'Reply received',
    evidence: viaPortal
      ? [fact('Wrote via the portal on', reply.occurredAt.slice(0, 10), 'communication', ref), ...(words ? [fact('Their words', words.length > WORDS_MAX ? `${words.slice(0, WORDS_MAX - 1)}…` : words, 'communication', ref)] : [])]
      : [fact('Reply received on', reply.occurredAt.slice(0, 10), 'communication', ref)],
    options: [
      emailOption(`Answer ${customer.name}'s reply`, subject, `Hello,\n\nThank you for your message. `),
      callOption(`Call ${customer.name} back`, ['Answer their message', 'Confirm the next payment date']),
    ],
  };
}

/** `attach`: documents the email carries when approved as it is (the action's metadata.attach, made at send time). */
function emailOption(description: string, subject: string, body: string, attach: AttachmentKind[] = []): Option {
  // The keys every action's draft uses (the Actions panel reads them; the demo's actions have them too).
  return { actionType: 'email', label: 'Send an email', description, metadata: { draft_subject: subject, draft_body: body, ...(attach.length ? { attach } : {}) } };
}

function callOption(description: string, talkingPoints: string[]): Option {
  return { actionType: 'call', label: 'Call the customer', description, metadata: { talking_points: talkingPoints } };
}

function latest(first: string | null, others: string[]): string | null {
  let best = first;
  for (const o of others) if (best === null || o > best) best = o;
  return best;
}
