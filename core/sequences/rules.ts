/**
 * The rules of sequences, steps, enrollments and the outreach queue, as small pure functions.
 */
import type { ScheduledStepStatus, SequenceStatus, StepType } from '../db/schema';
import type { AttachmentKind } from '../documents/attachments';
import { ConflictError, InvalidStateError, ValidationError } from '../errors';
import { isUuid } from '../ids';

export const SEQUENCE_STATUSES = ['draft', 'active', 'archived'] as const satisfies readonly SequenceStatus[];
export const SEQUENCE_ACTIONS = ['activate', 'archive'] as const;
export type SequenceAction = (typeof SEQUENCE_ACTIONS)[number];

export const DEFAULT_TIMEZONE = 'America/New_York';
export const NAME_MAX = 200;

/**
 * Lifecycle: draft -> active (activate), draft or active -> archived (archive), and archived ->
 * active (activate brings a retired program back). Anything else is refused, never a silent no-op.
 */
export function nextSequenceStatus(current: SequenceStatus, action: SequenceAction): SequenceStatus {
  if (action === 'activate') {
    if (current === 'active') throw new InvalidStateError('The sequence is already active');
    return 'active';
  }
  if (current === 'archived') throw new InvalidStateError('The sequence is already archived');
  return 'archived';
}

export const STEP_TYPES = ['reminder', 'call', 'task'] as const satisfies readonly StepType[];
/** The step type that the queue's send operation delivers as an email. */
export const EMAIL_STEP_TYPE: StepType = 'reminder';

export const STEP_DEFAULTS = {
  step_type: 'reminder' as StepType,
  label: 'New Step',
  offset_days: 0,
  offset_time: '09:00',
  is_active: true,
  subject_template: '',
  body_plain_template: '',
  body_html_template: '',
  instructions: '',
  /** Runs only when a promise that paused the enrollment breaks (not on the enrollment's schedule). */
  on_promise_missed: false,
  /** Days from each invoice's due date, negative before it: the timing of a due-date sequence. */
  due_offset_days: 0,
  /** An email step's documents (invoice_pdf, statement), made when each email is sent. */
  attach: [] as AttachmentKind[],
};

export type StepFields = typeof STEP_DEFAULTS;
export const OFFSET_DAYS_MAX = 3650;

/** Scheduled-step states that mean the step was executed: a step with any of them has history. */
export const EXECUTED_STATUSES = ['sent', 'completed', 'failed'] as const satisfies readonly ScheduledStepStatus[];
/** States past ready: sending or completing such a step returns it as it is. */
const PAST_READY_STATUSES = ['sent', 'completed', 'cancelled', 'failed'] as const satisfies readonly ScheduledStepStatus[];

export function isPastReady(status: ScheduledStepStatus): boolean {
  return (PAST_READY_STATUSES as readonly string[]).includes(status);
}

/**
 * A step with execution history keeps its content, so history shows what was actually sent. Only
 * is_active may still change (it affects new enrollments only). Returns the fields that would change.
 */
export function historyBlockedChanges(current: StepFields, patch: Partial<StepFields>): string[] {
  return (Object.keys(patch) as Array<keyof StepFields>).filter((k) => k !== 'is_active' && patch[k] !== undefined && !sameValue(patch[k], current[k]));
}

/** Field values compare by content: the attach list is an array. */
function sameValue(a: unknown, b: unknown): boolean {
  return Array.isArray(a) && Array.isArray(b) ? a.length === b.length && a.every((v, i) => v === b[i]) : a === b;
}

export function assertStepEditable(hasHistory: boolean, current: StepFields, patch: Partial<StepFields>): void {
  if (!hasHistory) return;
  const blocked = historyBlockedChanges(current, patch);
  if (blocked.length) {
    throw new ConflictError(`The step has execution history; ${blocked.join(', ')} can no longer change (only is_active can)`, 'step_has_history');
  }
}

export const QUEUE_CATEGORIES = ['ready', 'history', 'upcoming', 'paused'] as const;
export type QueueCategory = (typeof QUEUE_CATEGORIES)[number];

/**
 * The states each queue category lists; `upcoming` (scheduled, not yet due) and `paused` (the
 * pending steps of paused enrollments, which ready and upcoming leave out) are extensions.
 */
export const CATEGORY_STATUSES: Record<QueueCategory, ScheduledStepStatus[]> = {
  ready: ['ready'],
  history: ['sent', 'completed', 'cancelled', 'failed'],
  upcoming: ['scheduled'],
  paused: ['scheduled', 'ready'],
};

export const UNASSIGNED = '__unassigned__';

export interface OwnerFilter {
  ids: string[];
  unassigned: boolean;
}

/** ar_owner: comma-separated member UUIDs, where __unassigned__ stands for customers with no AR owner. */
export function parseOwnerFilter(value: string): OwnerFilter {
  const parts = [...new Set(value.split(',').map((s) => s.trim()).filter(Boolean))];
  const bad = parts.filter((p) => p !== UNASSIGNED && !isUuid(p));
  if (bad.length || parts.length === 0) {
    throw new ValidationError('The query parameters are invalid', { ar_owner: [`Expected member UUIDs or ${UNASSIGNED}, comma-separated`] });
  }
  return { ids: parts.filter((p) => p !== UNASSIGNED).map((p) => p.toLowerCase()), unassigned: parts.includes(UNASSIGNED) };
}

/** Comma-separated enum values; an unknown one is a 400 naming the parameter. */
export function parseEnumList<T extends string>(value: string, allowed: readonly T[], field: string): T[] {
  const parts = [...new Set(value.split(',').map((s) => s.trim()).filter(Boolean))];
  const unknown = parts.filter((p) => !(allowed as readonly string[]).includes(p));
  if (unknown.length || parts.length === 0) {
    throw new ValidationError('The query parameters are invalid', { [field]: [`Unknown value ${unknown.join(', ') || '(empty)'}; use ${allowed.join(', ')}`] });
  }
  return parts as T[];
}

export const DEFAULT_PAGE_SIZE = 20;
/** The spec gives no maximum: larger requests are clamped and the envelope echoes the size used. */
export const MAX_PAGE_SIZE = 100;

export function pageOf(page: number | undefined, pageSize: number | undefined): { page: number; pageSize: number } {
  return { page: page ?? 1, pageSize: Math.min(pageSize ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE) };
}

/** At most this many customers per bulk enrollment. */
export const BULK_ENROLL_MAX = 1000;

/**
 * Last-touch awareness: a due email step is held (stays scheduled) while the customer had a manual
 * outbound email or call, or an executed email/call action, within this many days.
 */
export const LAST_TOUCH_QUIET_DAYS = 3;

/** The stop reason of an enrollment stopped because the customer replied (before replies paused instead). */
export const REPLIED = 'replied';

/** The cancel reason of a step the collector skipped. */
export const SKIPPED = 'skipped';

/** The cancel reason of a back-dated enrollment's earlier emails: one catch-up email goes in their place. */
export const CAUGHT_UP = 'caught_up';

/**
 * A back-dated enrollment catches up with ONE email: of its email steps already due when it is
 * made, the latest stays (it becomes ready now) and those of days already past are skipped as caught
 * up. Steps of today stay (the one-a-day limit spaces them out); calls and tasks are the collector's
 * work, not messages, and stay too. Returns the indexes to skip.
 */
export function caughtUpSteps(rows: Array<{ step_type: StepType; scheduled_date: string; scheduled_at: string }>, now: string, today: string): number[] {
  const due = rows.map((r, i) => ({ ...r, i })).filter((r) => r.step_type === EMAIL_STEP_TYPE && r.scheduled_at <= now);
  if (due.length < 2) return [];
  const latest = due.reduce((a, b) => (b.scheduled_at >= a.scheduled_at ? b : a));
  return due.filter((r) => r.i !== latest.i && r.scheduled_date < today).map((r) => r.i);
}

/**
 * What enrolling a customer already in the sequence does: keep the enrollment, restart it, or ask
 * (refused with 409 already_enrolled, so the app can put the choice to a person first).
 */
export const ON_ENROLLED = ['keep', 'restart', 'ask'] as const;
export type OnEnrolled = (typeof ON_ENROLLED)[number];

/** A paused enrollment's step is neither sent nor completed until the pause ends (409 with the reason). */
export function assertNotPaused(pauseReason: string | null): void {
  if (pauseReason !== null) throw new ConflictError(`${pauseReason}. Resume the enrollment to run this step.`, 'enrollment_paused');
}

/** A send claim older than this is taken to be from a crashed attempt and may be retried. */
export const SEND_CLAIM_STALE_MS = 5 * 60_000;

/** Sending or completing needs a ready step that no send claimed less than SEND_CLAIM_STALE_MS ago. */
export function assertReadyUnclaimed(status: ScheduledStepStatus, sendStartedAt: string | null, now: string): void {
  if (status !== 'ready') throw new InvalidStateError('The step is not ready yet: it becomes ready when it is due', 'not_ready');
  if (sendStartedAt && Date.parse(now) - Date.parse(sendStartedAt) < SEND_CLAIM_STALE_MS) {
    throw new ConflictError('The step is being sent', 'send_in_progress');
  }
}

/** A stable Message-ID per scheduled step, in the sender's domain. */
export function stepMessageId(scheduledStepId: string, fromEmail: string): string {
  const domain = fromEmail.includes('@') ? fromEmail.slice(fromEmail.lastIndexOf('@') + 1) : 'ardesk.local';
  return `<seq.${scheduledStepId}@${domain || 'ardesk.local'}>`;
}

/** Follow-ups in a thread carry the thread's first subject with one "Re: ". */
export function replySubject(firstSubject: string): string {
  return `Re: ${firstSubject.replace(/^(\s*re:\s*)+/i, '')}`;
}
