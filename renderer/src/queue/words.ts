import type { QueryOf, Schemas } from '../api/client';

/** Words for queue rows. Pure. Each record is keyed by the API's own enum, so a value the server adds or drops fails the typecheck. */
export type QueueRow = Schemas['ScheduledStep'];
export type Channel = QueueRow['step_type'];
export type QueueCategory = NonNullable<QueryOf<'/api/companies/{company_id}/sequences/queue'>['category']>;

/** In the order the page shows them. */
export const CHANNEL_TITLES: Record<Channel, string> = { reminder: 'Emails', call: 'Calls', task: 'Tasks' };
export const CHANNELS = Object.keys(CHANNEL_TITLES) as Channel[];

/** The queue's tabs, in the order the page shows them. */
export const QUEUE_TABS: Record<QueueCategory, { label: string; empty: string }> = {
  ready: { label: 'Today', empty: 'Nothing is due today.' },
  upcoming: { label: 'Upcoming', empty: 'No steps are scheduled.' },
  paused: { label: 'Paused', empty: 'No sequence is paused: nobody is waiting on a reply, a promise or a dispute.' },
  history: { label: 'History', empty: 'No steps have run yet.' },
};
export const QUEUE_CATEGORIES = Object.keys(QUEUE_TABS) as QueueCategory[];

export const STEP_STATUS_WORDS: Record<QueueRow['status'], string> = {
  scheduled: 'Scheduled',
  ready: 'Ready',
  sent: 'Sent',
  completed: 'Done',
  cancelled: 'Cancelled',
  failed: 'Failed',
};

/** Why a step did not go out, in words (the core's hold_reason); recent_contact's days come with the queue list (quiet_days). */
const HOLD_WORDS: Record<NonNullable<QueueRow['hold_reason']>, string> = {
  paused: 'Paused',
  recent_contact: 'Held: the customer was contacted by hand recently',
  emailed_today: 'Waits for tomorrow: the customer already got an email today, and one email a day goes out',
  replied: 'Stopped: the customer replied',
  skipped: 'Skipped',
  caught_up: 'Skipped: one catch-up email went in its place',
  stopped: 'On hold: a person stopped contact with the customer',
};

/**
 * A row's hold in words: a pause names its own reason ("Paused: Tri-County promised payment by Nov 27");
 * a hold for a recent contact names its days when the caller has the queue list's quiet_days.
 */
export function holdWords(row: Pick<QueueRow, 'hold_reason' | 'pause_reason'>, quietDays?: number): string | null {
  if (row.hold_reason === 'paused') return row.pause_reason ?? HOLD_WORDS.paused;
  // A person's stop reads as the contact rule words it ("Do not contact, set by Ann on Nov 20: ...").
  if (row.hold_reason === 'stopped') return row.pause_reason ? `On hold: ${row.pause_reason}` : HOLD_WORDS.stopped;
  if (row.hold_reason === 'recent_contact' && quietDays !== undefined) return `Held: the customer was contacted by hand in the last ${daysWords(quietDays)}`;
  return row.hold_reason ? HOLD_WORDS[row.hold_reason] : null;
}

export function daysWords(days: number): string {
  return days === 1 ? '1 day' : `${days} days`;
}

export function groupByChannel(rows: QueueRow[]): Array<[Channel, QueueRow[]]> {
  return CHANNELS.map((c) => [c, rows.filter((r) => r.step_type === c)] as [Channel, QueueRow[]]).filter(([, list]) => list.length > 0);
}
