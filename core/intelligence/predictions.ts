/**
 * invoice_pay_date_prediction: the pay-date model's prediction for an open invoice, or the promise
 * the customer made for it (basis `promise`) while that promise has not passed.
 */
import { formatMoney } from '../money';
import { type EvidenceItem, fact } from './evidence';
import type { OpenInvoice } from './facts';
import { type PayDatePrediction, predictFrom, type ResidualDistribution, type Scenario } from './pay-date';
import type { PaymentPromise } from './promises';

/** The share of probability a promise date gets; the rest follows the model's distribution. */
export const PROMISE_PROBABILITY = 0.6;

export interface InsightDraft {
  payload: Record<string, unknown>;
  evidence: EvidenceItem[];
}

export function payDatePrediction(invoice: OpenInvoice, dist: ResidualDistribution | null, promise: PaymentPromise | null, today: string): InsightDraft {
  const model = dist && predictFrom(dist, invoice);
  const invoiceRef = { type: 'invoice' as const, id: invoice.id };
  if (promise && promise.date >= today) {
    const scenarios = mergeScenarios([{ date: promise.date, probability: PROMISE_PROBABILITY }, ...(model ? scale(notBefore(model.scenarios, today), 1 - PROMISE_PROBABILITY) : [])]);
    return {
      payload: {
        predicted_date: promise.date,
        basis: 'promise',
        evidence_sources: model ? ['communication_thread', 'payment_history'] : ['communication_thread'],
        alternative_scenarios: model ? scenarios : [{ date: promise.date, probability: 1 }],
        ...(model ? { interval_80: { low: model.interval.low, high: model.interval.high } } : {}),
      },
      evidence: [
        fact('Promise to pay on', promise.date, 'communication', { type: 'communication', id: promise.communicationId }),
        fact(promise.logged ? 'Promise logged with the call' : 'The customer said', promise.sentence.slice(0, 200), 'communication', { type: 'communication', id: promise.communicationId }),
        ...(promise.amount !== null ? [fact('Promised amount', formatMoney(promise.amount, invoice.currency), 'communication', { type: 'communication', id: promise.communicationId })] : []),
        ...(model ? modelEvidence(invoice, model) : []),
      ],
    };
  }
  if (!model) {
    return {
      payload: { predicted_date: null, basis: 'historical', evidence_sources: ['payment_history'], alternative_scenarios: [], reason: 'No invoice of this company has been settled yet' },
      evidence: [fact('Settled invoices in the company', 0, 'payment_history', invoiceRef)],
    };
  }
  // Still open today: the distribution given that it was not paid before today. Its median is the
  // model's own only when none of the distribution lies before today: with a quarter or more
  // already past, the median of what is left is later (not "today, or else later").
  const upcoming = notBefore(model.scenarios, today);
  const predicted = model.scenarios.every((s) => s.date >= today) ? model.predicted_date : conditionalMedian(upcoming);
  return {
    payload: {
      predicted_date: predicted,
      basis: model.customer_observations >= 3 ? 'historical' : 'pattern',
      evidence_sources: ['payment_history', ...(invoice.disputed ? ['dispute_labels'] : [])],
      alternative_scenarios: upcoming,
      interval_80: { low: model.interval.low < today ? today : model.interval.low, high: model.interval.high < today ? today : model.interval.high },
    },
    evidence: modelEvidence(invoice, model),
  };
}

function modelEvidence(invoice: OpenInvoice, model: PayDatePrediction): EvidenceItem[] {
  const ref = { type: 'invoice' as const, id: invoice.id };
  const items = [
    fact('Due date', invoice.dueDate, 'invoice', ref),
    fact("Customer's settled invoices learnt from", model.customer_observations, 'payment_history', { type: 'customer', id: invoice.customerId }),
    fact("Weight of the customer's own history (vs the portfolio)", model.customer_weight_share, 'payment_history'),
    fact('Typical days late for this invoice', model.days_late, 'pay_date_model'),
    fact('Settled invoices in the portfolio', model.portfolio_observations, 'payment_history'),
  ];
  if (invoice.disputed) items.push(fact('Disputed: extra days late a dispute brings', model.dispute_shift_days, 'dispute_labels', ref));
  if (invoice.billChannel) {
    items.push(fact(`Bill sent ${invoice.billChannel === 'paper' ? 'on paper' : 'electronically'}: days late it brings (vs the portfolio)`, model.channel_shift_days, 'invoice', ref));
  }
  return items;
}

/** The scenarios on or after today, renormalised; today alone when every scenario has passed. */
function notBefore(scenarios: Scenario[], today: string): Scenario[] {
  const ahead = scenarios.filter((s) => s.date >= today);
  const mass = ahead.reduce((sum, s) => sum + s.probability, 0);
  return mass > 0 ? mergeScenarios(ahead.map((s) => ({ ...s, probability: s.probability / mass }))) : [{ date: today, probability: 1 }];
}

function conditionalMedian(scenarios: Scenario[]): string {
  let running = 0;
  for (const s of scenarios) {
    running += s.probability;
    if (running >= 0.5) return s.date;
  }
  return scenarios[scenarios.length - 1].date;
}

function scale(scenarios: Scenario[], by: number): Scenario[] {
  return scenarios.map((s) => ({ ...s, probability: s.probability * by }));
}

/** One entry per date, in date order, probabilities rounded to 3 places and summing to exactly 1. */
export function mergeScenarios(scenarios: Scenario[]): Scenario[] {
  const by = new Map<string, number>();
  for (const s of scenarios) by.set(s.date, (by.get(s.date) ?? 0) + s.probability);
  const merged = [...by].sort(([a], [b]) => (a < b ? -1 : 1)).map(([date, p]) => ({ date, probability: Math.round(p * 1000) / 1000 }));
  const total = merged.reduce((s, x) => s + x.probability, 0);
  if (merged.length) {
    const largest = merged.reduce((best, x) => (x.probability > best.probability ? x : best));
    largest.probability = Math.round((largest.probability + 1 - total) * 1000) / 1000;
  }
  return merged;
}
