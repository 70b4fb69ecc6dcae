/**
 * Writing insights: recording a new one (which supersedes the active one of the same type on the
 * same target) and a user's thumbs up/down on one.
 */
import type { InsightTargetType, InsightsTable } from '../db/schema';
import { type CommandTx, type Engine, runCommand, type Scope } from '../engine';
import { NotFoundError, ValidationError } from '../errors';
import { newId } from '../ids';
import { type InsightType, validateInsightPayload } from './payloads';
import { getInsight, type InsightView } from './queries';
import { isReportable } from './reportable';

type EngineLike = Pick<Engine, 'db' | 'clock'>;

export interface NewInsightInput {
  target_type: InsightTargetType;
  /** Required for customer and invoice targets; a portfolio insight defaults to the company id. */
  target_id?: string;
  insight_type: InsightType;
  payload_json: unknown;
}

/**
 * Records a new active insight. The previous active insight of the same type on the same target
 * ends (valid_to = now) in the same transaction, so at most one is ever active.
 */
export async function createInsight(engine: EngineLike, scope: Scope & { userId: string }, input: NewInsightInput): Promise<InsightView> {
  const payload = validateInsightPayload(input.insight_type, input.target_type, input.payload_json);
  return runCommand(engine, 'create_insight', scope, async (tx) => {
    const target = await resolveTarget(tx, scope.companyId, input.target_type, input.target_id);
    const previous = await tx.db
      .selectFrom('insights')
      .select('id')
      .where('company_id', '=', scope.companyId)
      .where('target_type', '=', input.target_type)
      .where('target_id', '=', target.targetId)
      .where('insight_type', '=', input.insight_type)
      .where('valid_to', 'is', null)
      .execute();
    for (const { id } of previous) {
      await tx.db.updateTable('insights').set({ valid_to: tx.now }).where('id', '=', id).execute();
      await tx.record('insight', id, 'update', { valid_to: tx.now });
    }
    const row: InsightsTable = {
      id: newId(),
      company_id: scope.companyId,
      target_type: input.target_type,
      target_id: target.targetId,
      customer_id: target.customerId,
      invoice_id: target.invoiceId,
      insight_type: input.insight_type,
      payload_json: JSON.stringify(payload),
      valid_from: tx.now,
      valid_to: null,
      created_at: tx.now,
      evidence: '[]',
      reportable: isReportable(input.insight_type, payload) ? 1 : 0,
    };
    await tx.db.insertInto('insights').values(row).execute();
    await tx.record('insight', row.id, 'insert', { ...row, payload_json: payload });
    return getInsight(tx.db, scope.userId, row.id);
  });
}

/** The target must be this company's customer or invoice; an invoice insight is also linked to its customer. */
async function resolveTarget(tx: CommandTx, companyId: string, targetType: InsightTargetType, targetId: string | undefined) {
  if (targetType === 'portfolio') {
    // A portfolio insight is about its own company and nothing else.
    if (targetId !== undefined && targetId.toLowerCase() !== companyId) {
      throw new ValidationError("A portfolio insight's target is its own company", { target_id: ['Omit it, or give this company’s id'] });
    }
    return { targetId: companyId, customerId: null, invoiceId: null };
  }
  if (!targetId) throw new ValidationError(`A ${targetType} insight needs target_id`, { target_id: ['Required for this target_type'] });
  const id = targetId.toLowerCase();
  if (targetType === 'customer') {
    const customer = await tx.db.selectFrom('customers').select('id').where('company_id', '=', companyId).where('id', '=', id).executeTakeFirst();
    if (!customer) throw new ValidationError('The customer does not exist in this company', { target_id: ['Unknown customer'] });
    return { targetId: customer.id, customerId: customer.id, invoiceId: null };
  }
  const invoice = await tx.db.selectFrom('invoices').select(['id', 'customer_id']).where('company_id', '=', companyId).where('id', '=', id).executeTakeFirst();
  if (!invoice) throw new ValidationError('The invoice does not exist in this company', { target_id: ['Unknown invoice'] });
  return { targetId: invoice.id, customerId: invoice.customer_id, invoiceId: invoice.id };
}

export interface FeedbackInput {
  rating: 'up' | 'down';
  comment?: string | null;
}

export interface FeedbackView {
  id: string;
  insight: string;
  rating: 'up' | 'down';
  comment: string | null;
  user: string;
  created_at: string;
  updated_at: string;
}

/**
 * One feedback record per user per insight: a later submission overwrites rating and comment (an
 * omitted comment clears it) and keeps the record's id and created_at.
 */
export async function submitFeedback(
  engine: EngineLike,
  scope: Scope & { userId: string },
  insightId: string,
  input: FeedbackInput,
): Promise<{ feedback: FeedbackView; created: boolean }> {
  return runCommand(engine, 'insight_feedback', scope, async (tx) => {
    const insight = await tx.db.selectFrom('insights').select('id').where('company_id', '=', scope.companyId).where('id', '=', insightId).executeTakeFirst();
    if (!insight) throw new NotFoundError('Insight', insightId);
    const comment = input.comment ?? null;
    const existing = await tx.db.selectFrom('insight_feedback').selectAll().where('insight_id', '=', insightId).where('user_id', '=', scope.userId).executeTakeFirst();
    if (existing) {
      await tx.db.updateTable('insight_feedback').set({ rating: input.rating, comment, updated_at: tx.now }).where('id', '=', existing.id).execute();
      await tx.record('insight_feedback', existing.id, 'update', { rating: input.rating, comment });
      return { created: false, feedback: view({ ...existing, rating: input.rating, comment, updated_at: tx.now }) };
    }
    const row = {
      id: newId(),
      company_id: scope.companyId,
      insight_id: insightId,
      user_id: scope.userId,
      rating: input.rating,
      comment,
      created_at: tx.now,
      updated_at: tx.now,
    };
    await tx.db.insertInto('insight_feedback').values(row).execute();
    await tx.record('insight_feedback', row.id, 'insert', row);
    return { created: true, feedback: view(row) };
  });
}

function view(r: { id: string; insight_id: string; rating: 'up' | 'down'; comment: string | null; user_id: string; created_at: string; updated_at: string }): FeedbackView {
  return { id: r.id, insight: r.insight_id, rating: r.rating, comment: r.comment, user: r.user_id, created_at: r.created_at, updated_at: r.updated_at };
}
