/**
 * What a step that ran put out, as it went: the email (to, from, subject, body, attachments) or the
 * call or note a completed call or task step recorded. Read from the step's communication, which
 * the send or completion wrote in the same transaction as the step's outcome.
 */
import type { Db } from '../db/connection';
import type { CallOutcome } from '../db/schema';
import { ConflictError, NotFoundError } from '../errors';

export interface SentMessageView {
  kind: 'email' | 'call' | 'note';
  to: string | null;
  from: string | null;
  subject: string | null;
  body: string | null;
  attachments: Array<{ name: string; size: number }>;
  message_id: string | null;
  occurred_at: string;
  outcome: CallOutcome | null;
  author_name: string | null;
}

/** The stored list of files sent ({name, size} JSON); anything else reads as none. */
function attachmentList(json: string | null): Array<{ name: string; size: number }> {
  if (!json) return [];
  try {
    const list: unknown = JSON.parse(json);
    return Array.isArray(list) ? list.filter((a): a is { name: string; size: number } => typeof a?.name === 'string' && typeof a?.size === 'number').map(({ name, size }) => ({ name, size })) : [];
  } catch {
    return [];
  }
}

export async function sentMessage(db: Db, companyId: string, stepId: string): Promise<SentMessageView> {
  const row = await db
    .selectFrom('scheduled_steps as s')
    .leftJoin('communications as m', 'm.id', 's.communication_id')
    .leftJoin('email_connections as ec', 'ec.id', 'm.email_connection_id')
    .select(['s.id', 's.status', 's.sent_to', 'm.id as communication_id', 'm.kind', 'm.subject', 'm.body', 'm.attachments', 'm.message_id', 'm.occurred_at', 'm.outcome', 'm.author_name', 'ec.from_name', 'ec.from_email'])
    .where('s.company_id', '=', companyId)
    .where('s.id', '=', stepId.toLowerCase())
    .executeTakeFirst();
  if (!row) throw new NotFoundError('Scheduled step', stepId);
  if (row.communication_id === null || row.occurred_at === null) {
    throw new ConflictError(row.status === 'completed' ? 'The step was marked done without anything recorded: nothing went out from ardesk' : 'Nothing went out for this step', 'nothing_sent');
  }
  const kind = row.kind === 'email' || row.kind === 'call' ? row.kind : 'note';
  return {
    kind,
    to: kind === 'email' ? row.sent_to : null,
    from: kind === 'email' && row.from_email ? (row.from_name ? `${row.from_name} <${row.from_email}>` : row.from_email) : null,
    subject: row.subject,
    body: row.body,
    attachments: attachmentList(row.attachments),
    message_id: row.message_id,
    occurred_at: row.occurred_at,
    outcome: row.outcome,
    author_name: row.author_name,
  };
}
