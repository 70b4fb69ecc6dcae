/**
 * Reading insights. The list and detail live outside /api/companies/..., so no middleware checks
 * membership for them: these functions take the caller and only ever read companies the caller
 * belongs to.
 */
import { sql } from 'kysely';
import { membershipOf } from '../auth/memberships';
import type { Db } from '../db/connection';
import { readPage } from '../db/paging';
import type { InsightTargetType } from '../db/schema';
import { NotFoundError } from '../errors';
import { type EvidenceItem, parseEvidence } from './evidence';
import { likePattern } from '../invoices/filters';

export interface InsightView {
  id: string;
  company: string;
  target_type: InsightTargetType;
  target_id: string;
  customer: string | null;
  invoice: string | null;
  insight_type: string;
  payload_json: Record<string, unknown>;
  valid_from: string;
  valid_to: string | null;
  is_active: boolean;
  created_at: string;
  /** The facts, figures and records the insight rests on. */
  evidence: EvidenceItem[];
  /** The caller's own rating of this insight, if any. */
  my_feedback: { rating: 'up' | 'down'; comment: string | null; updated_at: string } | null;
}

export const DEFAULT_INSIGHT_LIMIT = 100;
/** The spec gives no paging; larger limits are clamped, and the response echoes the limit used. */
export const MAX_INSIGHT_LIMIT = 500;

export interface InsightFilter {
  companyId?: string;
  targetType?: InsightTargetType;
  targetId?: string;
  /** Partial match: "signal" matches customer_signal, invoice_signal and portfolio_signal. */
  insightType?: string;
  customerId?: string;
  invoiceId?: string;
  activeOnly?: boolean;
  /** Leaves out insights with nothing to report: a signal that found none, a plan to only monitor, a summary of no conversation. */
  reportableOnly?: boolean;
  limit?: number;
  offset?: number;
}

export interface InsightPage {
  count: number;
  limit: number;
  offset: number;
  results: InsightView[];
}

/** Insights with the caller's own feedback (at most one row per user and insight, so no duplicates). */
function withFeedback(query: ReturnType<typeof insightsOf>, userId: string) {
  return query.leftJoin('insight_feedback as f', (join) => join.onRef('f.insight_id', '=', 'n.id').on('f.user_id', '=', userId));
}

function insightsOf(db: Db) {
  return db.selectFrom('insights as n');
}

const COLUMNS = [
  'n.id',
  'n.company_id',
  'n.target_type',
  'n.target_id',
  'n.customer_id',
  'n.invoice_id',
  'n.insight_type',
  'n.payload_json',
  'n.valid_from',
  'n.valid_to',
  'n.created_at',
  'n.evidence',
  'f.rating',
  'f.comment',
  'f.updated_at as feedback_updated_at',
] as const;

function selectInsights(db: Db, userId: string) {
  return withFeedback(insightsOf(db), userId).select(COLUMNS);
}

/**
 * Insights of one company the caller belongs to. Without a company, or without membership, the
 * result is empty (the spec's rule), never an error that would reveal whether the company exists.
 */
export async function listInsights(db: Db, userId: string, filter: InsightFilter): Promise<InsightPage> {
  const limit = Math.min(filter.limit ?? DEFAULT_INSIGHT_LIMIT, MAX_INSIGHT_LIMIT);
  const offset = filter.offset ?? 0;
  const empty = { count: 0, limit, offset, results: [] };
  if (!filter.companyId || !(await membershipOf(db, userId, filter.companyId))) return empty;

  let q = insightsOf(db).where('n.company_id', '=', filter.companyId);
  if (filter.activeOnly ?? true) q = q.where('n.valid_to', 'is', null);
  if (filter.targetType) q = q.where('n.target_type', '=', filter.targetType);
  if (filter.targetId) q = q.where('n.target_id', '=', filter.targetId);
  if (filter.customerId) q = q.where('n.customer_id', '=', filter.customerId);
  if (filter.invoiceId) q = q.where('n.invoice_id', '=', filter.invoiceId);
  if (filter.insightType?.trim()) q = q.where(sql<boolean>`n.insight_type LIKE ${likePattern(filter.insightType.trim())} ESCAPE '\\'`);
  // Written out, not bound: SQLite uses the partial index of reportable insights (0290) only then.
  if (filter.reportableOnly) q = q.where(sql<boolean>`n.reportable = 1`);

  // The caller's feedback is at most one row per insight, so the count reads the insights alone (365k at 1M invoices).
  const { count, rows } = await readPage(q, withFeedback(q, userId).select(COLUMNS).orderBy('n.valid_from', 'desc').orderBy('n.id', 'desc'), { limit, offset });
  return { count, limit, offset, results: rows.map(toView) };
}

/** One insight, only if the caller belongs to its company: otherwise the same 404 as an unknown id. */
export async function getInsight(db: Db, userId: string, insightId: string): Promise<InsightView> {
  const row = await selectInsights(db, userId).where('n.id', '=', insightId).executeTakeFirst();
  if (!row || !(await membershipOf(db, userId, row.company_id))) throw new NotFoundError('Insight', insightId);
  return toView(row);
}

type InsightRow = Awaited<ReturnType<ReturnType<typeof selectInsights>['executeTakeFirstOrThrow']>>;

function toView(r: InsightRow): InsightView {
  return {
    id: r.id,
    company: r.company_id,
    target_type: r.target_type,
    target_id: r.target_id,
    customer: r.customer_id,
    invoice: r.invoice_id,
    insight_type: r.insight_type,
    payload_json: JSON.parse(r.payload_json) as Record<string, unknown>,
    valid_from: r.valid_from,
    valid_to: r.valid_to,
    is_active: r.valid_to === null,
    created_at: r.created_at,
    evidence: parseEvidence(r.evidence),
    my_feedback: r.rating ? { rating: r.rating, comment: r.comment, updated_at: r.feedback_updated_at as string } : null,
  };
}
