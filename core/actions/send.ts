/**
 * The job that carries out an approved email action: sends its final text (or the draft) over the
 * company's default connection to the customer's contacts, then records the communication (the
 * invoice's new last touch), settles the outbox row, completes the action and marks the job
 * succeeded in one transaction. Every failure is thrown in words the inbox shows as they are.
 */
import { today } from '../clock';
import type { Db } from '../db/connection';
import type { EmailConnection, Job } from '../db/schema';
import { ATTACHMENT_KINDS, type AttachmentKind, communicationAttachments, makeAttachments } from '../documents/attachments';
import { newId } from '../ids';
import { type JobContext, PermanentJobError } from '../jobs/worker';
import { classifySendError, openJobOutbox, recordSentEmail, sendJobEmail } from '../email/outbox';
import { defaultConnection } from '../email/connections';
import { MailDeliveryError, MailTlsError } from '../email/diagnose';
import { blankToNull } from '../text';
import { actionEmailContent, type ActionEmailPayload, actionRequest } from './delivery';
import { parseMetadata } from './queries';
import { fillPlaceholder, usesPlaceholder } from '../sequences/templates';
import { mintLinkForEmail } from '../email/portal-link';
import type { ContactAnswer } from '../contact/rule';
import { checkContact, checkContacts } from '../contact/store';

export const OUTCOME_UNKNOWN = 'The worker stopped while the mail server had the message. It may have been delivered, so it was not sent again; Retry sends it once more.';

/** A Message-ID tied to the action, so every try of one action's email carries the same id. */
export function actionMessageId(actionId: string, fromEmail: string): string {
  const domain = /@([A-Za-z0-9.-]+)$/.exec(fromEmail.trim())?.[1] ?? 'ardesk.invalid';
  return `<action.${actionId}@${domain}>`;
}

/**
 * Who the email goes to: the billing contact; without one, every contact with an address. Addresses
 * known to bounce are left out.
 */
export async function actionRecipients(db: Db, companyId: string, customerId: string): Promise<string[]> {
  const contacts = await db
    .selectFrom('customer_contacts')
    .select(['email', 'is_billing', 'email_failed_at'])
    .where('company_id', '=', companyId)
    .where('customer_id', '=', customerId)
    .orderBy('is_billing', 'desc')
    .orderBy('created_at')
    .execute();
  const usable = contacts.filter((c) => c.email_failed_at === null).map((c) => ({ email: blankToNull(c.email), billing: c.is_billing === 1 })).filter((c) => c.email?.includes('@'));
  const billing = usable.filter((c) => c.billing);
  return [...new Set((billing.length ? billing : usable).map((c) => c.email as string))];
}

/** A failed send in words, and whether another try could deliver it. */
export function sendFailureWords(err: unknown, connection: Pick<EmailConnection, 'name' | 'smtp_host' | 'smtp_port'>): { words: string; outcome: ReturnType<typeof classifySendError> } {
  const outcome = classifySendError(err);
  const e = (err ?? {}) as { code?: string; responseCode?: number };
  const server = `the mail server of "${connection.name}" (${connection.smtp_host}:${connection.smtp_port})`;
  let words: string;
  if (outcome.delivered === 'unknown') words = `The connection to ${server} broke after the message was handed over. It may have been delivered, so it was not sent again; Retry sends it once more.`;
  // The mailer's own sentence for a refusal (with its SMTP status), a certificate or TLS: already in our words.
  else if (err instanceof MailTlsError || (err instanceof MailDeliveryError && (err.code === 'ETLS' || typeof err.responseCode === 'number'))) words = err.message;
  else if (e.code === 'EAUTH' || e.code === 'ENOAUTH') words = `${capital(server)} did not accept the connection's user name and password.`;
  // A refusal from elsewhere: the server's own text is never repeated (it can be anyone's words).
  else if (typeof e.responseCode === 'number') words = `${capital(server)} refused the message (${e.responseCode}).`;
  else words = `${capital(server)} could not be reached.`;
  return { words, outcome };
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/**
 * The contact rule's answer for an email action not yet sent, in words ("Held: INV-1 is disputed."),
 * as its approval would get it now; null when it would go, or for a call, a task or a decided action.
 */
export async function actionContactHold(db: Db, companyId: string, actionId: string, now: string): Promise<string | null> {
  const answer = await actionContactAnswer(db, companyId, actionId, now);
  return answer && !answer.allowed ? answer.reason : null;
}

/** The contact rule's whole answer for an open email action, as approving it would get it now; null for calls, tasks and decided actions. */
export async function actionContactAnswer(db: Db, companyId: string, actionId: string, now: string): Promise<ContactAnswer | null> {
  const action = await db
    .selectFrom('actions as a')
    .leftJoin('invoices as i', 'i.id', 'a.invoice_id')
    .select(['a.customer_id', 'a.invoice_id', 'a.metadata', 'a.description', 'a.action_type', 'a.status', 'i.invoice_number'])
    .where('a.company_id', '=', companyId)
    .where('a.id', '=', actionId)
    .executeTakeFirst();
  if (!action || action.action_type !== 'email' || !['proposed', 'scheduled', 'processing'].includes(action.status)) return null;
  const metadata = parseMetadata(action.metadata);
  const email = actionEmailContent(metadata, { description: action.description, invoiceNumber: action.invoice_number });
  return checkContact(db, companyId, action.customer_id, actionRequest(action.invoice_id, metadata, email), now);
}

/**
 * The contact rule's answer for each open email action of a page (the inbox list), from one gathering
 * of facts: "Held: ..." as approving it would get it now, null when it would go; calls, tasks and
 * decided actions are absent.
 */
export async function actionContactHolds(
  db: Db,
  companyId: string,
  actions: Array<{ id: string; customer: string; invoice: string | null; invoice_number: string | null; action_type: string; status: string; description: string; metadata: Record<string, unknown> }>,
  now: string,
): Promise<Map<string, string | null>> {
  const open = actions.filter((a) => a.action_type === 'email' && ['proposed', 'scheduled', 'processing'].includes(a.status));
  const asked = open.map((a) => {
    const email = actionEmailContent(a.metadata, { description: a.description, invoiceNumber: a.invoice_number });
    return { customerId: a.customer, request: actionRequest(a.invoice, a.metadata, email) };
  });
  const answers = await checkContacts(db, companyId, asked, now);
  return new Map(open.map((a, i) => [a.id, answers[i].allowed ? null : answers[i].reason]));
}

export async function sendActionEmail(job: Job, ctx: JobContext): Promise<void> {
  const { engine } = ctx;
  const payload = JSON.parse(job.payload) as ActionEmailPayload;
  const outbox = await openJobOutbox(engine, job, () => ({ settled: OUTCOME_UNKNOWN, thrown: OUTCOME_UNKNOWN }));

  const action = await engine.db
    .selectFrom('actions as a')
    .innerJoin('customers as c', 'c.id', 'a.customer_id')
    .leftJoin('invoices as i', 'i.id', 'a.invoice_id')
    .select(['a.id', 'a.status', 'a.deleted_at', 'a.metadata', 'a.description', 'a.customer_id', 'a.invoice_id', 'c.name as customer_name', 'i.invoice_number'])
    .where('a.company_id', '=', job.company_id)
    .where('a.id', '=', payload.action_id)
    .executeTakeFirst();
  if (!action || action.deleted_at) throw new PermanentJobError('The action was deleted before its email went out; nothing was sent.');
  if (action.status !== 'processing') throw new PermanentJobError('The action was no longer approved when its email was due; nothing was sent.');
  const recipients = await actionRecipients(engine.db, job.company_id, action.customer_id);
  if (!recipients.length) throw new PermanentJobError(`No email address for ${action.customer_name}: add a contact with an address, then Retry.`);
  const connection = await defaultConnection(engine.db, job.company_id);
  if (!connection) throw new PermanentJobError('No email connection to send from: add one in Settings › Email, then Retry.');
  if (connection.smtp_password_enc) {
    try {
      engine.secrets.decrypt(connection.smtp_password_enc);
    } catch {
      throw new PermanentJobError(`The password of the email connection "${connection.name}" cannot be read on this computer: enter it again in Settings › Email, then Retry.`);
    }
  }
  const metadata = parseMetadata(action.metadata);
  const drafted = actionEmailContent(metadata, { description: action.description, invoiceNumber: action.invoice_number });
  // {{portal_link}} in the text: the customer's own link, minted for this email.
  const portalLink = usesPlaceholder('portal_link', drafted.text) ? ((await mintLinkForEmail(engine, job.company_id, action.customer_id)) ?? '') : null;
  const email = portalLink === null ? drafted : { ...drafted, text: fillPlaceholder(drafted.text, 'portal_link', portalLink) };
  // Documents chosen at approval, made now with the figures of this moment.
  const kinds = Array.isArray(metadata.attach) ? metadata.attach.filter((k): k is AttachmentKind => (ATTACHMENT_KINDS as readonly unknown[]).includes(k)) : [];
  const attachments = await makeAttachments(engine.db, job.company_id, { invoiceId: action.invoice_id, customerId: action.customer_id }, kinds, today(engine.clock));
  const messageId = outbox?.message_id ?? actionMessageId(action.id, connection.from_email);
  const to = recipients.join(', ');

  const message = { to, subject: email.subject, text: email.text, messageId, attachments };
  const { invoiceIds, ...asked } = actionRequest(action.invoice_id, metadata, email);
  await sendJobEmail(engine, job, { companyId: job.company_id, customerId: action.customer_id, invoiceIds, connection, message, contact: { ...asked, decidedAt: job.created_at, overridden: payload.overridden } }, (err) => {
    const { words } = sendFailureWords(err, connection);
    return { settled: words, thrown: words };
  });

  const user = payload.requested_by.user_id
    ? await engine.db.selectFrom('users').select(['id', 'display_name']).where('id', '=', payload.requested_by.user_id).executeTakeFirst()
    : undefined;
  const authorName = payload.requested_by.name || user?.display_name || connection.from_name || connection.from_email;
  const actor = { userId: user?.id ?? null, name: authorName };
  await ctx.succeed({
    actor,
    write: async (tx) => {
      const sent = { companyId: job.company_id, customerId: action.customer_id, invoiceId: action.invoice_id, subject: email.subject, body: email.text, author: actor, connectionId: connection.id, messageId, attachments: communicationAttachments(attachments) };
      const communicationId = await recordSentEmail(tx, sent, job.id);

      const done = { status: 'completed' as const, executed_at: tx.now, executed_by: authorName, channel_id: messageId, updated_at: tx.now };
      const completed = await tx.db.updateTable('actions').set(done).where('id', '=', action.id).where('status', '=', 'processing').executeTakeFirst();
      if (Number(completed.numUpdatedRows) > 0) {
        await tx.record('action', action.id, 'update', done);
        const entry = {
          id: newId(),
          company_id: job.company_id,
          action_id: action.id,
          operation: 'complete' as const,
          reason: null,
          comment: `Email sent to ${to}`,
          approver_id: null,
          user_id: actor.userId,
          created_at: tx.now,
        };
        await tx.db.insertInto('action_approvals').values(entry).execute();
        await tx.record('action_approval', entry.id, 'insert', entry);
      }
      return { message_id: messageId, to, communication_id: communicationId };
    },
  });
}
