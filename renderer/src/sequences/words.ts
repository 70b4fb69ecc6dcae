import type { QueryOf, Schemas } from '../api/client';

/** Words and small rules of the sequence screens. Pure. */
export type Sequence = Schemas['Sequence'];
export type Step = Schemas['SequenceStep'];

/** In the order the list's status filter offers them. */
export const SEQUENCE_STATUS_WORDS: Record<Sequence['status'], string> = { active: 'Active', draft: 'Draft', archived: 'Archived' };
export const STEP_TYPE_WORDS: Record<Step['step_type'], string> = { reminder: 'Email', call: 'Call', task: 'Task' };
export const STEP_TYPES = Object.keys(STEP_TYPE_WORDS) as Array<Step['step_type']>;
export const SEQUENCE_STATUSES = Object.keys(SEQUENCE_STATUS_WORDS) as Array<Sequence['status']>;

export type EnrollmentFilter = NonNullable<QueryOf<'/api/companies/{company_id}/sequence-enrollments'>['status']>;
/** The enrollments' status filter, in the order it offers them. */
export const ENROLLMENT_FILTER_WORDS: Record<EnrollmentFilter, string> = { active: 'Active', completed: 'Ended' };
export const ENROLLMENT_FILTERS = Object.keys(ENROLLMENT_FILTER_WORDS) as EnrollmentFilter[];

/** "3 days before due", "on the due date", "7 days after due" (a due-date step's offset). */
export function dueOffsetWords(days: number): string {
  if (days === 0) return 'on the due date';
  const n = Math.abs(days);
  return `${n} day${n === 1 ? '' : 's'} ${days < 0 ? 'before' : 'after'} due`;
}

/** When a step fires, in words: from the enrollment's start date (day 0), or from each invoice's due date. */
export function stepWhen(step: Pick<Step, 'offset_days' | 'offset_time' | 'on_promise_missed' | 'due_offset_days'>, timing: Sequence['timing'] = 'enrollment_start'): string {
  if (step.on_promise_missed) return `When a promise to pay is missed, ${step.offset_time}`;
  if (timing === 'due_date') {
    const words = dueOffsetWords(step.due_offset_days);
    return `${words.charAt(0).toUpperCase()}${words.slice(1)}, ${step.offset_time}`;
  }
  const day = step.offset_days === 0 ? 'On the start date' : `${step.offset_days} day${step.offset_days === 1 ? '' : 's'} after the start date`;
  return `${day}, ${step.offset_time}`;
}

export const TIMING_WORDS: Record<Sequence['timing'], string> = {
  enrollment_start: "From each customer's enrollment start",
  due_date: 'Per invoice, from its due date',
};

const ATTACH_WORDS: Record<Step['attach'][number], string> = { invoice_pdf: 'the invoice PDF', statement: 'a statement of account' };

/** "With the invoice PDF and a statement of account attached"; empty when the step attaches nothing. */
export function attachWords(attach: Step['attach']): string {
  return attach.length ? `With ${attach.map((k) => ATTACH_WORDS[k]).join(' and ')} attached` : '';
}

/** The lifecycle moves the API allows from a status (core/sequences/rules.ts). */
export function lifecycleActions(status: Sequence['status']): Array<'activate' | 'archive'> {
  return status === 'draft' ? ['activate', 'archive'] : status === 'active' ? ['archive'] : ['activate'];
}

/** Inserts text at a textarea's caret (or at the end), returning the new value and caret. */
export function insertAt(value: string, insert: string, start: number | null, end: number | null): { value: string; caret: number } {
  const from = start ?? value.length;
  const to = end ?? from;
  return { value: value.slice(0, from) + insert + value.slice(to), caret: from + insert.length };
}

/** A name for a copy that is not yet taken: "Standard (copy)", "Standard (copy 2)", … */
export function copyName(name: string, taken: string[]): string {
  const lower = new Set(taken.map((t) => t.toLowerCase()));
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? `${name} (copy)` : `${name} (copy ${n})`;
    if (!lower.has(candidate.toLowerCase())) return candidate;
  }
}

/** "1 step", "3 steps". */
export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
