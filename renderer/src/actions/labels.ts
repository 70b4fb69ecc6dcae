import type { QueryOf, Schemas } from '../api/client';
import { inWords } from '../insights/describe';

/**
 * Words for the action states and channels, and the drafted content an action carries. Pure. The
 * records are keyed by the API's own enums, so a value the server adds or drops fails the typecheck.
 */
export type Action = Schemas['Action'];
type ActionsQuery = QueryOf<'/api/companies/{company_id}/actions'>;
/** The page's tabs: every category but alternatives, which a recommendation's panel shows. */
export type ActionCategory = Exclude<NonNullable<ActionsQuery['category']>, 'alternatives'>;
export type ActionSort = NonNullable<ActionsQuery['sort']>;

/** In the order the page shows them. */
export const CATEGORY_LABELS: Record<ActionCategory, string> = {
  needs_action: 'Needs action',
  awaiting_customer: 'Awaiting customer',
  in_progress: 'In progress',
  history: 'History',
};
export const CATEGORIES = Object.keys(CATEGORY_LABELS) as ActionCategory[];

export const STATUS_WORDS: Record<Action['status'], string> = {
  proposed: 'Proposed',
  scheduled: 'Scheduled',
  processing: 'Approved',
  completed: 'Done',
  cancelled: 'Cancelled',
};

export const TYPE_WORDS: Record<Action['action_type'], string> = { email: 'Email', call: 'Call', task: 'Task' };
export const ACTION_TYPES = Object.keys(TYPE_WORDS) as Array<Action['action_type']>;

export const REJECT_REASONS = ['Not needed now', 'Wrong recommendation', 'Customer already paid', 'Customer disputes the invoice', 'Handled another way', 'Other'];

/**
 * The invoices of a decision on the customer as a whole that lists them, short enough for the
 * inbox's invoice cell ('INV-1, INV-2', 'INV-1 and 4 more'); null when it lists none.
 */
export function listedWords(action: Pick<Action, 'listed_invoices' | 'listed_invoice_count'>): string | null {
  const count = action.listed_invoice_count;
  const first = action.listed_invoices[0]?.invoice_number;
  if (count === 0 || first === undefined) return null;
  if (count === 2 && action.listed_invoices.length === 2) return `${first}, ${action.listed_invoices[1].invoice_number}`;
  return count === 1 ? first : `${first} and ${count - 1} more`;
}

/** Who an approved call or task was given to, if anyone. */
export function assigneeName(action: Pick<Action, 'metadata'>): string | null {
  const a = action.metadata.assignee;
  return typeof a === 'object' && a !== null && typeof (a as { name?: unknown }).name === 'string' ? (a as { name: string }).name : null;
}

/** An approved email whose send failed or never started: Retry (with an edit) is the way on. */
export function needsRetry(action: Action): boolean {
  return !action.is_deleted && action.status === 'processing' && action.action_type === 'email' && (action.delivery === null || action.delivery.status === 'failed' || action.delivery.status === 'held');
}

/** The status in words, an approved action's progress included ('Sending failed', 'To do by Dana Demo'). */
export function progressWords(action: Action): string {
  if (action.is_deleted) return 'Deleted';
  if (action.status !== 'processing') return STATUS_WORDS[action.status];
  if (action.action_type === 'email') {
    switch (action.delivery?.status) {
      case undefined:
        return 'Approved, not sent';
      case 'queued':
        return 'Approved, sending';
      case 'sending':
        return 'Sending now';
      case 'sent':
        return 'Sent';
      case 'failed':
        return 'Sending failed';
      case 'held':
        return 'Held, not sent';
    }
  }
  const who = assigneeName(action);
  return who ? `To do by ${who}` : 'Approved, to do';
}

/** What an action recommends, in words: its label, else its description, with dates as dates ('Dec 4, 2026'). */
export function recommendationOf(action: Pick<Action, 'recommendation_label' | 'description'>): string {
  return inWords(action.recommendation_label ?? action.description);
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() ? value : null;
}

/** What the recommendation drafted: a subject, a body, talking points. final_content wins once someone edited it. */
export function draftOf(action: Action): { subject: string | null; body: string; talkingPoints: string[] } {
  const m = action.metadata;
  const points = Array.isArray(m.talking_points) ? m.talking_points.filter((p): p is string => typeof p === 'string') : [];
  // Engine proposals made before 2026-11-23 keep their draft as { subject, body } under `draft`.
  const older = typeof m.draft === 'object' && m.draft !== null ? (m.draft as Record<string, unknown>) : {};
  return {
    subject: text(m.draft_subject) ?? text(older.subject) ?? text(m.subject),
    body: text(m.final_content) ?? text(m.draft_body) ?? text(older.body) ?? '',
    talkingPoints: points,
  };
}

/** Which operations the state machine allows from a status (core/actions/rules.ts); buttons follow it. */
export function allowedOperations(action: Action): Array<'approve' | 'reject' | 'send' | 'cancel' | 'complete'> {
  if (action.is_deleted) return [];
  switch (action.status) {
    case 'proposed':
    case 'scheduled':
      return ['approve', 'send', 'complete', 'reject', 'cancel'];
    case 'processing':
      return ['complete', 'reject', 'cancel'];
    case 'cancelled':
      return ['reject'];
    case 'completed':
      return [];
  }
}

/** A local date-time input's value ('2026-12-01T17:00') as an ISO instant with its zone, as send requires. */
export function deadlineInstant(local: string): string | undefined {
  if (!local) return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The contact rule's answer in the list's words: "Held: INV-1 is disputed." reads "On hold: INV-1 is disputed." */
export function heldWords(hold: string): string {
  return hold.replace(/^Held: /, 'On hold: ').replace(/^Left out: /, 'Left out of the email: ');
}

/**
 * An open decision's "Decide by", and whether that moment has passed: a proposal stays while its
 * reason holds, so its deadline can be days behind, and the list marks it rather than showing a
 * past date as if it were still ahead.
 */
export function decideBy(action: Pick<Action, 'response_deadline' | 'status'>, now: Date): { date: string; overdue: boolean } | null {
  if (!action.response_deadline) return null;
  const open = action.status === 'proposed' || action.status === 'scheduled';
  return { date: action.response_deadline.slice(0, 10), overdue: open && Date.parse(action.response_deadline) < now.getTime() };
}
