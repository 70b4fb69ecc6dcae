/**
 * An insight's payload in a collector's words: a title, a few lines, the severity, and its
 * evidence. Pure: unit-tested directly. Shapes follow core/insights/payloads.ts (and the inner
 * shapes README lists); anything unexpected is shown as text, never as JSON.
 */
import type { QueryOf } from '../api/client';
import { type AccuracyFigures, accuracyWords } from '../analytics/accuracy-words';
import { formatDate } from '../desk/format';

export type InsightTarget = NonNullable<QueryOf<'/api/intelligence/insights'>['target_type']>;
/** The feed's target filter, in the order it offers them. */
export const INSIGHT_TARGET_WORDS: Record<InsightTarget, string> = { customer: 'Customers', invoice: 'Invoices', portfolio: 'The portfolio' };
export const INSIGHT_TARGETS = Object.keys(INSIGHT_TARGET_WORDS) as InsightTarget[];

export interface EvidenceItem {
  fact: string;
  value?: unknown;
  source: string;
  ref?: { type: string; id: string };
}

/** Invoice-desk filters a lesson's invoices are listed by (core/intelligence/lessons.ts). */
export interface InvoiceLink {
  label: string;
  filters: { status?: string[]; labels?: string[]; customer_id?: string };
}

export interface InsightWords {
  kind: string;
  title: string;
  lines: string[];
  severity: 'high' | 'medium' | 'low' | null;
  evidence: EvidenceItem[];
  /** Links to the invoices a statement rests on. */
  links?: InvoiceLink[];
}

export const INSIGHT_KIND: Record<string, string> = {
  customer_conversation_summary: 'Conversation summary',
  invoice_conversation_summary: 'Conversation summary',
  customer_signal: 'Customer signal',
  invoice_signal: 'Invoice signal',
  portfolio_signal: 'Portfolio signal',
  invoice_pay_date_prediction: 'Pay date prediction',
  customer_strategy_plan: 'Strategy plan',
  portfolio_lessons: 'What the payment history says',
  portfolio_forecast_accuracy: 'How good the cash forecast is',
};

const BASIS: Record<string, string> = {
  promise: 'a promise to pay',
  historical: 'how this customer paid before',
  pattern: 'a payment pattern',
  judgement: "a collector's judgement",
};

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A date written inside the engine's sentences ("was due 2026-11-21 and ..."), standing alone: not
 * part of a longer token such as an invoice number (INV-2026-11-21) or a timestamp.
 */
const DATE_IN_TEXT = /(?<![\w-])(\d{4}-\d{2}-\d{2})(?![\w:-])/g;

/** Words for any value: dates as dates (also inside sentences), lists joined, objects as "key: value" pairs. */
export function inWords(value: unknown): string {
  if (value === null || value === undefined || value === '') return '';
  if (typeof value === 'string') return value.replace(DATE_IN_TEXT, (date) => formatDate(date));
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map(inWords).filter(Boolean).join('; ');
  return Object.entries(value as Obj)
    .map(([k, v]) => `${humanize(k)}: ${inWords(v)}`)
    .join(', ');
}

export function humanize(key: string): string {
  const text = key.replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function severityOf(value: unknown): InsightWords['severity'] {
  return value === 'high' || value === 'medium' || value === 'low' ? value : null;
}

function evidenceOf(insight: { evidence?: unknown }): EvidenceItem[] {
  if (!Array.isArray(insight.evidence)) return [];
  return insight.evidence.filter((e): e is EvidenceItem => isObj(e) && typeof e.fact === 'string' && typeof e.source === 'string');
}

export function describeInsight(insight: { insight_type: string; payload_json: Obj; evidence?: unknown }): InsightWords {
  const p = insight.payload_json;
  const kind = INSIGHT_KIND[insight.insight_type] ?? humanize(insight.insight_type);
  const base = { kind, severity: null, evidence: evidenceOf(insight) } as const;
  const line = (label: string, value: unknown) => {
    const text = inWords(value);
    return text ? `${label}: ${text}` : null;
  };
  const lines = (...items: Array<string | null>) => items.filter((l): l is string => l !== null);
  switch (insight.insight_type) {
    case 'customer_conversation_summary':
      return {
        ...base,
        // The engine's summary of a customer nobody has written to or called yet is empty.
        title: inWords(p.summary) || 'No conversation with this customer yet',
        lines: lines(
          line('Tone', p.tone === 'unknown' ? null : p.tone),
          line('Ball is with', p.active_court),
          line('Next step', p.action),
          line('Promised for', p.commitment_date),
          line('Expected payment', p.predicted_pay_date),
          line('Evidence', p.evidence_trace),
        ),
      };
    case 'invoice_conversation_summary':
      return {
        ...base,
        severity: typeof p.stress_level === 'number' ? (p.stress_level >= 7 ? 'high' : p.stress_level >= 4 ? 'medium' : 'low') : null,
        title: inWords(p.active_topic) || 'Conversation summary',
        lines: lines(line('Stress', typeof p.stress_level === 'number' ? `${p.stress_level} of 10` : null), line('Outcome sought', p.desired_outcome), line('Blocker', p.blocker)),
      };
    case 'customer_signal':
    case 'invoice_signal':
    case 'portfolio_signal': {
      if (!isObj(p.signal)) return { ...base, title: 'No change worth acting on', lines: lines(line('Why', p.reason)) };
      const s = p.signal;
      const known = new Set(['type', 'severity', 'title', 'description', 'detected_at']);
      const rest = Object.entries(s).filter(([k]) => !known.has(k));
      return {
        ...base,
        severity: severityOf(s.severity),
        title: inWords(s.title) || humanize(String(s.type ?? s.kind ?? 'signal')),
        lines: lines(inWords(s.description) || null, ...rest.map(([k, v]) => line(humanize(k), v))),
      };
    }
    case 'invoice_pay_date_prediction': {
      const scenarios = Array.isArray(p.alternative_scenarios) ? p.alternative_scenarios.filter(isObj) : [];
      return {
        ...base,
        title: p.predicted_date ? `Expected to be paid on ${formatDate(String(p.predicted_date))}` : 'No reliable pay date',
        lines: lines(
          p.predicted_date ? null : inWords(p.reason) || null,
          typeof p.collectible_90d === 'number' ? `Chance of payment within 90 days: ${Math.round(p.collectible_90d * 100)}%` : null,
          p.basis ? `Based on ${BASIS[String(p.basis)] ?? inWords(p.basis)}` : null,
          scenarios.length
            ? `Otherwise: ${scenarios.map((s) => `${inWords(s.date)}${typeof s.probability === 'number' ? ` (${Math.round(s.probability * 100)}% likely)` : ''}`).join(', ')}`
            : null,
          line('Sources', Array.isArray(p.evidence_sources) ? p.evidence_sources.map((x) => humanize(String(x)).toLowerCase()) : null),
        ),
      };
    }
    case 'portfolio_lessons': {
      const lessons = Array.isArray(p.lessons) ? p.lessons.filter(isObj) : [];
      return {
        ...base,
        title: lessons.length ? 'What the payment history says' : 'Not enough payment history to learn from yet',
        lines: lessons.length ? lessons.map((l) => `${inWords(l.title)}. ${inWords(l.text)}`) : lines(line('Why', p.reason)),
        links: lessons.filter((l) => isObj(l.link)).map((l) => ({ label: `Invoices behind “${inWords(l.title)}”`, filters: l.link as InvoiceLink['filters'] })),
      };
    }
    case 'portfolio_forecast_accuracy': {
      const words = accuracyWords(isObj(p) && Array.isArray(p.horizons) ? (p as unknown as AccuracyFigures) : null);
      return { ...base, title: `Cash forecast: ${words.headline.charAt(0).toLowerCase()}${words.headline.slice(1)}`, lines: words.lines };
    }
    case 'customer_strategy_plan': {
      const plan = isObj(p.strategy_plan) ? p.strategy_plan : {};
      const options = isObj(plan.options) ? plan.options : {};
      return {
        ...base,
        title: inWords(plan.summary) || humanize(String(plan.strategy ?? 'strategy plan')),
        lines: lines(
          line('Strategy', plan.strategy ? humanize(String(plan.strategy)) : null),
          ...Object.entries(options).map(([channel, option]) => line(humanize(channel), isObj(option) ? (option.subject ?? option.talking_points ?? option.task ?? option) : option)),
        ),
      };
    }
    default:
      return { ...base, title: kind, lines: Object.entries(p).map(([k, v]) => line(humanize(k), v)).filter((l): l is string => l !== null) };
  }
}

const SEVERITY_RANK = { high: 0, medium: 1, low: 2 } as const;

/** The first insight of each type, in the order given (feedOrder: the most severe, then newest). */
export function onePerKind<T extends { insight_type: string }>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((i) => !seen.has(i.insight_type) && seen.add(i.insight_type));
}

/** Most severe first, then newest: the order of the feed. */
export function feedOrder<T extends { valid_from: string; words: InsightWords }>(items: T[]): T[] {
  return [...items].sort((a, b) => {
    const sa = a.words.severity ? SEVERITY_RANK[a.words.severity] : 3;
    const sb = b.words.severity ? SEVERITY_RANK[b.words.severity] : 3;
    return sa - sb || b.valid_from.localeCompare(a.valid_from);
  });
}

/** An invoice's signal (the invoice API's `signals`) as a line: its title, and since when. */
export function signalLine(ref: { insight_type: string; signal: Record<string, unknown>; detected_at: string }): string {
  const { title, type, severity } = ref.signal;
  const what = typeof title === 'string' && title.trim() ? title : typeof type === 'string' ? humanize(type) : humanize(ref.insight_type);
  const since = typeof ref.signal.detected_at === 'string' ? ref.signal.detected_at : ref.detected_at;
  return `${what}${typeof severity === 'string' ? ` (${severity})` : ''}, since ${inWords(since.slice(0, 10))}`;
}

/** One evidence item as a sentence: "Days since last reply: 21 (payment history)". */
export function evidenceLine(e: EvidenceItem): string {
  const value = inWords(e.value);
  return `${e.fact}${value ? `: ${value}` : ''} (${humanize(e.source).toLowerCase()})`;
}
