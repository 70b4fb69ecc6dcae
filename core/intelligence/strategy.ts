/**
 * customer_strategy_plan: one strategy chosen from the customer's state (refusal, dispute, promise,
 * broken promise, silence, how late and how much), with an email, a call and an internal option
 * and the reasoning that led to it.
 */
import { daysBetween, longDate } from '../dates';
import { formatMoney } from '../money';
import type { Tone } from './conversation';
import { type EvidenceItem, fact } from '../insights/evidence';
import type { CustomerFacts } from './facts';
import type { InsightDraft } from './predictions';
import type { PaymentPromise } from './promises';

export interface StrategyInput {
  customer: CustomerFacts;
  tone: Tone;
  promise: PaymentPromise | null;
  brokenPromise: boolean;
  silent: boolean;
  /** Opened the portal and did not act (signals.ts `viewedWithoutActing`): the day of that first look; null when not. */
  viewedIdleSince?: string | null;
  today: string;
}

export type StrategyKey = 'escalate' | 'resolve_dispute' | 'hold_for_promise' | 'firm_follow_up' | 'change_channel' | 'friendly_reminder' | 'monitor';

/** Amount at stake above which an overdue customer is escalated (minor units: 10,000.00). */
export const ESCALATION_AMOUNT = 1_000_000;

export function chooseStrategy(input: StrategyInput): { key: StrategyKey; reasons: string[] } {
  const { customer, today } = input;
  const overdue = customer.openInvoices.filter((i) => i.dueDate < today && i.balance > 0);
  const overdueAmount = overdue.reduce((s, i) => s + i.balance, 0);
  const oldest = overdue.reduce((max, i) => Math.max(max, daysBetween(i.dueDate, today)), 0);
  const money = formatMoney(overdueAmount, customer.currency);
  if (input.tone === 'defiant') return { key: 'escalate', reasons: ['The customer refuses to pay', `${money} overdue`] };
  if (customer.openInvoices.some((i) => i.disputed)) return { key: 'resolve_dispute', reasons: ['An open invoice is disputed: payment waits on its resolution'] };
  if (input.promise && input.promise.date >= today) return { key: 'hold_for_promise', reasons: [`Payment promised for ${longDate(input.promise.date)}`] };
  if (input.brokenPromise) return { key: 'firm_follow_up', reasons: ['A promise to pay was broken'] };
  if (oldest > 60 && overdueAmount >= ESCALATION_AMOUNT) return { key: 'escalate', reasons: [`${money} overdue, the oldest ${oldest} days`] };
  if (input.silent) return { key: 'change_channel', reasons: ['Reminders go unanswered'] };
  // They have seen the invoices and how to pay, and done nothing: another email is a third look at the same page.
  if (input.viewedIdleSince && overdue.length) return { key: 'change_channel', reasons: [`Opened the payment portal on ${longDate(input.viewedIdleSince)} and has not acted since`, `${money} overdue`] };
  if (overdue.length) return { key: 'friendly_reminder', reasons: [`${overdue.length} invoice${overdue.length === 1 ? '' : 's'} past due (${money})`] };
  return { key: 'monitor', reasons: ['Nothing is past due'] };
}

const PLANS: Record<StrategyKey, { summary: string; email: string; call: string; internal: string }> = {
  escalate: {
    summary: 'Escalate: the amount and the customer’s stance call for a manager',
    email: 'Formal notice stating the overdue amount and the next steps',
    call: 'Manager-to-manager call to agree a settlement date',
    internal: 'Ask the account’s sales owner and a manager to review credit and next steps',
  },
  resolve_dispute: {
    summary: 'Resolve the dispute first, then collect the undisputed amount',
    email: 'Acknowledge the dispute and ask for the details needed to resolve it',
    call: 'Walk through the disputed items with the billing contact',
    internal: 'Hand the disputed items to operations or sales with a resolution deadline',
  },
  hold_for_promise: {
    summary: 'Hold: a promise to pay is on record and its date has not passed',
    email: 'Short confirmation of the promised date and amount',
    call: 'No call needed before the promised date',
    internal: 'Check for the payment the day after the promised date',
  },
  firm_follow_up: {
    summary: 'Follow up firmly on the broken promise',
    email: 'Point to the missed promise and ask for a new firm date',
    call: 'Call to get a new date and the reason for the delay',
    internal: 'Flag the account for weekly review until paid',
  },
  change_channel: {
    summary: 'Change channel: emails go unanswered or unacted on, so call',
    email: 'Last reminder with the invoices attached',
    call: 'Call the billing contact to confirm they receive the reminders',
    internal: 'Check the billing contact details are current',
  },
  friendly_reminder: {
    summary: 'Friendly reminder of the past-due invoices',
    email: 'Polite reminder listing the past-due invoices and the payment link',
    call: 'Courtesy call if the reminder gets no answer within a week',
    internal: 'None needed yet',
  },
  monitor: {
    summary: 'Monitor: nothing is past due',
    email: 'No email needed',
    call: 'No call needed',
    internal: 'Review again when an invoice falls due',
  },
};

export function strategyPlan(input: StrategyInput): InsightDraft {
  const { key, reasons } = chooseStrategy(input);
  const plan = PLANS[key];
  const evidence: EvidenceItem[] = [
    fact('Tone of the conversation', input.tone, 'vader_sentiment'),
    fact('Open invoices', input.customer.openInvoices.length, 'invoices', { type: 'customer', id: input.customer.id }),
  ];
  if (input.promise) evidence.push(fact('Promise to pay on', input.promise.date, 'communication', { type: 'communication', id: input.promise.communicationId }));
  for (const r of reasons) evidence.push(fact(r, null, 'strategy_rules'));
  return {
    payload: {
      strategy_plan: {
        strategy: key,
        summary: plan.summary,
        options: { email: plan.email, call: plan.call, internal: plan.internal },
        reasoning: reasons,
      },
    },
    evidence,
  };
}
