/**
 * An invoice's activity history for the desk's detail panel: its communications (emails, calls,
 * notes) and its collection actions, newest first, in one list.
 */
import { sql } from 'kysely';
import { communicationTitle } from '../communications/rules';
import type { Db } from '../db/connection';
import type { CallOutcome } from '../db/schema';
import { NotFoundError } from '../errors';
import { fromMinor } from '../money';
import type { ReadingDto } from '../communications/timeline';
import { readingOfRow } from '../replies/readings';

export interface ActivityEntry {
  kind: 'communication' | 'action';
  id: string;
  /** When it happened: occurred_at of a communication; executed_at (else created_at) of an action. */
  at: string;
  /** email, call or note for a communication; email, call or task for an action. */
  type: string;
  /** outbound, inbound or internal (communications); null for actions. */
  direction: string | null;
  /** The action's status; null for communications. */
  status: string | null;
  title: string;
  detail: string | null;
  by: string | null;
  /** A call's outcome; null otherwise. */
  outcome: CallOutcome | null;
  /** A promise to pay logged with a call: its date and amount (major units); null otherwise. */
  promise_date: string | null;
  promise_amount: number | null;
  /** A reply from the customer: how it reads (core/replies/reading.ts); null otherwise. */
  reading: ReadingDto | null;
}

export const MAX_ACTIVITY = 200;
const MAX_DETAIL = 2000;

function clip(text: string | null): string | null {
  if (text === null) return null;
  return text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL)}…` : text;
}

/** Merges two newest-first lists into one newest-first list of at most `limit` entries (ties by id). */
export function mergeNewestFirst(a: ActivityEntry[], b: ActivityEntry[], limit: number): ActivityEntry[] {
  return [...a, ...b].sort((x, y) => (x.at === y.at ? (x.id < y.id ? 1 : -1) : x.at < y.at ? 1 : -1)).slice(0, limit);
}

export async function invoiceActivity(db: Db, companyId: string, invoiceId: string, limit = MAX_ACTIVITY): Promise<ActivityEntry[]> {
  const invoice = await db.selectFrom('invoices').select('id').where('id', '=', invoiceId).where('company_id', '=', companyId).executeTakeFirst();
  if (!invoice) throw new NotFoundError('Invoice', invoiceId);
  const [communications, actions] = await Promise.all([
    db
      .selectFrom('communications')
      .select(['id', 'kind', 'direction', 'subject', 'body', 'occurred_at', 'author_name', 'outcome', 'promise_date', 'promise_amount'])
      .select(['reading_kind', 'reading_date', 'reading_amount', 'reading_sentence', 'reading_by_name', 'reading_corrected_at'])
      .where('invoice_id', '=', invoiceId)
      .where('company_id', '=', companyId)
      .orderBy('occurred_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute(),
    db
      .selectFrom('actions')
      .select(['id', 'action_type', 'status', 'description', 'recommendation_label', 'executed_at', 'executed_by', 'created_at'])
      .where('invoice_id', '=', invoiceId)
      .where('company_id', '=', companyId)
      .where('deleted_at', 'is', null)
      // The entry is dated by execution when there was one: the limit must keep the newest by that date.
      .orderBy(sql`coalesce(executed_at, created_at)`, 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute(),
  ]);
  const fromCommunications: ActivityEntry[] = communications.map((c) => ({
    kind: 'communication',
    id: c.id,
    at: c.occurred_at,
    type: c.kind,
    direction: c.direction,
    status: null,
    title: communicationTitle(c.kind, c.direction, c.subject, c.outcome),
    detail: clip(c.body),
    by: c.author_name,
    outcome: c.outcome,
    promise_date: c.promise_date,
    promise_amount: c.promise_amount === null ? null : fromMinor(c.promise_amount),
    reading: readingOfRow(c),
  }));
  const fromActions: ActivityEntry[] = actions.map((a) => ({
    kind: 'action',
    id: a.id,
    at: a.executed_at ?? a.created_at,
    type: a.action_type,
    direction: null,
    status: a.status,
    title: a.description,
    detail: clip(a.recommendation_label),
    by: a.executed_by,
    outcome: null,
    promise_date: null,
    promise_amount: null,
    reading: null,
  }));
  return mergeNewestFirst(fromCommunications, fromActions, limit);
}
