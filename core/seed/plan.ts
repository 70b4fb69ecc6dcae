/**
 * The life of one generated invoice: when and how it gets paid, disputed, written off. Pure
 * functions over day numbers (0 = today, negative = past), so the rules are tested directly and
 * every outcome stays consistent with the payments it produces.
 */
import type { PaymentStatus } from '../db/schema';
import type { Rng } from './random';
import type { PayerProfile } from './names';

/** Outcomes the generator can be told to produce, so small ledgers still show every status. */
export type ForcedOutcome = 'open' | 'pending' | 'partial_failed' | 'paid' | 'overpaid' | 'credit_memo' | 'written_off';

export interface PlannedPayment {
  day: number;
  /** Minor units. */
  amount: number;
  status: PaymentStatus;
  /** Day a VOIDED payment was reversed. */
  voidedDay: number | null;
  note: string | null;
}

export interface InvoicePlan {
  payments: PlannedPayment[];
  /** Deliberate closings only; paid/overpaid follow from the payments (core/payments/balance.ts). */
  closing: 'credit_memo' | 'written_off' | null;
  closedDay: number | null;
  /** Open and headed for a credit memo: the customer disputes it. */
  disputed: boolean;
  /** Open, overdue, and the customer has promised to pay on this day. */
  promisedDay: number | null;
  /** Open, long overdue and unlikely to be paid without escalation. */
  escalate: boolean;
}

export interface PlanInput {
  invoiceDay: number;
  dueDay: number;
  /** Minor units. */
  total: number;
  /** Mean days paid after the due date (negative: early). */
  lateMean: number;
  /** Probability the customer never pays this invoice. */
  defaultP: number;
  force?: ForcedOutcome;
}

/** Payer profiles: mean lateness range in days, and the share of invoices never paid. */
export const PAYERS: Record<PayerProfile, { late: [number, number]; defaultP: number }> = {
  prompt: { late: [-6, 3], defaultP: 0.003 },
  slow: { late: [8, 25], defaultP: 0.012 },
  late: { late: [25, 55], defaultP: 0.035 },
  problem: { late: [60, 140], defaultP: 0.22 },
};

export const PAYER_WEIGHTS: Array<[PayerProfile, number]> = [
  ['prompt', 0.4],
  ['slow', 0.35],
  ['late', 0.2],
  ['problem', 0.05],
];

function share(rng: Rng, total: number, lo: number, hi: number): number {
  return Math.max(1, Math.round(total * (lo + rng.next() * (hi - lo))));
}

/** Uniform day in [lo, hi], or hi when the range is empty. */
function dayIn(rng: Rng, lo: number, hi: number): number {
  return lo >= hi ? hi : rng.int(lo, hi);
}

function payment(day: number, amount: number, status: PaymentStatus, note: string | null = null, voidedDay: number | null = null): PlannedPayment {
  return { day, amount, status, voidedDay, note };
}

const OPEN: Omit<InvoicePlan, 'payments'> = { closing: null, closedDay: null, disputed: false, promisedDay: null, escalate: false };

export function planInvoice(rng: Rng, input: PlanInput): InvoicePlan {
  if (input.force) return forcedPlan(input, input.force);
  const { invoiceDay, dueDay, total } = input;
  const first = invoiceDay + 1;
  const payments: PlannedPayment[] = [];

  // A dispute that ends in a credit memo (open and disputed until then).
  if (rng.chance(0.015)) {
    const closeDay = dueDay + rng.int(5, 45);
    const partialDay = invoiceDay + rng.int(5, 25);
    if (rng.chance(0.3) && partialDay <= Math.min(0, closeDay - 1)) payments.push(payment(partialDay, share(rng, total, 0.3, 0.7), 'PARTIAL', 'Short payment; balance disputed'));
    if (closeDay <= 0) return { ...OPEN, payments, closing: 'credit_memo', closedDay: closeDay };
    return { ...OPEN, payments, disputed: true };
  }

  // Never paid: maybe a token payment, a declined card, and a write-off once long past due.
  if (rng.chance(input.defaultP)) {
    let paid = 0;
    const partialDay = dueDay + rng.int(0, 40);
    if (rng.chance(0.25) && partialDay <= 0 && partialDay >= first) {
      paid = share(rng, total, 0.1, 0.4);
      payments.push(payment(partialDay, paid, 'PARTIAL'));
    }
    if (dueDay < -120 && rng.chance(0.5)) return { ...OPEN, payments, closing: 'written_off', closedDay: dueDay + rng.int(120, -dueDay) };
    if (dueDay < 0 && rng.chance(0.1)) payments.push(payment(dayIn(rng, Math.max(dueDay + 1, partialDay + 1, first), 0), total - paid, 'FAILED', 'Card declined'));
    return { ...OPEN, payments, escalate: dueDay < -60 };
  }

  const payDay = Math.max(first, dueDay + Math.round(input.lateMean + rng.normal() * 6));
  if (payDay <= 0) {
    let remaining = total;
    if (payDay - invoiceDay >= 14 && rng.chance(0.15)) {
      const part = share(rng, total, 0.25, 0.6);
      payments.push(payment(rng.int(invoiceDay + 3, payDay - 7), part, 'PARTIAL'));
      remaining -= part;
    }
    if (payDay - invoiceDay >= 12 && rng.chance(0.004)) {
      payments.push(payment(payDay - rng.int(3, 8), remaining, 'VOIDED', 'Check returned: insufficient funds', payDay));
    }
    const extra = rng.chance(0.01) ? rng.int(2_500, 25_000) : 0;
    payments.push(payment(payDay, remaining + extra, 'PAID', extra ? 'Paid twice the freight line; credit on account' : null));
    return { ...OPEN, payments };
  }

  // Still open: the money is expected after today.
  let paid = 0;
  if (-invoiceDay >= 10 && rng.chance(0.12)) {
    paid = share(rng, total, 0.2, 0.6);
    payments.push(payment(rng.int(invoiceDay + 3, -1), paid, 'PARTIAL'));
  }
  const lastDay = payments.length ? payments[payments.length - 1].day : invoiceDay;
  if (payDay <= 5 && rng.chance(0.35)) {
    payments.push(payment(dayIn(rng, Math.max(-3, lastDay + 1), 0), total - paid, 'PENDING', 'ACH initiated; awaiting settlement'));
  } else if (dueDay < 0 && rng.chance(0.04)) {
    payments.push(payment(dayIn(rng, Math.max(dueDay + 1, lastDay + 1), 0), total - paid, 'FAILED', 'Card declined'));
  }
  const promisedDay = dueDay < 0 && payDay <= 14 && rng.chance(0.4) ? payDay : null;
  return { ...OPEN, payments, promisedDay };
}

/** A fixed shape per outcome, relative to the due date (callers pick due dates that fit). */
function forcedPlan(input: PlanInput, force: ForcedOutcome): InvoicePlan {
  const { dueDay, total } = input;
  const part = (ratio: number) => Math.round(total * ratio);
  switch (force) {
    case 'open':
      return { ...OPEN, payments: [] };
    case 'pending':
      return { ...OPEN, payments: [payment(-1, total, 'PENDING', 'ACH initiated; awaiting settlement')] };
    case 'partial_failed':
      return {
        ...OPEN,
        payments: [payment(Math.min(dueDay - 5, -2), part(0.4), 'PARTIAL'), payment(-1, total - part(0.4), 'FAILED', 'Card declined')],
        promisedDay: null,
      };
    case 'paid':
      return { ...OPEN, payments: [payment(Math.min(dueDay + 6, -1), total, 'PAID')] };
    case 'overpaid':
      return { ...OPEN, payments: [payment(Math.min(dueDay + 3, -1), total + 12_500, 'PAID', 'Paid twice the freight line; credit on account')] };
    case 'credit_memo':
      return { ...OPEN, payments: [payment(dueDay + 2, part(0.5), 'PARTIAL', 'Short payment; balance disputed')], closing: 'credit_memo', closedDay: Math.min(dueDay + 30, -1) };
    case 'written_off':
      return { ...OPEN, payments: [payment(dueDay + 20, part(0.2), 'PARTIAL')], closing: 'written_off', closedDay: Math.min(dueDay + 150, -1) };
  }
}

/**
 * Where a small ledger is made to show every status and aging bucket: an outcome per due date
 * (days from today). Larger ledgers reach all of them anyway; these rows make it certain.
 */
export const FORCED: Array<{ dueDay: number; force: ForcedOutcome }> = [
  { dueDay: 12, force: 'open' },
  { dueDay: 20, force: 'pending' },
  { dueDay: -9, force: 'partial_failed' },
  { dueDay: -18, force: 'open' },
  { dueDay: -44, force: 'open' },
  { dueDay: -76, force: 'open' },
  { dueDay: -133, force: 'open' },
  { dueDay: -70, force: 'paid' },
  { dueDay: -38, force: 'overpaid' },
  { dueDay: -64, force: 'credit_memo' },
  { dueDay: -210, force: 'written_off' },
];
