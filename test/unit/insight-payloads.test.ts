import { describe, expect, it } from 'vitest';
import type { InsightTargetType } from '../../core/db/schema';
import { ValidationError } from '../../core/errors';
import { INSIGHT_TYPES, type InsightType, validateInsightPayload, wordCount } from '../../core/insights/payloads';
import { isReportable } from '../../core/insights/reportable';
import { SAMPLE_PAYLOADS } from '../support/actions-fixtures';

function errorsOf(type: InsightType, payload: unknown, target: InsightTargetType = INSIGHT_TYPES[type].target): Record<string, string[]> {
  try {
    validateInsightPayload(type, target, payload);
  } catch (err) {
    if (err instanceof ValidationError) return err.errors ?? {};
    throw err;
  }
  throw new Error('expected a ValidationError');
}

describe('insight payload shapes', () => {
  it.each(Object.entries(SAMPLE_PAYLOADS))('accepts a spec-shaped %s payload', (type, payload) => {
    expect(validateInsightPayload(type as InsightType, INSIGHT_TYPES[type as InsightType].target, payload)).toEqual(payload);
  });

  it('keeps keys the spec does not name', () => {
    expect(validateInsightPayload('customer_strategy_plan', 'customer', { strategy_plan: {}, model_version: 'v3' })).toEqual({ strategy_plan: {}, model_version: 'v3' });
  });

  it('refuses a type on the wrong target', () => {
    expect(errorsOf('invoice_conversation_summary', SAMPLE_PAYLOADS.invoice_conversation_summary, 'customer')).toHaveProperty('target_type');
  });

  describe('customer_conversation_summary', () => {
    const base = SAMPLE_PAYLOADS.customer_conversation_summary;
    it('limits the summary to 18 words and allows an empty one', () => {
      const eighteen = Array.from({ length: 18 }, (_, i) => `w${i}`).join(' ');
      expect(() => validateInsightPayload('customer_conversation_summary', 'customer', { ...base, summary: eighteen })).not.toThrow();
      expect(errorsOf('customer_conversation_summary', { ...base, summary: `${eighteen} more` })).toHaveProperty('payload_json.summary');
      expect(() => validateInsightPayload('customer_conversation_summary', 'customer', { ...base, summary: '', action: null, evidence_trace: null })).not.toThrow();
      expect(wordCount('  a  b\tc\n')).toBe(3);
    });

    it.each([
      ['tone', 'angry'],
      ['active_court', 'Legal'],
      ['active_court', 'ar'],
      ['commitment_date', '2026-02-30'],
      ['predicted_pay_date', '30/11/2026'],
      ['evidence_trace', ['one', 'two']],
      ['evidence_trace', ['line one\nline two']],
      ['action_breakdown', 'email'],
      ['unrelated_items', 'topic'],
      ['last_touch', null],
    ])('refuses %s = %j', (field, value) => {
      const errors = errorsOf('customer_conversation_summary', { ...base, [field]: value });
      expect(Object.keys(errors).some((k) => k.startsWith(`payload_json.${field}`))).toBe(true);
    });

    it('requires every named field', () => {
      const { tone: _tone, ...withoutTone } = base;
      expect(errorsOf('customer_conversation_summary', withoutTone)).toHaveProperty('payload_json.tone');
    });
  });

  it.each([0, 11, 5.5, '5'])('invoice_conversation_summary refuses stress_level %j', (stress_level) => {
    expect(errorsOf('invoice_conversation_summary', { ...SAMPLE_PAYLOADS.invoice_conversation_summary, stress_level })).toHaveProperty('payload_json.stress_level');
  });

  it('signals carry a reason exactly when signal is null', () => {
    expect(errorsOf('invoice_signal', { entity: {}, signal: null })).toHaveProperty('payload_json.reason');
    expect(errorsOf('customer_signal', { entity: {}, signal: { kind: 'x' }, reason: 'why' })).toHaveProperty('payload_json.reason');
    expect(errorsOf('portfolio_signal', { signal: null, reason: 'x' })).toHaveProperty('payload_json.entity');
  });

  it('invoice_pay_date_prediction: basis enum, date or null', () => {
    const base = SAMPLE_PAYLOADS.invoice_pay_date_prediction;
    expect(errorsOf('invoice_pay_date_prediction', { ...base, basis: 'guess' })).toHaveProperty('payload_json.basis');
    expect(errorsOf('invoice_pay_date_prediction', { ...base, predicted_date: 'soon' })).toHaveProperty('payload_json.predicted_date');
    expect(() => validateInsightPayload('invoice_pay_date_prediction', 'invoice', { ...base, predicted_date: null, basis: 'judgement' })).not.toThrow();
    expect(errorsOf('invoice_pay_date_prediction', { ...base, alternative_scenarios: ['2026-12-15'] })).toHaveProperty('payload_json.alternative_scenarios.0');
  });

  it('customer_strategy_plan needs a strategy_plan object', () => {
    expect(errorsOf('customer_strategy_plan', { strategy_plan: 'call them' })).toHaveProperty('payload_json.strategy_plan');
  });
});

describe('whether an insight has something to report', () => {
  it('a signal that found none, a plan to only monitor and a summary of no conversation have nothing; the rest have', () => {
    expect(isReportable('customer_signal', { signal: null, reason: 'Nothing unusual' })).toBe(false);
    expect(isReportable('invoice_signal', {})).toBe(false);
    expect(isReportable('portfolio_signal', { signal: 'dso_rising' })).toBe(true);
    expect(isReportable('customer_strategy_plan', { strategy_plan: { strategy: 'monitor' } })).toBe(false);
    expect(isReportable('customer_strategy_plan', { strategy_plan: { strategy: 'escalate' } })).toBe(true);
    expect(isReportable('customer_conversation_summary', { summary: '' })).toBe(false);
    expect(isReportable('customer_conversation_summary', {})).toBe(false);
    expect(isReportable('customer_conversation_summary', { summary: 'They asked for a copy of INV-7.' })).toBe(true);
    expect(isReportable('invoice_pay_date_prediction', { predicted_date: null })).toBe(true);
  });
});
