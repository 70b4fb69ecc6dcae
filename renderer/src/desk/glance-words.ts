/**
 * The top of the invoice panel in words: the customer's latest word on the invoice, the most
 * recent of a reply (a message or call from the customer), a promise to pay (logged with a call)
 * and a dispute (opened on the invoice, or said on a call); the next scheduled step; and the one
 * decision on the customer that covers it. Pure: unit-tested directly.
 */
import type { Schemas } from '../api/client';
import { formatDate, formatMoney } from './format';

type ActivityEntry = Pick<Schemas['ActivityEntry'], 'kind' | 'at' | 'direction' | 'title' | 'outcome' | 'promise_date' | 'promise_amount'>;
type Dispute = Pick<Schemas['Dispute'], 'created_at' | 'reason'>;

export interface CustomerEvent {
  kind: 'reply' | 'promise' | 'dispute';
  /** When it happened (ISO instant). */
  at: string;
  /** The event in words, without its time. */
  text: string;
}

function fromActivity(e: ActivityEntry, currency: string): CustomerEvent | null {
  if (e.kind !== 'communication') return null;
  if (e.promise_date) {
    const amount = e.promise_amount !== null ? `${formatMoney(e.promise_amount, currency)} ` : '';
    return { kind: 'promise', at: e.at, text: `Promised to pay ${amount}by ${formatDate(e.promise_date)}` };
  }
  if (e.outcome === 'disputed') return { kind: 'dispute', at: e.at, text: 'Disputed on a call' };
  if (e.direction === 'inbound') return { kind: 'reply', at: e.at, text: `Reply: ${e.title}` };
  return null;
}

/** The newest customer event; on a tie, a dispute or promise says more than the reply that carried it. */
export function latestCustomerEvent(activity: readonly ActivityEntry[], disputes: readonly Dispute[], currency: string): CustomerEvent | null {
  const events = [
    ...activity.map((e) => fromActivity(e, currency)).filter((e): e is CustomerEvent => e !== null),
    ...disputes.map((d): CustomerEvent => ({ kind: 'dispute', at: d.created_at, text: `Disputed: ${d.reason}` })),
  ];
  const weight = { reply: 0, promise: 1, dispute: 2 } as const;
  return events.reduce<CustomerEvent | null>((best, e) => {
    if (!best) return e;
    const [a, b] = [Date.parse(e.at), Date.parse(best.at)];
    return a > b || (a === b && weight[e.kind] > weight[best.kind]) ? e : best;
  }, null);
}

interface PlanStep {
  label?: string | null;
  scheduled_date?: string | null;
  status?: string | null;
  held_reason?: string | null;
}

/** The next step of the invoice's dunning plan (schedule order) in words, or null when none is planned. */
export function nextStepWords(plan: readonly PlanStep[]): string | null {
  const next = plan.find((s) => s.status === 'ready' || s.status === 'scheduled');
  if (!next) return null;
  const label = next.label || 'Reminder';
  // A held step never reads "ready": the hold's words say why it waits.
  if (next.held_reason) return `${label}, on hold (${next.held_reason.replace(/^(Paused|Held): /, '').replace(/\.$/, '')})`;
  return next.status === 'ready' ? `${label}, ready to go` : `${label} on ${formatDate(next.scheduled_date)}`;
}

type Covering = NonNullable<Schemas['InvoiceDetail']['covered_by']>;

/** Which decision on the customer as a whole covers the invoice, and how many invoices with it: the words before its link. */
export function coveredWords(covered: Pick<Covering, 'invoice_count' | 'status'>): { lead: string; state: string } {
  const others = covered.invoice_count - 1;
  const lead = others <= 0 ? 'Decision on the customer for this invoice: ' : `Decision for this and ${others} more ${others === 1 ? 'invoice' : 'invoices'}: `;
  return { lead, state: covered.status === 'processing' ? 'approved' : 'waiting for a decision' };
}
