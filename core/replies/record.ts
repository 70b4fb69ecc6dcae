/**
 * What a received message does, inside the transaction that also advances the mailbox state: a
 * reply becomes an inbound communication of its customer (and invoice), read for a promise, a
 * complaint or a question (reading.ts, kept with it), and pauses the customer's sequences until
 * someone answers (holds/store.ts); a bounce marks the address as failing;
 * automatic answers and mail that is not about any customer are counted and left alone.
 */
import { sql } from 'kysely';
import { withdrawProposals } from '../supersede/withdraw';
import { insertCommunication } from '../communications/store';
import { storeReferences, threadOf } from '../communications/threads';
import type { EmailConnection } from '../db/schema';
import type { CommandTx } from '../engine';
import { newId } from '../ids';
import { refreshHolds } from '../holds/store';
import type { IncomingMessage } from './parse';
import { type DateOrder, dateOrderOf, readReply } from './reading';
import { bounceReason, bounceRecipients, classifyMessage, invoiceNumberMentioned, pickThread, replyTime } from './rules';

export interface ReadTally {
  /** Messages read from the mailbox. */
  read: number;
  /** Replies recorded as communications. */
  replies: number;
  auto_replies: number;
  bounces: number;
  /** Messages about no customer we know (or from our own address): nothing kept. */
  unmatched: number;
  /** Replies already recorded (re-read after a UIDVALIDITY change). */
  duplicates: number;
  /** Enrollments a reply paused (until it is answered or marked handled, or the promise it makes passes). */
  enrollments_paused: number;
}

export const emptyTally = (): ReadTally => ({ read: 0, replies: 0, auto_replies: 0, bounces: 0, unmatched: 0, duplicates: 0, enrollments_paused: 0 });

interface Match {
  customerId: string;
  invoiceId: string | null;
}

/** Our sent messages among the candidates: reminders and sequence emails (communications), and sends whose record is pending. */
async function threadMatch(tx: CommandTx, companyId: string, ids: string[]): Promise<Match | null> {
  if (ids.length === 0) return null;
  const rows = await sql<{ message_id: string; customer_id: string; invoice_id: string | null }>`
    SELECT message_id, customer_id, invoice_id FROM communications
     WHERE company_id = ${companyId} AND direction = 'outbound' AND message_id IN (${sql.join(ids)})
    UNION ALL
    SELECT message_id, customer_id, invoice_id FROM scheduled_steps
     WHERE company_id = ${companyId} AND message_id IN (${sql.join(ids)})
    UNION ALL
    SELECT message_id, customer_id, invoice_id FROM email_outbox
     WHERE company_id = ${companyId} AND customer_id IS NOT NULL AND message_id IN (${sql.join(ids)})`.execute(tx.db);
  const ours = new Map<string, Match>();
  for (const r of rows.rows) if (!ours.has(r.message_id)) ours.set(r.message_id, { customerId: r.customer_id, invoiceId: r.invoice_id });
  return pickThread(ids, ours);
}

/** The thread of the message it answers (most specific first), when that message is on record. */
async function knownThread(tx: CommandTx, companyId: string, ids: string[]): Promise<string | null> {
  if (ids.length === 0) return null;
  const rows = await tx.db
    .selectFrom('communications')
    .select(['message_id', (eb) => eb.fn.coalesce('thread_id', 'message_id').as('thread')])
    .where('company_id', '=', companyId)
    .where('message_id', 'in', ids)
    .execute();
  const byId = new Map(rows.flatMap((r) => (r.message_id && r.thread ? [[r.message_id, r.thread] as const] : [])));
  return pickThread(ids, byId);
}

/** The one customer whose contact has this address; an address shared by two customers matches none. */
async function addressMatch(tx: CommandTx, companyId: string, address: string): Promise<Match | null> {
  const rows = await tx.db
    .selectFrom('customer_contacts')
    .select('customer_id')
    .distinct()
    .where('company_id', '=', companyId)
    .where(sql<boolean>`lower(email) = ${address}`)
    .limit(2)
    .execute();
  return rows.length === 1 ? { customerId: rows[0].customer_id, invoiceId: null } : null;
}

/** The invoice a reply is about: the thread's, else one the subject names, else the oldest open one. */
async function replyInvoice(tx: CommandTx, companyId: string, customerId: string, subject: string): Promise<string | null> {
  const open = await tx.db
    .selectFrom('invoices')
    .select(['id', 'invoice_number'])
    .where('company_id', '=', companyId)
    .where('customer_id', '=', customerId)
    .where('closing_reason', 'is', null)
    .orderBy('due_date')
    .orderBy('invoice_number')
    .execute();
  const named = invoiceNumberMentioned(subject, open.map((i) => i.invoice_number));
  return (named ? open.find((i) => i.invoice_number === named)?.id : open[0]?.id) ?? null;
}

/**
 * How the customer writes a numeric date ("12/4"): by the country of its locations when they name
 * one country (ISO 3166 codes), else by the company's country (reading.ts dateOrderOf).
 */
async function writerDateOrder(tx: CommandTx, companyId: string, customerId: string): Promise<DateOrder> {
  const located = await tx.db
    .selectFrom('customer_locations')
    .select(sql<string>`upper(trim(country))`.as('country'))
    .distinct()
    .where('company_id', '=', companyId)
    .where('customer_id', '=', customerId)
    // An ISO 3166 code; a country written out in words says nothing here.
    .where(sql<boolean>`length(trim(country)) = 2`)
    .limit(2)
    .execute();
  if (located.length === 1) return dateOrderOf(located[0].country);
  const company = await tx.db.selectFrom('companies').select('country').where('id', '=', companyId).executeTakeFirst();
  return dateOrderOf(company?.country);
}

async function markBounce(tx: CommandTx, companyId: string, message: IncomingMessage): Promise<void> {
  const reason = bounceReason(message.source);
  const failedAt = replyTime(message.date, tx.now);
  for (const address of bounceRecipients(message.source, message.headers)) {
    const contacts = await tx.db.selectFrom('customer_contacts').select('id').where('company_id', '=', companyId).where(sql<boolean>`lower(email) = ${address}`).execute();
    for (const { id } of contacts) {
      await tx.db.updateTable('customer_contacts').set({ email_failed_at: failedAt, email_failure: reason, updated_at: tx.now }).where('id', '=', id).execute();
      await tx.record('customer_contact', id, 'update', { email_failed_at: failedAt, email_failure: reason });
    }
  }
}

/** The key that makes re-reading harmless: the Message-ID, or for a message without one, its place in the mailbox. */
export function dedupeKey(message: IncomingMessage, connectionId: string, uidValidity: string): string {
  return message.messageId ?? `<imap.${uidValidity}.${message.uid}.${connectionId}@ardesk.invalid>`;
}

export async function recordIncoming(tx: CommandTx, connection: EmailConnection, uidValidity: string, message: IncomingMessage, tally: ReadTally): Promise<void> {
  tally.read += 1;
  const kind = classifyMessage(message);
  if (kind === 'bounce') {
    tally.bounces += 1;
    await markBounce(tx, connection.company_id, message);
    return;
  }
  if (kind === 'auto_reply') {
    tally.auto_replies += 1;
    return;
  }
  const ownAddress = message.fromAddress === connection.from_email.toLowerCase();
  const match = ownAddress ? null : ((await threadMatch(tx, connection.company_id, message.threadIds)) ?? (message.fromAddress ? await addressMatch(tx, connection.company_id, message.fromAddress) : null));
  if (!match) {
    tally.unmatched += 1;
    return;
  }
  const messageId = dedupeKey(message, connection.id, uidValidity);
  const seen = await tx.db
    .selectFrom('communications')
    .select('id')
    .where('email_connection_id', '=', connection.id)
    .where('message_id', '=', messageId)
    .where('direction', '=', 'inbound')
    .executeTakeFirst();
  if (seen) {
    tally.duplicates += 1;
    return;
  }
  const occurredAt = replyTime(message.date, tx.now);
  const communicationId = newId();
  const answered = await knownThread(tx, connection.company_id, message.threadIds);
  const reading = readReply(message.subject || null, message.text, occurredAt, await writerDateOrder(tx, connection.company_id, match.customerId));
  await insertCommunication(tx, {
    id: communicationId,
    company_id: connection.company_id,
    customer_id: match.customerId,
    invoice_id: match.invoiceId ?? (await replyInvoice(tx, connection.company_id, match.customerId, message.subject)),
    kind: 'email',
    direction: 'inbound',
    subject: message.subject || null,
    body: message.text,
    occurred_at: occurredAt,
    author_user_id: null,
    author_name: message.fromName ?? message.fromAddress,
    email_connection_id: connection.id,
    message_id: messageId,
    from_email: message.fromAddress,
    email_references: storeReferences(message.references),
    thread_id: threadOf({ messageId, references: message.references }, answered),
    attachments: message.attachments.length ? JSON.stringify(message.attachments) : null,
    created_at: tx.now,
    reading_kind: reading.kind,
    reading_date: reading.date,
    reading_amount: reading.amount,
    reading_sentence: reading.sentence,
  });
  tally.replies += 1;
  await withdrawProposals(tx, connection.company_id, { kind: 'reply', customerId: match.customerId, communicationId, on: occurredAt.slice(0, 10) });
  tally.enrollments_paused += (await refreshHolds(tx, connection.company_id, [match.customerId])).paused;
}
