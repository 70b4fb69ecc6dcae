/**
 * Answering a customer's email from the timeline: the draft (to whom, from which connection, the
 * subject and thread headers, the documents that can go with it, and the contact rule's answer
 * now), and the send. The answer goes through the one mail door (core/email/outbox.ts) with
 * In-Reply-To and References, so it threads in the customer's mail client and in ours; recorded,
 * it answers the customer's reply, so the chase it held resumes (holds/store.ts).
 *
 * The rule is asked about the customer as a whole (no invoices: the answer speaks to what they
 * wrote, a dispute included) and without the unanswered-reply hold, which the answer lifts.
 */
import { timestamp, today } from '../clock';
import type { ContactAnswer, ContactHoldKind, ContactRequest } from '../contact/rule';
import { ContactHeldError, reasonWords } from '../contact/rule';
import { checkContact } from '../contact/store';
import type { Db } from '../db/connection';
import type { EmailConnection } from '../db/schema';
import { type AttachmentKind, attachmentKinds, communicationAttachments, type DocumentAttachment, makeAttachments } from '../documents/attachments';
import { defaultConnection } from '../email/connections';
import { handToSmtp, recordSentEmail } from '../email/outbox';
import { type Engine, runCommand, type Scope } from '../engine';
import { ConflictError, DomainError, InvalidStateError, NotFoundError, ValidationError } from '../errors';
import { refreshHolds } from '../holds/store';
import { newId } from '../ids';
import { answerHeaders, answerSubject, parseReferences, storeReferences } from './threads';
import { type CommunicationDto, getCommunication } from './timeline';

/** The rule's question for an answer: the customer as a whole, their reply not holding it. */
const REPLY_CONTACT: Omit<ContactRequest, 'invoiceIds'> = { channel: 'reply', holds: { reply: false, promise: true, dispute: true } };

export interface ReplyDraft {
  /** The customer's email answered. */
  communication_id: string;
  customer_id: string;
  invoice_id: string | null;
  invoice_number: string | null;
  from: string;
  to: string;
  subject: string;
  in_reply_to: string;
  references: string[];
  /** The documents that can go with it: the invoice PDF needs the reply's invoice. */
  attach_options: AttachmentKind[];
  contact: Pick<ContactAnswer, 'allowed' | 'reason'> & { held: Array<{ kind: ContactHoldKind; invoice_id: string | null; reason: string }> };
}

interface Answered {
  id: string;
  customerId: string;
  invoiceId: string | null;
  invoiceNumber: string | null;
  to: string;
  subject: string | null;
  messageId: string;
  references: string[];
  threadId: string;
  connection: EmailConnection;
}

/** The customer's email and the connection the answer goes from (the one it came in on, else the default). */
async function answered(db: Db, companyId: string, communicationId: string): Promise<Answered> {
  const row = await db
    .selectFrom('communications as m')
    .leftJoin('invoices as i', 'i.id', 'm.invoice_id')
    .select(['m.id', 'm.customer_id', 'm.invoice_id', 'i.invoice_number', 'm.kind', 'm.direction', 'm.from_email', 'm.subject', 'm.message_id', 'm.email_references', 'm.thread_id', 'm.email_connection_id'])
    .where('m.company_id', '=', companyId)
    .where('m.id', '=', communicationId.toLowerCase())
    .executeTakeFirst();
  if (!row) throw new NotFoundError('Communication', communicationId);
  if (row.kind !== 'email' || row.direction !== 'inbound' || !row.message_id) {
    throw new ConflictError('Only an email the customer sent can be answered', 'not_a_reply');
  }
  // A reply recorded without its sender's address (an import, the demo) goes to the billing contact.
  const to = row.from_email ?? (await billingAddress(db, companyId, row.customer_id));
  if (!to) throw new ConflictError('Nobody to answer: the email has no sender address and the customer no billing contact with one', 'no_recipient');
  const own = row.email_connection_id
    ? await db.selectFrom('email_connections').selectAll().where('company_id', '=', companyId).where('id', '=', row.email_connection_id).where('is_active', '=', 1).executeTakeFirst()
    : undefined;
  const connection = own ?? (await defaultConnection(db, companyId));
  if (!connection) throw new InvalidStateError('No active email connection to answer from (Settings › Email connections)', 'no_email_connection');
  return {
    id: row.id,
    customerId: row.customer_id,
    invoiceId: row.invoice_id,
    invoiceNumber: row.invoice_number,
    to,
    subject: row.subject,
    messageId: row.message_id,
    references: parseReferences(row.email_references),
    threadId: row.thread_id ?? row.message_id,
    connection,
  };
}

async function billingAddress(db: Db, companyId: string, customerId: string): Promise<string | null> {
  const contact = await db
    .selectFrom('customer_contacts')
    .select('email')
    .where('company_id', '=', companyId)
    .where('customer_id', '=', customerId)
    .where('is_billing', '=', 1)
    .where('email', 'is not', null)
    .orderBy('created_at')
    .orderBy('id')
    .executeTakeFirst();
  return contact?.email?.trim() || null;
}

const attachOptions = (a: Answered): AttachmentKind[] => (a.invoiceId ? ['invoice_pdf', 'statement'] : ['statement']);

export async function draftReply(engine: Pick<Engine, 'db' | 'clock'>, companyId: string, communicationId: string): Promise<ReplyDraft> {
  const a = await answered(engine.db, companyId, communicationId);
  const headers = answerHeaders(a);
  const answer = await checkContact(engine.db, companyId, a.customerId, { ...REPLY_CONTACT, invoiceIds: [] }, timestamp(engine.clock));
  return {
    communication_id: a.id,
    customer_id: a.customerId,
    invoice_id: a.invoiceId,
    invoice_number: a.invoiceNumber,
    from: a.connection.from_name ? `${a.connection.from_name} <${a.connection.from_email}>` : a.connection.from_email,
    to: a.to,
    subject: answerSubject(a.subject),
    in_reply_to: headers.inReplyTo,
    references: headers.references,
    attach_options: attachOptions(a),
    contact: { allowed: answer.allowed, reason: answer.reason, held: answer.held.map((h) => ({ kind: h.kind, invoice_id: h.invoiceId, reason: h.reason })) },
  };
}

export interface ReplyInput {
  body: string;
  subject?: string;
  attach?: AttachmentKind[];
  /** Send through the holds the draft showed, for this reason (kept in the change log). */
  override_reason?: string;
}

/** Sends the answer and records it on the customer's timeline, in the thread; returns it. */
export async function sendReply(engine: Engine, scope: Scope, communicationId: string, input: ReplyInput): Promise<CommunicationDto> {
  if (!input.body.trim()) throw new ValidationError('Write the answer', { body: ['Write the answer'] });
  const a = await answered(engine.db, scope.companyId, communicationId);
  const attach = attachmentKinds(input.attach);
  if (attach.some((k) => !attachOptions(a).includes(k))) throw new ValidationError('The invoice PDF needs an email about an invoice', { attach: ['This email is about no invoice: only a statement can go with it'] });

  // The rule now, and a send-anyway recorded with the holds it went through.
  const contact = { ...REPLY_CONTACT };
  await runCommand(engine, 'check_reply_contact', scope, async (tx) => {
    const answer = await checkContact(tx.db, scope.companyId, a.customerId, { ...contact, invoiceIds: [] }, tx.now);
    if (answer.allowed) {
      // The claim, kept beside the door's re-check: the change log says which came before a hold.
      await tx.record('contact_check', newId(), 'insert', { customer_id: a.customerId, channel: 'reply', invoice_ids: [], allowed: true, held: [], checked_at: tx.now, stage: 'claim', communication_id: a.id });
      return;
    }
    if (!input.override_reason?.trim()) throw new ConflictError(answer.reason ?? reasonWords(answer.held, false), 'contact_held');
    contact.overridden = [...new Set(answer.held.map((h) => h.kind))] as ContactHoldKind[];
    await tx.record('contact_override', newId(), 'insert', { communication_id: a.id, customer_id: a.customerId, held: answer.held, reason: input.override_reason, by: tx.actor.name });
  });

  const attachments: DocumentAttachment[] = await makeAttachments(engine.db, scope.companyId, { invoiceId: a.invoiceId, customerId: a.customerId }, attach, today(engine.clock));
  const headers = answerHeaders(a);
  const subject = (input.subject ?? '').trim() || answerSubject(a.subject);
  const domain = /@([A-Za-z0-9.-]+)$/.exec(a.connection.from_email.trim())?.[1] ?? 'ardesk.invalid';
  const messageId = `<answer.${newId()}@${domain}>`;
  const message = { to: a.to, subject, text: input.body, messageId, inReplyTo: headers.inReplyTo, references: headers.references, attachments };
  try {
    await handToSmtp(engine, { companyId: scope.companyId, customerId: a.customerId, invoiceIds: [], connection: a.connection, message, contact });
  } catch (err) {
    if (err instanceof ContactHeldError) throw new ConflictError(err.message, 'contact_held');
    // The mailer's own sentence (our words and the SMTP status); nothing is recorded.
    throw new DomainError(502, 'send_failed', `The answer was not sent: ${err instanceof Error ? err.message : String(err)}`);
  }
  const id = await runCommand(engine, 'send_reply', scope, async (tx) => {
    const sent = {
      companyId: scope.companyId,
      customerId: a.customerId,
      invoiceId: a.invoiceId,
      subject,
      body: input.body,
      author: tx.actor,
      connectionId: a.connection.id,
      messageId,
      attachments: communicationAttachments(attachments),
      references: storeReferences(headers.references),
      threadId: a.threadId,
    };
    const communicationId = await recordSentEmail(tx, sent);
    // The customer's reply is answered: the holds it put on the chase follow now.
    await refreshHolds(tx, scope.companyId, [a.customerId]);
    return communicationId;
  });
  return getCommunication(engine.db, scope.companyId, id);
}
