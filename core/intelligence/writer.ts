/**
 * Versioned writes of what the models computed for a set of customers (or the portfolio), in the
 * caller's transaction: an insight whose payload and evidence are unchanged is left alone; a
 * changed one closes the active row (valid_to) and opens a new one, so feedback stays with the
 * version it was given on; an active engine insight the models no longer produce is closed. New
 * proposals are inserted; proposed engine actions whose trigger is gone are cancelled.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { ActionApprovalsTable, ActionsTable, InsightsTable, InsightTargetType } from '../db/schema';
import { prepared } from '../db/statements';
import type { CommandTx } from '../engine';
import { newId } from '../ids';
import { INSIGHT_TYPE_NAMES, type InsightType, validateInsightPayload } from '../insights/payloads';
import type { EvidenceItem } from '../insights/evidence';
import { isReportable } from '../insights/reportable';
import type { ProposedAction } from './proposals';

export interface DesiredInsight {
  targetType: InsightTargetType;
  targetId: string;
  customerId: string | null;
  invoiceId: string | null;
  insightType: InsightType;
  payload: Record<string, unknown>;
  evidence: EvidenceItem[];
}

export interface WriteReport {
  opened: number;
  closed: number;
  unchanged: number;
  proposed: number;
  cancelled: number;
}

/** The engine owns every insight type: all are recomputed. */
const ENGINE_TYPES = new Set<string>(INSIGHT_TYPE_NAMES);

export type Existing = { id: string; target_type: string; target_id: string; insight_type: string; payload_json: string; evidence: string };

/** A customer's active insights, by the index of a customer's active insights. */
const ACTIVE_OF_CUSTOMER_SQL = `SELECT id, target_type, target_id, insight_type, payload_json, evidence FROM insights INDEXED BY insights_customer_recent
  WHERE company_id = ? AND customer_id = ? AND valid_to IS NULL`;

/** One row's INSERT with named parameters (a row object binds by its keys). */
function insertSql<T>(table: string, columns: readonly (keyof T & string)[]): string {
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`;
}

/** An insight with an active row already (another refresh's, written meanwhile) is not opened again. */
const INSERT_INSIGHT_SQL = `${insertSql<InsightsTable>('insights', ['id', 'company_id', 'target_type', 'target_id', 'customer_id', 'invoice_id', 'insight_type', 'payload_json', 'evidence', 'valid_from', 'valid_to', 'created_at', 'reportable'])} ON CONFLICT DO NOTHING`;
const INSERT_ACTION_SQL = insertSql<ActionsTable>('actions', [
  'id', 'company_id', 'invoice_id', 'customer_id', 'action_type', 'status', 'description', 'recommendation_label', 'trigger_event_label', 'is_action_required',
  'top_recommendation', 'is_ai_recommended', 'metadata', 'response_deadline', 'channel_id', 'external_id', 'executed_at', 'executed_by', 'deleted_at',
  'created_at', 'updated_at', 'evidence', 'trigger_key',
]);
const INSERT_APPROVAL_SQL = insertSql<ActionApprovalsTable>('action_approvals', ['id', 'company_id', 'action_id', 'operation', 'reason', 'comment', 'approver_id', 'user_id', 'created_at']);

const ACTIVE_OF_PORTFOLIO_SQL = `SELECT id, target_type, target_id, insight_type, payload_json, evidence FROM insights
  WHERE company_id = ? AND target_type = 'portfolio' AND valid_to IS NULL`;

const key = (targetType: string, targetId: string, insightType: string) => `${targetType}|${targetId}|${insightType}`;

/** The active engine insights of `scope`: these customers' (their invoices' included), or the portfolio's. */
export function activeInsights(sqlite: BetterSqlite3.Database, companyId: string, scope: { customerIds: string[] } | { portfolio: true }): Existing[] {
  const existing: Existing[] = [];
  if ('portfolio' in scope) {
    for (const row of prepared(sqlite, ACTIVE_OF_PORTFOLIO_SQL).all(companyId) as Existing[]) existing.push(row);
  } else {
    const ofCustomer = prepared(sqlite, ACTIVE_OF_CUSTOMER_SQL);
    // A loop, not push(...): one customer's hundreds of thousands of rows overflow the stack as arguments.
    for (const customerId of [...scope.customerIds].sort()) for (const row of ofCustomer.all(companyId, customerId) as Existing[]) existing.push(row);
  }
  return existing.filter((e) => ENGINE_TYPES.has(e.insight_type));
}

/** An insight to open, all but its id and timestamps (given when it is written). */
type NewInsight = Omit<InsightsTable, 'id' | 'valid_from' | 'created_at'>;

/** One change to the active insights: close a row, open one, or both (a new version of one insight). */
export interface InsightStep {
  close: string | null;
  open: NewInsight | null;
}

/**
 * What brings `existing` (active insights) to `desired`: an insight whose payload and evidence are
 * unchanged is left alone; a changed one is a close and an open in one step, so that the steps can
 * be written in several transactions without an insight ever missing or doubled between them. Pure.
 */
export function planInsights(companyId: string, existing: Existing[], desired: DesiredInsight[]): { steps: InsightStep[]; unchanged: number } {
  const current = new Map(existing.map((e) => [key(e.target_type, e.target_id, e.insight_type), e]));
  const steps: InsightStep[] = [];
  let unchanged = 0;
  for (const d of desired) {
    const payload = validateInsightPayload(d.insightType, d.targetType, d.payload);
    const payloadJson = JSON.stringify(payload);
    const evidenceJson = JSON.stringify(d.evidence);
    const k = key(d.targetType, d.targetId, d.insightType);
    const before = current.get(k);
    current.delete(k);
    if (before && before.payload_json === payloadJson && before.evidence === evidenceJson) {
      unchanged += 1;
      continue;
    }
    steps.push({
      close: before?.id ?? null,
      open: {
        company_id: companyId,
        target_type: d.targetType,
        target_id: d.targetId,
        customer_id: d.customerId,
        invoice_id: d.invoiceId,
        insight_type: d.insightType,
        payload_json: payloadJson,
        evidence: evidenceJson,
        valid_to: null,
        reportable: isReportable(d.insightType, payload) ? 1 : 0,
      },
    });
  }
  for (const gone of current.values()) steps.push({ close: gone.id, open: null });
  return { steps, unchanged };
}

/**
 * Writes `steps` in the caller's transaction. A close applies only to a row still active, and an
 * open is skipped when its insight has an active row already: steps planned outside the
 * transaction (a large customer's, in several) leave alone what another refresh wrote meanwhile.
 */
export async function applyInsightSteps(tx: CommandTx, sqlite: BetterSqlite3.Database, steps: InsightStep[], ids: () => string = newId): Promise<{ opened: number; closed: number }> {
  // One statement each, prepared once per connection: multi-row statements of every length a chunk
  // ends with were each compiled and cached (hundreds of KB of SQLite memory apiece).
  const close = prepared(sqlite, 'UPDATE insights SET valid_to = ? WHERE id = ? AND valid_to IS NULL');
  const insert = prepared(sqlite, INSERT_INSIGHT_SQL);
  const closed: string[] = [];
  const opened: InsightsTable[] = [];
  for (const step of steps) {
    if (step.close && close.run(tx.now, step.close).changes) closed.push(step.close);
    if (!step.open) continue;
    const row: InsightsTable = { ...step.open, id: ids(), valid_from: tx.now, created_at: tx.now };
    if (insert.run(row).changes) opened.push(row);
  }
  // The change record holds payload and evidence as JSON values: parsed back here, a slice at a
  // time, rather than kept as objects beside their text (a large customer's steps were hundreds of
  // MB of objects).
  await tx.recordMany([
    ...closed.map((id) => ({ entity: 'insight', entityId: id, op: 'update' as const, data: { valid_to: tx.now } })),
    ...opened.map((r) => ({ entity: 'insight', entityId: r.id, op: 'insert' as const, data: { ...r, payload_json: JSON.parse(r.payload_json), evidence: JSON.parse(r.evidence) } })),
  ]);
  return { opened: opened.length, closed: closed.length };
}

/**
 * Brings the active engine insights of `scope` (these customers and their invoices, or the
 * portfolio) to `desired`, in the caller's transaction.
 */
export async function writeInsights(
  tx: CommandTx,
  sqlite: BetterSqlite3.Database,
  companyId: string,
  scope: { customerIds: string[] } | { portfolio: true },
  desired: DesiredInsight[],
  ids: () => string = newId,
): Promise<Omit<WriteReport, 'proposed' | 'cancelled'>> {
  const { steps, unchanged } = planInsights(companyId, activeInsights(sqlite, companyId, scope), desired);
  return { ...(await applyInsightSteps(tx, sqlite, steps, ids)), unchanged };
}

/** Inserts the proposals of one customer chunk and cancels engine proposals whose trigger is no longer live. */
export async function writeProposals(
  tx: CommandTx,
  sqlite: BetterSqlite3.Database,
  companyId: string,
  proposals: Array<ProposedAction & { customerId: string }>,
  stale: Array<{ id: string; reason: string }>,
  ids: () => string = newId,
): Promise<{ proposed: number; cancelled: number }> {
  // Ids ascend in the order they are made and the action lists show the newest first (created_at,
  // then id): made last, a trigger's recommendation is listed above its alternatives.
  const made = [...proposals].reverse();
  const rows: ActionsTable[] = made.map((p) => ({
    id: ids(),
    company_id: companyId,
    invoice_id: p.invoiceId,
    customer_id: p.customerId,
    action_type: p.actionType,
    status: 'proposed' as const,
    description: p.description,
    recommendation_label: p.recommendationLabel,
    trigger_event_label: p.triggerEventLabel,
    is_action_required: p.isActionRequired ? (1 as const) : (0 as const),
    top_recommendation: p.topRecommendation,
    is_ai_recommended: 1 as const,
    metadata: JSON.stringify(p.metadata),
    response_deadline: p.responseDeadline,
    channel_id: null,
    external_id: null,
    executed_at: null,
    executed_by: null,
    deleted_at: null,
    created_at: tx.now,
    updated_at: tx.now,
    evidence: JSON.stringify(p.evidence),
    trigger_key: p.triggerKey,
    value_at_risk: null,
  }));
  const insertAction = prepared(sqlite, INSERT_ACTION_SQL);
  for (const row of rows) insertAction.run(row);
  // Only the proposals still proposed now: one the collector approved or rejected since the facts
  // were read keeps its state, and gets no cancellation in its log or the change record. `+company_id`:
  // each id is looked up by key rather than walking the company's proposed actions.
  const cancel = prepared(sqlite, `UPDATE actions SET status = 'cancelled', updated_at = ? WHERE +company_id = ? AND id = ? AND status = 'proposed' RETURNING id`);
  const cancelled = new Set<string>();
  for (const s of stale) if (cancel.get(tx.now, companyId, s.id)) cancelled.add(s.id);
  const approvals: ActionApprovalsTable[] = stale.filter((s) => cancelled.has(s.id)).map((s) => ({
    id: ids(),
    company_id: companyId,
    action_id: s.id,
    operation: 'cancel' as const,
    reason: s.reason,
    comment: null,
    approver_id: null,
    user_id: null,
    created_at: tx.now,
  }));
  const insertApproval = prepared(sqlite, INSERT_APPROVAL_SQL);
  for (const approval of approvals) insertApproval.run(approval);
  await tx.recordMany([
    // The proposals' own objects, not their text parsed back: a statement of one customer's
    // 100,000 invoices lists them all in its metadata and evidence (megabytes).
    ...rows.map((r, i) => ({ entity: 'action', entityId: r.id, op: 'insert' as const, data: { ...r, metadata: made[i].metadata, evidence: made[i].evidence } })),
    ...approvals.map((a) => ({ entity: 'action', entityId: a.action_id, op: 'update' as const, data: { status: 'cancelled', updated_at: tx.now } })),
    ...approvals.map((a) => ({ entity: 'action_approval', entityId: a.id, op: 'insert' as const, data: { ...a } })),
  ]);
  return { proposed: rows.length, cancelled: approvals.length };
}
