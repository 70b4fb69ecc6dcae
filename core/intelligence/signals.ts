/**
 * Signals: the material state of an invoice, a customer or the portfolio, as rules over the facts.
 * Each rule returns the signal with the date the change happened (detected_at is the day the
 * condition became true, so re-running the rules on unchanged data gives the same payload and the
 * runner writes nothing); the most severe one wins. No rule firing: signal null with a reason.
 */
import { addDays, daysBetween, longDate } from '../dates';
import { formatMoney } from '../money';
import { type EvidenceItem, fact } from '../insights/evidence';
import type { Communication, CustomerFacts, OpenInvoice } from './facts';
import type { InsightDraft } from './predictions';
import type { PaymentPromise } from './promises';

export const SIGNAL_THRESHOLDS = {
  /** Payment pattern shift: the mean days late of the last `recentCount` settlements against the earlier ones. */
  recentCount: 3,
  baselineMin: 3,
  shiftDays: 10,
  shiftHighDays: 20,
  /** Silence: reminders sent since the customer last wrote, and days since the first of them. */
  silenceReminders: 2,
  silenceDays: 14,
  /** Viewed but did not act: days since the first look at the portal with no word and no payment after it. */
  portalIdleDays: 7,
  /** Balance jump: invoices of the last `jumpWindowDays` add at least this share to the older open balance. */
  jumpWindowDays: 30,
  jumpShare: 0.5,
  /** A dispute counts as opened (a change) for this many days after its label was put on. */
  disputeRecentDays: 30,
  /** Portfolio: movement over `portfolioWindowDays` of the overdue share (points) and of DSO (days). */
  portfolioWindowDays: 30,
  overdueShareMove: 0.05,
  dsoMoveDays: 5,
  dsoSalesDays: 90,
  /** Concentration: the largest `topCustomers` hold at least this share of the open balance. */
  topCustomers: 5,
  concentrationShare: 0.5,
  concentrationMinCustomers: 10,
};

export type Severity = 'low' | 'medium' | 'high';
const RANK: Record<Severity, number> = { low: 1, medium: 2, high: 3 };

export interface Signal {
  type: string;
  severity: Severity;
  title: string;
  description: string;
  detected_at: string;
}

interface Found {
  signal: Signal;
  evidence: EvidenceItem[];
}

export const AGING_STEPS = [
  { key: '91_over', from: 91, label: '91+ days past due', severity: 'high' },
  { key: '61_90', from: 61, label: '61-90 days past due', severity: 'high' },
  { key: '31_60', from: 31, label: '31-60 days past due', severity: 'medium' },
  { key: '1_30', from: 1, label: '1-30 days past due', severity: 'low' },
] as const;

export function agingStep(dueDate: string, today: string) {
  const late = daysBetween(dueDate, today);
  return AGING_STEPS.find((s) => late >= s.from) ?? null;
}

/** A promise is broken once its date has passed with no payment on the invoice since it was made. */
export function isBroken(promise: PaymentPromise, invoice: OpenInvoice, today: string): boolean {
  return promise.date < today && (invoice.lastPaymentDate === null || invoice.lastPaymentDate < promise.madeAt.slice(0, 10));
}

function pick(found: Found[]): Found | null {
  let best: Found | null = null;
  for (const f of found) if (!best || RANK[f.signal.severity] > RANK[best.signal.severity]) best = f;
  return best;
}

function draft(entity: Record<string, unknown>, best: Found | null, reason: string, base: EvidenceItem[]): InsightDraft {
  return best
    ? { payload: { entity, signal: best.signal }, evidence: best.evidence }
    : { payload: { entity, signal: null, reason }, evidence: base };
}

export function invoiceSignal(invoice: OpenInvoice, customerName: string, promise: PaymentPromise | null, today: string): InsightDraft {
  const ref = { type: 'invoice' as const, id: invoice.id };
  const found: Found[] = [];
  if (promise && isBroken(promise, invoice, today)) {
    found.push({
      signal: {
        type: 'broken_promise',
        severity: 'high',
        title: 'Promise to pay broken',
        description: `${customerName} promised payment by ${longDate(promise.date)}; nothing has been paid on ${invoice.number} since.`,
        detected_at: addDays(promise.date, 1),
      },
      evidence: [
        fact('Promised payment date', promise.date, 'communication', { type: 'communication', id: promise.communicationId }),
        fact('Last payment on the invoice', invoice.lastPaymentDate, 'payment_history', ref),
      ],
    });
  }
  if (invoice.disputedAt) {
    found.push({
      signal: { type: 'dispute_opened', severity: 'medium', title: 'Invoice disputed', description: `${invoice.number} carries a dispute label.`, detected_at: invoice.disputedAt.slice(0, 10) },
      evidence: [fact('Dispute label since', invoice.disputedAt.slice(0, 10), 'invoice_labels', ref)],
    });
  }
  const step = agingStep(invoice.dueDate, today);
  if (step) {
    found.push({
      signal: {
        type: step.key === '1_30' ? 'newly_past_due' : 'moved_to_older_bucket',
        severity: step.severity,
        title: step.key === '1_30' ? 'Now past due' : `Moved to ${step.label}`,
        description: `${invoice.number} (${formatMoney(invoice.balance, invoice.currency)} open) was due ${longDate(invoice.dueDate)} and is now ${step.label}.`,
        detected_at: addDays(invoice.dueDate, step.from),
      },
      evidence: [fact('Due date', invoice.dueDate, 'invoice', ref), fact('Open balance', formatMoney(invoice.balance, invoice.currency), 'invoice', ref)],
    });
  }
  const entity = { type: 'invoice', id: invoice.id, number: invoice.number };
  return draft(entity, pick(found), 'Not past due, no dispute and no broken promise: nothing material has changed.', [fact('Due date', invoice.dueDate, 'invoice', ref)]);
}

export interface CustomerSignalInput {
  customer: CustomerFacts;
  /** The customer's settled invoices' days late, oldest settlement first (days since 1970 for dates). */
  daysLate: { daysLate: number; settledDay: number }[];
  brokenPromises: { invoice: OpenInvoice; promise: PaymentPromise }[];
  today: string;
}

export function customerSignal(input: CustomerSignalInput): InsightDraft {
  const { customer, today } = input;
  const t = SIGNAL_THRESHOLDS;
  const cref = { type: 'customer' as const, id: customer.id };
  const found: Found[] = [];
  const broken = input.brokenPromises[0];
  if (broken) {
    found.push({
      signal: {
        type: 'broken_promise',
        severity: 'high',
        title: 'Promise to pay broken',
        description: `${customer.name} promised payment by ${longDate(broken.promise.date)} and has not paid.`,
        detected_at: addDays(broken.promise.date, 1),
      },
      evidence: input.brokenPromises.map((b) => fact(`Promise for ${b.invoice.number} broken`, b.promise.date, 'communication', { type: 'communication', id: b.promise.communicationId })),
    });
  }
  const shift = patternShift(input.daysLate);
  if (shift) {
    found.push({
      signal: {
        type: 'payment_pattern_shift',
        severity: shift.delta >= t.shiftHighDays ? 'high' : 'medium',
        title: 'Paying later than usual',
        description: `The last ${t.recentCount} invoices were paid ${shift.recent.toFixed(0)} days late on average, against ${shift.baseline.toFixed(0)} before.`,
        detected_at: shift.detectedAt,
      },
      evidence: [
        fact(`Mean days late, last ${t.recentCount} settlements`, round1(shift.recent), 'payment_history', cref),
        fact('Mean days late before them', round1(shift.baseline), 'payment_history', cref),
      ],
    });
  }
  const silence = silenceAfterReminders(customer.communications, today);
  const overdue = customer.openInvoices.filter((i) => i.dueDate < today && i.balance > 0);
  if (silence && overdue.length) {
    found.push({
      signal: {
        type: 'silence_after_reminders',
        severity: 'medium',
        title: 'No answer to reminders',
        description: `${silence.count} reminders since ${silence.since.slice(0, 10)} and no reply while ${overdue.length} invoice${overdue.length === 1 ? ' is' : 's are'} past due.`,
        detected_at: addDays(silence.since.slice(0, 10), t.silenceDays),
      },
      evidence: [
        fact('Reminders without reply', silence.count, 'communication', { type: 'communication', id: silence.firstId }),
        fact('Last reply from the customer', silence.lastInbound, 'communication'),
      ],
    });
  }
  const idle = viewedWithoutActing(customer, today);
  if (idle) {
    const visits = idle.views > 1 ? ` (${idle.views} visits, the last on ${longDate(idle.lastView)})` : '';
    found.push({
      signal: {
        type: 'viewed_without_acting',
        severity: 'medium',
        title: 'Looked at the invoices and did not act',
        description: `${customer.name} opened the payment portal on ${longDate(idle.firstView)}${visits} and has not paid, promised or written since, while ${idle.overdue} invoice${idle.overdue === 1 ? ' is' : 's are'} past due.`,
        detected_at: addDays(idle.firstView, t.portalIdleDays),
      },
      evidence: [
        fact('Opened the payment portal on', idle.firstView, 'portal', cref),
        fact('Visits since without an answer or a payment', idle.views, 'portal', cref),
        fact('Past-due invoices', idle.overdue, 'invoices', cref),
      ],
    });
  }
  const jump = balanceJump(customer.openInvoices, today);
  if (jump) {
    found.push({
      signal: {
        type: 'balance_jump',
        severity: jump.share >= 1 ? 'medium' : 'low',
        title: 'Open balance jumped',
        description: `New invoices of the last ${t.jumpWindowDays} days add ${formatMoney(jump.added, customer.currency)} to ${formatMoney(jump.before, customer.currency)} already open.`,
        detected_at: jump.detectedAt,
      },
      evidence: [fact('Added in the last 30 days', formatMoney(jump.added, customer.currency), 'invoices', cref), fact('Open before', formatMoney(jump.before, customer.currency), 'invoices', cref)],
    });
  }
  const disputed = customer.openInvoices.filter((i) => i.disputedAt && daysBetween(i.disputedAt.slice(0, 10), today) <= t.disputeRecentDays);
  if (disputed.length) {
    const first = disputed[0];
    found.push({
      signal: {
        type: 'dispute_opened',
        severity: 'medium',
        title: 'Dispute opened',
        description: `${disputed.map((i) => i.number).join(', ')} ${disputed.length === 1 ? 'is' : 'are'} disputed.`,
        detected_at: first.disputedAt!.slice(0, 10),
      },
      evidence: disputed.map((i) => fact('Disputed invoice', i.number, 'invoice_labels', { type: 'invoice', id: i.id })),
    });
  }
  const entity = { type: 'customer', id: customer.id, name: customer.name };
  return draft(entity, pick(found), 'No broken promise, pattern shift, silence, unanswered portal visit, balance jump or new dispute.', [fact('Open invoices', customer.openInvoices.length, 'invoices', cref)]);
}

/** Recent days late clearly above the customer's own earlier baseline. */
export function patternShift(history: { daysLate: number; settledDay: number }[]) {
  const t = SIGNAL_THRESHOLDS;
  if (history.length < t.recentCount + t.baselineMin) return null;
  const recent = history.slice(-t.recentCount);
  const earlier = history.slice(0, -t.recentCount);
  const mean = (xs: { daysLate: number }[]) => xs.reduce((s, x) => s + x.daysLate, 0) / xs.length;
  const delta = mean(recent) - mean(earlier);
  if (delta < t.shiftDays) return null;
  const detectedAt = new Date(recent[recent.length - 1].settledDay * 86_400_000).toISOString().slice(0, 10);
  return { recent: mean(recent), baseline: mean(earlier), delta, detectedAt };
}

/** Reminders (outbound emails) since the customer last wrote or called in, when the first is old enough. */
export function silenceAfterReminders(communications: Communication[], today: string) {
  const t = SIGNAL_THRESHOLDS;
  let lastInbound: string | null = null;
  for (const c of communications) if (c.direction === 'inbound') lastInbound = c.occurredAt;
  const since = communications.filter((c) => c.direction === 'outbound' && c.kind === 'email' && (lastInbound === null || c.occurredAt > lastInbound));
  if (since.length < t.silenceReminders) return null;
  if (daysBetween(since[0].occurredAt.slice(0, 10), today) < t.silenceDays) return null;
  return { count: since.length, since: since[0].occurredAt, firstId: since[0].id, lastInbound: lastInbound?.slice(0, 10) ?? null };
}

/**
 * "Viewed but did not act": the customer opened their portal link (they have seen the invoices and
 * how to pay) and since then nothing: no word from them (a portal submission, a reply and a call
 * in are all inbound communications) and no payment, for `portalIdleDays` after the first such
 * look, while something is past due. A look on the day they acted counts as acted on. A rule, not
 * a fit: what it predicts is never learnt from.
 */
export function viewedWithoutActing(customer: Pick<CustomerFacts, 'communications' | 'openInvoices' | 'portalViews'>, today: string) {
  const overdue = customer.openInvoices.filter((i) => i.dueDate < today && i.balance > 0).length;
  if (!overdue || !customer.portalViews?.length) return null;
  let acted = '';
  for (const c of customer.communications) if (c.direction === 'inbound' && c.occurredAt.slice(0, 10) > acted) acted = c.occurredAt.slice(0, 10);
  for (const i of customer.openInvoices) if (i.lastPaymentDate && i.lastPaymentDate > acted) acted = i.lastPaymentDate;
  const unanswered = customer.portalViews.filter((day) => day > acted && day <= today).sort();
  if (!unanswered.length || daysBetween(unanswered[0], today) < SIGNAL_THRESHOLDS.portalIdleDays) return null;
  return { firstView: unanswered[0], lastView: unanswered[unanswered.length - 1], views: unanswered.length, overdue };
}

export function balanceJump(open: OpenInvoice[], today: string) {
  const t = SIGNAL_THRESHOLDS;
  const start = addDays(today, -t.jumpWindowDays);
  let added = 0;
  let before = 0;
  let detectedAt = '';
  for (const i of open) {
    if (i.invoiceDate > start) {
      added += i.balance;
      if (i.invoiceDate > detectedAt) detectedAt = i.invoiceDate;
    } else before += i.balance;
  }
  if (before <= 0 || added < before * t.jumpShare) return null;
  return { added, before, share: added / before, detectedAt };
}

export interface PortfolioFigures {
  today: string;
  currency: string;
  openBalance: number;
  overdueBalance: number;
  pastOpenBalance: number;
  pastOverdueBalance: number;
  dso: number | null;
  pastDso: number | null;
  topCustomers: { id: string; name: string; balance: number }[];
  customersWithBalance: number;
}

export function portfolioSignal(companyId: string, companyName: string, f: PortfolioFigures): InsightDraft {
  const t = SIGNAL_THRESHOLDS;
  const found: Found[] = [];
  const share = f.openBalance ? f.overdueBalance / f.openBalance : 0;
  const pastShare = f.pastOpenBalance ? f.pastOverdueBalance / f.pastOpenBalance : 0;
  const since = addDays(f.today, -t.portfolioWindowDays);
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  if (f.pastOpenBalance && Math.abs(share - pastShare) >= t.overdueShareMove) {
    const up = share > pastShare;
    found.push({
      signal: {
        type: up ? 'overdue_share_rising' : 'overdue_share_falling',
        severity: up ? (share - pastShare >= 2 * t.overdueShareMove ? 'high' : 'medium') : 'low',
        title: up ? 'More of the receivables are overdue' : 'Less of the receivables are overdue',
        description: `Overdue share ${pct(share)}, against ${pct(pastShare)} on ${since}.`,
        detected_at: f.today,
      },
      evidence: [fact('Overdue share today', pct(share), 'aging'), fact(`Overdue share on ${since}`, pct(pastShare), 'aging')],
    });
  }
  if (f.dso !== null && f.pastDso !== null && Math.abs(f.dso - f.pastDso) >= t.dsoMoveDays) {
    const up = f.dso > f.pastDso;
    found.push({
      signal: {
        type: up ? 'dso_rising' : 'dso_falling',
        severity: up ? 'medium' : 'low',
        title: up ? 'Customers take longer to pay' : 'Customers pay faster',
        description: `DSO ${f.dso.toFixed(0)} days, against ${f.pastDso.toFixed(0)} on ${since}.`,
        detected_at: f.today,
      },
      evidence: [fact('DSO today (days)', round1(f.dso), 'invoices'), fact(`DSO on ${since} (days)`, round1(f.pastDso), 'invoices')],
    });
  }
  const top = f.topCustomers.slice(0, t.topCustomers);
  const topShare = f.openBalance ? top.reduce((s, c) => s + c.balance, 0) / f.openBalance : 0;
  if (f.customersWithBalance >= t.concentrationMinCustomers && topShare >= t.concentrationShare) {
    found.push({
      signal: {
        type: 'concentration',
        severity: 'medium',
        title: `Receivables concentrated in ${top.length} customers`,
        description: `${top.map((c) => c.name).join(', ')} hold ${pct(topShare)} of the open balance.`,
        detected_at: f.today,
      },
      evidence: top.map((c) => fact(`Open balance of ${c.name}`, formatMoney(c.balance, f.currency), 'invoices', { type: 'customer', id: c.id })),
    });
  }
  const entity = { type: 'portfolio', id: companyId, name: companyName };
  return draft(entity, pick(found), 'Overdue share, DSO and concentration are steady.', [
    fact('Overdue share today', pct(share), 'aging'),
    fact('Open balance', formatMoney(f.openBalance, f.currency), 'aging'),
  ]);
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}
