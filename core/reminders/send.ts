/**
 * The reminder job: renders the invoice's reminder (or takes the text edited in its preview),
 * records the intent, sends it over the company's default connection, then records the
 * communication (the invoice's new last touch, with the text as sent), settles the outbox row and
 * marks the job succeeded in one transaction.
 */
import { today } from '../clock';
import type { Job } from '../db/schema';
import { communicationAttachments, makeAttachments } from '../documents/attachments';
import { type JobContext, PermanentJobError } from '../jobs/worker';
import { jobMessageId, openJobOutbox, recordSentEmail, sendJobEmail } from '../email/outbox';
import { mintLinkForEmail } from '../email/portal-link';
import { fillPlaceholder } from '../sequences/templates';
import type { ReminderPayload } from './queue';
import { loadReminderTargets, reminderEmailFor } from './targets';
import type { RenderedEmail } from './template';
import { defaultConnection } from '../email/connections';

export const OUTCOME_UNKNOWN = 'the worker stopped while the mail server had the message; whether it was delivered is unknown, so it was not sent again';

export async function sendInvoiceReminder(job: Job, ctx: JobContext): Promise<void> {
  const { engine } = ctx;
  const payload = JSON.parse(job.payload) as ReminderPayload;
  const outbox = await openJobOutbox(engine, job, (messageId) => ({ settled: OUTCOME_UNKNOWN, thrown: `Reminder ${messageId}: ${OUTCOME_UNKNOWN}` }));

  const target = (await loadReminderTargets(engine.db, job.company_id, [payload.invoice_id])).get(payload.invoice_id);
  if (!target) throw new PermanentJobError(`Invoice ${payload.invoice_id} no longer exists; no reminder sent`);
  if (target.closingReason) throw new PermanentJobError(`Invoice ${target.invoiceNumber} was closed (${target.closingReason}) before its reminder went out; no reminder sent`);
  if (!target.billingEmail) throw new PermanentJobError(`The customer of invoice ${target.invoiceNumber} has no billing contact email; no reminder sent`);
  const connection = await defaultConnection(engine.db, job.company_id);
  if (!connection) throw new PermanentJobError('The company has no default active email connection; no reminder sent');
  if (connection.smtp_password_enc) {
    try {
      engine.secrets.decrypt(connection.smtp_password_enc);
    } catch {
      throw new PermanentJobError(`The SMTP password of connection "${connection.name}" cannot be decrypted with this database's key; enter it again`);
    }
  }
  const company = await engine.db.selectFrom('companies').select('name').where('id', '=', job.company_id).executeTakeFirstOrThrow();

  const portalLink = await mintLinkForEmail(engine, job.company_id, target.customerId);
  const drafted = editedEmail(reminderEmailFor(company.name, target, today(engine.clock), portalLink), payload);
  // A collector's edit of the preview keeps {{portal_link}} where the link goes.
  const email = { ...drafted, text: fillPlaceholder(drafted.text, 'portal_link', portalLink ?? '') };
  const messageId = outbox?.message_id ?? jobMessageId(job.id, connection.from_email);
  const to = target.billingEmail;
  // The documents with the figures of this moment; one that cannot be made fails this try (retried).
  const attachments = await makeAttachments(engine.db, job.company_id, { invoiceId: target.invoiceId, customerId: target.customerId }, payload.attach ?? [], today(engine.clock));

  const message = { to, subject: email.subject, text: email.text, html: email.html, messageId, attachments };
  await sendJobEmail(engine, job, { companyId: job.company_id, customerId: target.customerId, invoiceIds: [target.invoiceId], connection, message, contact: { channel: 'reminder', decidedAt: job.created_at, overridden: payload.overridden } }, (err, outcome) => {
    const reason = err instanceof Error ? err.message : String(err);
    if (outcome.delivered === 'unknown') return { settled: reason, thrown: `Reminder ${messageId} to ${to}: the connection failed after the message may have been accepted (${reason}); not sent again` };
    return { settled: reason, thrown: `Sending reminder ${messageId} to ${to} failed: ${reason}` };
  });

  const author = await authorOf(ctx, payload, company.name);
  await ctx.succeed({
    actor: author,
    write: async (tx) => {
      const sent = { companyId: job.company_id, customerId: target.customerId, invoiceId: target.invoiceId, subject: email.subject, body: email.text, author, connectionId: connection.id, messageId, attachments: communicationAttachments(attachments) };
      const communicationId = await recordSentEmail(tx, sent, job.id);
      return { message_id: messageId, to, communication_id: communicationId, attachments: attachments.map((a) => a.filename) };
    },
  });
}

/**
 * The text edited in the preview replaces the template's. An edited body goes as plain text only:
 * the template's HTML part would still say the template's words.
 */
function editedEmail(rendered: RenderedEmail, payload: ReminderPayload): { subject: string; text: string; html?: string } {
  return {
    subject: payload.subject ?? rendered.subject,
    text: payload.body ?? rendered.text,
    ...(payload.body === undefined ? { html: rendered.html } : {}),
  };
}

/** The person who asked for the reminder (if still a user), else the company, as the email's author. */
async function authorOf(ctx: JobContext, payload: ReminderPayload, companyName: string): Promise<{ userId: string | null; name: string }> {
  const userId = payload.requested_by.user_id;
  const user = userId ? await ctx.engine.db.selectFrom('users').select(['id', 'display_name']).where('id', '=', userId).executeTakeFirst() : undefined;
  return { userId: user?.id ?? null, name: payload.requested_by.name || user?.display_name || companyName };
}
