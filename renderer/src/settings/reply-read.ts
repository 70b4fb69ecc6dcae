import type { ReplySyncResult } from '../../../core/replies/sync';
import type { Schemas } from '../api/client';

type Job = Schemas['Job'];

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A finished reading of a mailbox in a collector's words (the job's result: core/replies/sync.ts). */
export function describeReplyRead(result: ReplySyncResult | { skipped: string }): string {
  if ('skipped' in result) return `Nothing read: ${result.skipped.charAt(0).toLowerCase()}${result.skipped.slice(1)}.`;
  if (result.read === 0) return `No new mail in ${result.mailbox}.`;
  const parts = [`${plural(result.replies, 'reply', 'replies')} from customers recorded`];
  if (result.auto_replies) parts.push(plural(result.auto_replies, 'automatic reply', 'automatic replies') + ' ignored');
  if (result.bounces) parts.push(plural(result.bounces, 'bounce') + ' (the address is marked as failing)');
  if (result.unmatched) parts.push(`${plural(result.unmatched, 'message')} not from a known customer`);
  if (result.duplicates) parts.push(`${plural(result.duplicates, 'reply', 'replies')} already recorded`);
  const paused = result.enrollments_paused ? ` ${plural(result.enrollments_paused, 'sequence')} paused by what the customer wrote.` : '';
  const restarted = result.uid_validity_changed ? ' The mailbox was renumbered by the server, so it was read again from the start.' : '';
  return `Read ${plural(result.read, 'message')} in ${result.mailbox}: ${parts.join(', ')}.${paused}${restarted}`;
}

/** Where a reading job stands, in words; done once it succeeded or failed. */
export function replyReadProgress(job: Pick<Job, 'status' | 'last_error' | 'result'>): { done: boolean; ok: boolean; text: string } {
  switch (job.status) {
    case 'queued':
      return { done: false, ok: true, text: 'Waiting to start reading the mailbox…' };
    case 'running':
      return { done: false, ok: true, text: 'Reading the mailbox…' };
    case 'succeeded':
      return { done: true, ok: true, text: describeReplyRead(job.result as ReplySyncResult | { skipped: string }) };
    case 'failed':
      return { done: true, ok: false, text: `Reading replies failed: ${job.last_error ?? 'no reason was given'}` };
  }
}
