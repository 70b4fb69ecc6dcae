import type { Schemas } from '../api/client';
import { formatTimestamp } from './format';

type Reminder = Schemas['Reminder'];

/** What became of a reminder, in words: a failed one says so and after how many tries, never "Queued". */
export function reminderWhen(r: Pick<Reminder, 'status' | 'attempts' | 'max_attempts' | 'next_attempt_at' | 'queued_at' | 'sent_at'>): string {
  if (r.status === 'sent' && r.sent_at) return `Sent ${formatTimestamp(r.sent_at)}`;
  if (r.status === 'failed') return `Not sent: failed ${r.attempts} of ${r.max_attempts} tries (queued ${formatTimestamp(r.queued_at)})`;
  if (r.status === 'running') return `Sending now (try ${r.attempts + 1} of ${r.max_attempts})`;
  if (r.next_attempt_at) return `Try ${r.attempts + 1} of ${r.max_attempts} at ${formatTimestamp(r.next_attempt_at)}`;
  return `Queued ${formatTimestamp(r.queued_at)}`;
}
