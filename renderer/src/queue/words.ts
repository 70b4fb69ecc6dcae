import type { Schemas } from '../api/client';

/** Words for queue rows. Pure. */
export type QueueRow = Schemas['ScheduledStep'];
export type Channel = QueueRow['step_type'];

export const CHANNEL_TITLES: Record<Channel, string> = { reminder: 'Emails', call: 'Calls', task: 'Tasks' };

export const STEP_STATUS_WORDS: Record<QueueRow['status'], string> = {
  scheduled: 'Scheduled',
  ready: 'Ready',
  sent: 'Sent',
  completed: 'Done',
  cancelled: 'Cancelled',
  failed: 'Failed',
};

/** Why a step did not go out, in words (the core's hold_reason). */
export const HOLD_WORDS: Record<NonNullable<QueueRow['hold_reason']>, string> = {
  paused: 'Paused',
  recent_contact: 'Held: the customer was contacted by hand in the last 3 days',
  emailed_today: 'Waits for tomorrow: the customer already got an email today, and one email a day goes out',
  replied: 'Stopped: the customer replied',
  skipped: 'Skipped',
};

/** A row's hold in words: a pause names its own reason ("Paused: Tri-County promised payment by Nov 27"). */
export function holdWords(row: Pick<QueueRow, 'hold_reason' | 'pause_reason'>): string | null {
  if (row.hold_reason === 'paused') return row.pause_reason ?? HOLD_WORDS.paused;
  return row.hold_reason ? HOLD_WORDS[row.hold_reason] : null;
}

export function groupByChannel(rows: QueueRow[]): Array<[Channel, QueueRow[]]> {
  const order: Channel[] = ['reminder', 'call', 'task'];
  return order.map((c) => [c, rows.filter((r) => r.step_type === c)] as [Channel, QueueRow[]]).filter(([, list]) => list.length > 0);
}
