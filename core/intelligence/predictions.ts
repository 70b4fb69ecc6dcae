/**
 * invoice_pay_date_prediction: the pay-date model's prediction for an open invoice, or the promise
 * the customer made for it (basis `promise`) while that promise has not passed.
 */
import { daysBetween } from '../dates';
import { formatMoney } from '../money';
import { type ConditionalPrediction, conditionalPrediction, type PortfolioSurvival } from './conditional';
import { type EvidenceItem, fact } from '../insights/evidence';
import type { OpenInvoice } from './facts';
import { type PayDatePrediction, predictFrom, type ResidualDistribution, type Scenario, shiftsOf } from './pay-date';
import type { PaymentPromise } from './promises';

/** The share of probability a promise date gets; the rest follows the model's distribution. */
export const PROMISE_PROBABILITY = 0.6;

export interface InsightDraft {
  payload: Record<string, unknown>;
  evidence: EvidenceItem[];
}

/**
 * The prediction for an open invoice as of `today`: the distribution of its payment date given it
 * is still unpaid today (conditional.ts), so every date is today or later and an invoice long past
 * what its customer's history allows is dated by what happened to the portfolio's invoices that got
 * as late, or not dated at all, with the reason.
 */
export function payDatePrediction(invoice: OpenInvoice, dist: ResidualDistribution | null, promise: PaymentPromise | null, today: string, survival: PortfolioSurvival | null): InsightDraft {
  const model = dist && predictFrom(dist, invoice);
  const age = daysBetween(invoice.dueDate, today);
  const cond = dist && survival && conditionalPrediction(dist, survival, { dueDate: invoice.dueDate, shift: shiftsOf(dist, invoice).offset }, age);
  const invoiceRef = { type: 'invoice' as const, id: invoice.id };
  if (promise && promise.date >= today) {
    const rest = cond?.predicted ? scale(mergeScenarios(cond.predicted.scenarios), 1 - PROMISE_PROBABILITY) : [];
    return {
      payload: {
        predicted_date: promise.date,
        basis: 'promise',
        evidence_sources: model ? ['communication_thread', 'payment_history'] : ['communication_thread'],
        alternative_scenarios: rest.length ? mergeScenarios([{ date: promise.date, probability: PROMISE_PROBABILITY }, ...rest]) : [{ date: promise.date, probability: 1 }],
        ...(cond?.predicted ? { interval_80: cond.predicted.interval } : {}),
        ...(cond ? { collectible_90d: promised90d(promise.date, today, cond) } : {}),
      },
      evidence: [
        fact('Promise to pay on', promise.date, 'communication', { type: 'communication', id: promise.communicationId }),
        fact(promise.logged ? 'Promise logged with the call' : 'The customer said', promise.sentence.slice(0, 200), 'communication', { type: 'communication', id: promise.communicationId }),
        ...(promise.amount !== null ? [fact('Promised amount', formatMoney(promise.amount, invoice.currency), 'communication', { type: 'communication', id: promise.communicationId })] : []),
        ...(model && cond ? modelEvidence(invoice, model, cond, age) : []),
      ],
    };
  }
  if (!model || !cond) {
    return {
      payload: { predicted_date: null, basis: 'historical', evidence_sources: ['payment_history'], alternative_scenarios: [], reason: 'No invoice of this company has been settled yet' },
      evidence: [fact('Settled invoices in the company', 0, 'payment_history', invoiceRef)],
    };
  }
  const basis = model.customer_observations >= 3 ? 'historical' : 'pattern';
  const sources = ['payment_history', ...(invoice.disputed ? ['dispute_labels'] : [])];
  if (!cond.predicted) {
    return {
      payload: { predicted_date: null, basis, evidence_sources: sources, alternative_scenarios: [], collectible_90d: cond.collectible_90d, reason: cond.reason },
      evidence: modelEvidence(invoice, model, cond, age),
    };
  }
  return {
    payload: {
      predicted_date: cond.predicted.date,
      basis,
      evidence_sources: sources,
      alternative_scenarios: mergeScenarios(cond.predicted.scenarios),
      interval_80: cond.predicted.interval,
      collectible_90d: cond.collectible_90d,
    },
    evidence: modelEvidence(invoice, model, cond, age),
  };
}

/** With a promise: the promise's share if it falls in the next 90 days, and the model's share of the rest. */
function promised90d(promiseDate: string, today: string, cond: ConditionalPrediction): number {
  const promised = daysBetween(today, promiseDate) < 90 ? PROMISE_PROBABILITY : 0;
  return Math.round((promised + (1 - PROMISE_PROBABILITY) * cond.collectible_90d) * 1000) / 1000;
}

function modelEvidence(invoice: OpenInvoice, model: PayDatePrediction, cond: ConditionalPrediction, age: number): EvidenceItem[] {
  const ref = { type: 'invoice' as const, id: invoice.id };
  const items = [
    fact('Due date', invoice.dueDate, 'invoice', ref),
    ...(age > 0
      ? [
          fact('Invoices of the company that were still unpaid this long after their due date', cond.reached, 'payment_history'),
          fact('Chance of payment within the next 90 days', cond.collectible_90d, 'pay_date_model'),
        ]
      : []),
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
