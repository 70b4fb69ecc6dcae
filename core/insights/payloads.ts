/**
 * The payload shape of each insight_type, as the spec lays it out, and the target each type is
 * about. Fields the spec names are checked; inner objects it does not describe (last_touch,
 * entity, signal, strategy_plan, ...) only need to be objects; extra keys are kept.
 */
import { z } from 'zod';
import type { InsightTargetType } from '../db/schema';
import { isValidDate } from '../dates';
import { ValidationError } from '../errors';

const anObject = z.record(z.string(), z.unknown());
const isoDate = z.string().refine(isValidDate, 'Use a date as YYYY-MM-DD');

export const SUMMARY_MAX_WORDS = 18;

export function wordCount(text: string): number {
  const trimmed = text.trim();
  return trimmed ? trimmed.split(/\s+/).length : 0;
}

export const TONES = ['cooperative', 'neutral', 'frustrated', 'avoidant', 'unknown', 'amicable', 'defiant'] as const;
export const ACTIVE_COURTS = ['AR', 'Sales', 'Operations', 'Executive', 'Customer'] as const;
export const PREDICTION_BASES = ['promise', 'historical', 'pattern', 'judgement'] as const;

const customerConversationSummary = z.looseObject({
  summary: z.string().refine((s) => wordCount(s) <= SUMMARY_MAX_WORDS, `At most ${SUMMARY_MAX_WORDS} words`),
  tone: z.enum(TONES),
  active_court: z.enum(ACTIVE_COURTS),
  action: z.string().nullable(),
  action_breakdown: anObject,
  last_touch: anObject,
  commitment_date: isoDate.nullable(),
  predicted_pay_date: isoDate.nullable(),
  evidence_trace: z
    .array(z.string().refine((line) => !/[\r\n]/.test(line), 'One line, without line breaks'))
    .max(1, 'At most one line')
    .nullable(),
  unrelated_items: z.array(z.string()),
});

const invoiceConversationSummary = z.looseObject({
  stress_level: z.number().int().min(1).max(10),
  active_topic: z.string(),
  desired_outcome: z.string(),
  blocker: z.string(),
  last_touch: anObject,
});

/** A signal payload explains a null signal with a reason, and carries a reason only then. */
const signal = z
  .looseObject({
    entity: anObject,
    signal: anObject.nullable(),
    reason: z.string().optional(),
  })
  .superRefine((value, ctx) => {
    if (value.signal === null && value.reason === undefined) ctx.addIssue({ code: 'custom', path: ['reason'], message: 'Required when signal is null' });
    if (value.signal !== null && value.reason !== undefined) ctx.addIssue({ code: 'custom', path: ['reason'], message: 'Only present when signal is null' });
  });

const payDatePrediction = z.looseObject({
  predicted_date: isoDate.nullable(),
  basis: z.enum(PREDICTION_BASES),
  evidence_sources: z.array(z.string()),
  alternative_scenarios: z.array(anObject),
});

const strategyPlan = z.looseObject({ strategy_plan: anObject });

/** Extension: what the payment history teaches (core/intelligence/lessons.ts). */
const portfolioLessons = z.looseObject({ lessons: z.array(anObject) });

/** Extension: how far the cash-in forecast, replayed on the latest weeks, landed (core/intelligence/forecast-accuracy.ts). */
const portfolioForecastAccuracy = z.looseObject({ weeks: z.number().int().min(0), horizons: z.array(anObject) });

export const INSIGHT_TYPES = {
  customer_conversation_summary: { target: 'customer', schema: customerConversationSummary },
  invoice_conversation_summary: { target: 'invoice', schema: invoiceConversationSummary },
  customer_signal: { target: 'customer', schema: signal },
  invoice_signal: { target: 'invoice', schema: signal },
  portfolio_signal: { target: 'portfolio', schema: signal },
  invoice_pay_date_prediction: { target: 'invoice', schema: payDatePrediction },
  customer_strategy_plan: { target: 'customer', schema: strategyPlan },
  portfolio_lessons: { target: 'portfolio', schema: portfolioLessons },
  portfolio_forecast_accuracy: { target: 'portfolio', schema: portfolioForecastAccuracy },
} as const satisfies Record<string, { target: InsightTargetType; schema: z.ZodType }>;

export type InsightType = keyof typeof INSIGHT_TYPES;
export const INSIGHT_TYPE_NAMES = Object.keys(INSIGHT_TYPES) as [InsightType, ...InsightType[]];

/**
 * Checks a payload against its type's shape and the type against the target; every problem is a
 * 400 with the field path under payload_json.
 */
export function validateInsightPayload(insightType: InsightType, targetType: InsightTargetType, payload: unknown): Record<string, unknown> {
  const spec = INSIGHT_TYPES[insightType];
  if (spec.target !== targetType) {
    throw new ValidationError(`${insightType} insights are about a ${spec.target}`, { target_type: [`Must be ${spec.target} for ${insightType}`] });
  }
  const result = spec.schema.safeParse(payload);
  if (!result.success) {
    const errors: Record<string, string[]> = {};
    for (const issue of result.error.issues) {
      const key = ['payload_json', ...issue.path.map(String)].join('.');
      (errors[key] ??= []).push(issue.message);
    }
    throw new ValidationError(`The payload_json does not match the ${insightType} shape`, errors);
  }
  return result.data as Record<string, unknown>;
}
