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

/** A due step still scheduled is held: the core keeps an email step back after a recent manual contact. */
export function isHeld(row: QueueRow, now: Date): boolean {
  return row.status === 'scheduled' && Date.parse(row.scheduled_at) <= now.getTime();
}

export function groupByChannel(rows: QueueRow[]): Array<[Channel, QueueRow[]]> {
  const order: Channel[] = ['reminder', 'call', 'task'];
  return order.map((c) => [c, rows.filter((r) => r.step_type === c)] as [Channel, QueueRow[]]).filter(([, list]) => list.length > 0);
}
