import type { Schemas } from '../api/client';
import { CALL_OUTCOME_WORDS } from '../components/callOutcomes';
import { formatDate, formatMoney } from '../desk/format';

type Communication = Schemas['Communication'];

export interface CommunicationWords {
  /** What it was: "Email sent", "Reply received", "Call", "The customer called", "Note". */
  kind: string;
  /** A reply from the customer (an email received): marked on the timeline. */
  isReply: boolean;
  title: string;
  /** Who and what came of it, in one line each. */
  lines: string[];
}

const KB = 1024;
const size = (bytes: number) => (bytes < KB ? `${bytes} bytes` : bytes < KB * KB ? `${Math.round(bytes / KB)} KB` : `${(bytes / KB / KB).toFixed(1)} MB`);

/** What a communication was, in words; an email received is the customer's reply. */
export function communicationKind(kind: string, direction: string | null): { kind: string; isReply: boolean } {
  if (kind === 'email') return direction === 'inbound' ? { kind: 'Reply received', isReply: true } : { kind: 'Email sent', isReply: false };
  if (kind === 'call') return { kind: direction === 'inbound' ? 'The customer called' : 'Call', isReply: false };
  // An inbound note is what the customer wrote in the payment portal.
  return { kind: direction === 'inbound' ? 'Via the portal' : 'Note', isReply: false };
}

/** A communication of the customer's timeline in a collector's words (never the API's codes). */
export function describeCommunication(c: Communication): CommunicationWords {
  const lines: string[] = [];
  if (c.kind === 'email' && c.direction === 'inbound') {
    lines.push(`From ${c.author_name && c.from_email ? `${c.author_name} <${c.from_email}>` : (c.from_email ?? c.author_name ?? 'the customer')}`);
    if (c.attachments.length > 0) lines.push(`Attached: ${c.attachments.map((a) => `${a.name} (${size(a.size)})`).join(', ')}`);
    return { ...communicationKind(c.kind, c.direction), title: c.subject || '(no subject)', lines };
  }
  if (c.kind === 'email') {
    if (c.author_name) lines.push(`Sent by ${c.author_name}`);
    if (c.attachments.length > 0) lines.push(`Attached: ${c.attachments.map((a) => `${a.name} (${size(a.size)})`).join(', ')}`);
    return { ...communicationKind(c.kind, c.direction), title: c.subject || '(no subject)', lines };
  }
  if (c.kind === 'call') {
    if (c.promise_date) lines.push(`Promised ${c.promise_amount !== null ? `${formatMoney(c.promise_amount, c.currency)} ` : 'to pay '}by ${formatDate(c.promise_date)}`);
    if (c.author_name) lines.push(`Logged by ${c.author_name}`);
    return { ...communicationKind(c.kind, c.direction), title: c.outcome ? CALL_OUTCOME_WORDS[c.outcome] : c.subject || 'Call', lines };
  }
  if (c.direction === 'inbound') {
    if (c.promise_date) lines.push(`Holds reminders until ${formatDate(c.promise_date)}`);
    if (c.attachments.length > 0) lines.push(`Attached: ${c.attachments.map((a) => `${a.name} (${size(a.size)})`).join(', ')}`);
  }
  if (c.author_name) lines.push(`Written by ${c.author_name}`);
  return { ...communicationKind(c.kind, c.direction), title: c.subject || 'Note', lines };
}
