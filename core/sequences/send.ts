/**
 * Sending a ready email step over SMTP, at most once:
 * 1. one transaction checks the step and the sender, renders the email and records a claim
 *    (send_started_at, a stable Message-ID) before anything leaves the machine;
 * 2. the SMTP call;
 * 3. one transaction records the outcome: sent (with the communication) or failed (with the error).
 * The step's documents (attach) are made between the claim and the SMTP call, with the figures of
 * that moment; one that cannot be made releases the claim and nothing is sent.
 * A second request while the claim is fresh gets 409; a step past ready is returned as it is, so a
 * retried HTTP call never sends twice. A claim left by a crash goes stale after
 * SEND_CLAIM_STALE_MS and may be retried with the same Message-ID, which receivers deduplicate.
 */
import type { EmailConnection, StepType } from '../db/schema';
import { type AttachmentKind, attachmentKinds, communicationAttachments, type DocumentAttachment } from '../documents/attachments';
import { ContactHeldError, type ContactRequest, reasonWords } from '../contact/rule';
import { overrideHolds } from '../contact/override';
import { checkContact } from '../contact/store';
import { handToSmtp, recordSentEmail } from '../email/outbox';
import { portalLinkFor } from '../email/portal-link';
import { settingsOf } from '../holds/store';
import { type CommandTx, type Engine, runCommand, type Scope } from '../engine';
import { ConflictError, ForbiddenError, InvalidStateError, NotFoundError, ValidationError } from '../errors';
import { dailyLimitWords, heldForTheDay } from './daily-limit';
import { companyName, listedOpenInvoices, loadCustomers, loadInvoices, primaryInvoice, templateContext } from './context';
import { emailsOfTheDay, getQueueRow, promoteDueSteps, type QueueRowView } from './queue';
import { assertNotPaused, assertReadyUnclaimed, EMAIL_STEP_TYPE, isPastReady, replySubject, stepMessageId } from './rules';
import { localDate } from '../zones';
import { activeConnection, completeIfFinished } from './store';
import { attachedInvoiceIds, stepAttachments, storedAttach } from './attachments';
import { emptyPlaceholderReason, emptyPlaceholders, htmlToText, renderTemplate, saysPastDue, templateValues, usesPlaceholder, fillPlaceholder } from './templates';

const ERROR_MAX = 1000;

interface Prepared {
  stepId: string;
  claimedAt: string;
  connection: EmailConnection;
  to: string;
  subject: string;
  text: string;
  html: string | undefined;
  messageId: string;
  inReplyTo: string | undefined;
  invoiceId: string | null;
  customerId: string;
  attach: AttachmentKind[];
  /** The invoices whose copies go with it, and the day in the sequence's zone (the statement's as-of). */
  documentInvoiceIds: string[];
  today: string;
  /** Every invoice the email speaks of, and what the contact rule is asked again right before SMTP. */
  mentionedInvoiceIds: string[];
  contact: Omit<ContactRequest, 'invoiceIds'>;
}

/** A step the contact rule held at its claim: nothing was sent, the step stays ready with the reason. */
interface Held {
  held: string;
}

/** The step stays ready and says why it was held (the queue shows `error`); a later send that goes clears it. */
async function markHeld(tx: CommandTx, stepId: string, words: string, extra: { send_started_at?: null; merged_into?: null } = {}): Promise<void> {
  const set = { ...extra, error: words.slice(0, ERROR_MAX) };
  await tx.db.updateTable('scheduled_steps').set({ ...set, updated_at: tx.now }).where('id', '=', stepId).execute();
  await tx.record('scheduled_step', stepId, 'update', set);
}

/**
 * The daily limit at the moment of the claim: the queue read before may predate another email of
 * the day (sent, or claimed by a send still on the wire), so the claim asks the rule itself.
 */
async function assertNotEmailedToday(
  tx: CommandTx,
  companyId: string,
  row: { id: string; customer_id: string; customer_name: string; step_type: StepType; timezone: string; merged_into: string | null },
): Promise<void> {
  const emails = await emailsOfTheDay(tx, companyId, [row.customer_id], row.id);
  if (heldForTheDay([row], emails, tx.now).size) throw new ConflictError(dailyLimitWords(row.customer_name), 'emailed_today');
}

export interface SendInput {
  sender_connection_id?: string | null;
  attach?: AttachmentKind[];
  override_reason?: string;
}

/**
 * Sends a ready email step (`early`: an upcoming one too, sent now). The sender is the one given, else the sequence's; it must be active and
 * be the caller's own connection, the sequence's configured sender, or shared (allow_shared_sending).
 * `attach` chooses this email's documents instead of the step's.
 */
export async function sendQueueStep(engine: Engine, scope: Scope, id: string, input: SendInput, options: { early?: boolean } = {}): Promise<QueueRowView> {
  await promoteDueSteps(engine, scope);
  const prepared = await runCommand(engine, 'claim_scheduled_step', scope, async (tx): Promise<Prepared | Held | null> => {
    const row = await tx.db
      .selectFrom('scheduled_steps as s')
      .innerJoin('sequence_steps as st', 'st.id', 's.step_id')
      .innerJoin('sequences as q', 'q.id', 's.sequence_id')
      .innerJoin('sequence_enrollments as e', 'e.id', 's.enrollment_id')
      .innerJoin('customers as c', 'c.id', 's.customer_id')
      .select([
        'e.paused_reason',
        's.edited_subject',
        's.edited_body',
        's.id',
        's.status',
        's.enrollment_id',
        's.customer_id',
        's.invoice_id',
        's.send_started_at',
        's.scheduled_at',
        's.merged_into',
        'c.name as customer_name',
        's.message_id',
        'st.step_type',
        'st.subject_template',
        'st.body_plain_template',
        'st.body_html_template',
        'st.attach',
        'q.timezone',
        'q.timing',
        'q.sender_connection_id as sequence_sender',
        'q.send_followups_in_thread',
        'q.pause_on_reply',
        'q.pause_on_promise',
        'q.pause_on_dispute',
      ])
      .where('s.company_id', '=', scope.companyId)
      .where('s.id', '=', id.toLowerCase())
      .executeTakeFirst();
    if (!row) throw new NotFoundError('Scheduled step', id);
    if (isPastReady(row.status)) return null;
    if (row.step_type !== EMAIL_STEP_TYPE) {
      throw new InvalidStateError(`Only email steps (step_type ${EMAIL_STEP_TYPE}) can be sent; this is a ${row.step_type} step: complete it instead`, 'not_email_step');
    }
    // Sent now, an upcoming step goes out as a ready one would: the daily limit and the contact rule ask the same.
    const early = options.early === true && row.status === 'scheduled';
    if (row.send_started_at === null && (row.scheduled_at <= tx.now || early)) await assertNotEmailedToday(tx, scope.companyId, row);
    if (!early) assertReadyUnclaimed(row.status, row.send_started_at, tx.now);
    assertNotPaused(row.paused_reason);

    const senderId = (input.sender_connection_id || row.sequence_sender)?.toLowerCase();
    if (!senderId) {
      throw new ValidationError('No sender: pass sender_connection_id or set the sequence sender', { sender_connection_id: ['Required: the sequence has no sender'] }, 'no_sender');
    }
    const connection = await activeConnection(tx.db, scope.companyId, senderId);
    const allowed = connection.user_id === scope.actor.userId || connection.id === row.sequence_sender || connection.allow_shared_sending === 1;
    if (!allowed) throw new ForbiddenError("You may send only from your own connection, the sequence's sender, or a shared connection", 'sender_not_allowed');

    const customer = (await loadCustomers(tx.db, scope.companyId, [row.customer_id])).get(row.customer_id);
    if (!customer?.email) throw new InvalidStateError('The customer has no contact with an email address', 'no_recipient');
    // A due-date row may lead others of the same customer and day: one email lists their invoices.
    const members = await tx.db.selectFrom('scheduled_steps').select(['id', 'invoice_id']).where('merged_into', '=', row.id).where('status', '=', 'ready').execute();
    const covered = await loadInvoices(tx.db, scope.companyId, [row.invoice_id, ...members.map((m) => m.invoice_id)].filter((id): id is string => id !== null));
    const stepInvoice = row.invoice_id ? covered.get(row.invoice_id) : null;
    if (stepInvoice && row.timing === 'due_date' && !customer.openInvoices.some((i) => i.id === stepInvoice.id)) {
      throw new InvalidStateError(`Invoice ${stepInvoice.invoice_number} is closed: its step is not sent`, 'invoice_closed');
    }

    // The contact rule, in the claim's transaction: the invoices held are left out; none left, the step is held.
    const edited = row.edited_subject !== null && row.edited_body !== null ? { subject: row.edited_subject, body: row.edited_body } : null;
    const contact: Omit<ContactRequest, 'invoiceIds'> = {
      channel: 'sequence',
      pastDue: saysPastDue(...(edited ? [edited.subject, edited.body] : [row.subject_template, row.body_plain_template, row.body_html_template])),
      holds: settingsOf(row),
      timeZone: row.timezone,
    };
    const asked = row.timing === 'due_date' ? [row.invoice_id, ...members.map((m) => m.invoice_id)].filter((x): x is string => x !== null) : customer.openInvoices.map((i) => i.id);
    let answer = await checkContact(tx.db, scope.companyId, row.customer_id, { ...contact, invoiceIds: asked }, tx.now);
    // Send anyway: the person saw these holds and gave a reason; the change log keeps both. A hold of another kind recorded later still stops it at the door.
    if (input.override_reason && answer.held.length > 0) {
      contact.overridden = await overrideHolds(tx, scope.companyId, answer, input.override_reason, { scheduled_step_id: row.id, customer_id: row.customer_id });
      answer = await checkContact(tx.db, scope.companyId, row.customer_id, { ...contact, invoiceIds: asked }, tx.now);
    }
    const left = new Set(answer.invoiceIds);
    // A due-date step is its own invoice's: held, the whole email waits (its members go with it).
    const ownHeld = row.timing === 'due_date' && row.invoice_id !== null && !left.has(row.invoice_id);
    if (!answer.allowed || ownHeld) {
      const words = reasonWords(answer.held, false);
      await markHeld(tx, row.id, words);
      return { held: words };
    }
    for (const m of members.filter((x) => x.invoice_id !== null && !left.has(x.invoice_id))) {
      const reasons = answer.held.filter((h) => h.invoiceId === m.invoice_id);
      await markHeld(tx, m.id, reasonWords(reasons, false), { merged_into: null });
    }
    customer.openInvoices = customer.openInvoices.filter((i) => !asked.includes(i.id) || left.has(i.id));
    const sentMembers = members.filter((m) => m.invoice_id === null || left.has(m.invoice_id));

    const invoice = primaryInvoice(customer, stepInvoice);
    const today = localDate(new Date(tx.now), row.timezone);
    const ctx = templateContext(customer, invoice, await companyName(tx.db, scope.companyId), connection.from_name ?? tx.actor.name, today);
    const listed = row.timing === 'due_date' ? listedOpenInvoices(customer, [row.invoice_id, ...sentMembers.map((m) => m.invoice_id)]) : undefined;
    if (listed) ctx.listedInvoices = listed;
    // A link of the customer's own, minted now for this email (only when it shows one: an edit keeps the placeholder where the link goes).
    const showsLink = edited ? usesPlaceholder('portal_link', edited.body) : usesPlaceholder('portal_link', row.subject_template, row.body_plain_template, row.body_html_template);
    if (showsLink) ctx.portalLink = await portalLinkFor(tx, scope.companyId, row.customer_id);
    const values = templateValues(ctx);
    // The collector's edit is sent as written (plain text); else the templates, rendered now.
    if (row.edited_subject === null) {
      const empty = [...new Set([row.subject_template, row.body_plain_template, row.body_html_template].flatMap((t) => emptyPlaceholders(t, values)))];
      const refused = emptyPlaceholderReason(empty);
      if (refused) throw new InvalidStateError(refused, 'empty_placeholder');
    }
    let subject = (edited ? edited.subject : renderTemplate(row.subject_template, values)).trim();
    const html = edited ? '' : renderTemplate(row.body_html_template, values, 'html');
    const text = edited ? fillPlaceholder(edited.body, 'portal_link', ctx.portalLink ?? '') : renderTemplate(row.body_plain_template, values) || htmlToText(html);
    if (!subject || !text.trim()) throw new InvalidStateError('The step has no subject or no body to send: edit its templates', 'empty_template');

    let inReplyTo: string | undefined;
    if (row.send_followups_in_thread === 1) {
      const earlier = await tx.db
        .selectFrom('scheduled_steps')
        .select(['message_id', 'email_subject'])
        .where('enrollment_id', '=', row.enrollment_id)
        .where('status', '=', 'sent')
        .where('message_id', 'is not', null)
        .orderBy('sent_at')
        .orderBy('id')
        .execute();
      if (earlier.length) {
        inReplyTo = earlier[earlier.length - 1].message_id ?? undefined;
        subject = replySubject(earlier[0].email_subject ?? subject);
      }
    }
    const messageId = row.message_id ?? stepMessageId(row.id, connection.from_email);
    const claim = { ...(early ? { status: 'ready' as const } : {}), send_started_at: tx.now, message_id: messageId, sender_connection_id: connection.id, email_subject: subject, sent_to: customer.email, error: null };
    await tx.db
      .updateTable('scheduled_steps')
      .set({ ...claim, updated_at: tx.now })
      .where('id', '=', row.id)
      .execute();
    await tx.record('scheduled_step', row.id, 'update', claim);
    return {
      stepId: row.id,
      claimedAt: tx.now,
      connection,
      to: customer.email,
      subject,
      text,
      html: html.trim() ? html : undefined,
      messageId,
      inReplyTo,
      invoiceId: invoice?.id ?? null,
      customerId: row.customer_id,
      // This send's choice, else the step's.
      attach: input.attach !== undefined ? attachmentKinds(input.attach) : storedAttach(row.attach),
      documentInvoiceIds: attachedInvoiceIds(listed, invoice),
      today,
      mentionedInvoiceIds: listed ? listed.map((i) => i.id) : customer.openInvoices.map((i) => i.id),
      contact,
    };
  });
  if (!prepared) return getQueueRow(engine, scope.companyId, id);
  if ('held' in prepared) throw new ConflictError(prepared.held, 'contact_held');

  let attachments: DocumentAttachment[];
  try {
    attachments = await stepAttachments(engine.db, scope.companyId, prepared.customerId, prepared.documentInvoiceIds, prepared.attach, prepared.today);
  } catch (err) {
    // Nothing left the machine: the step is ready again for another try.
    await runCommand(engine, 'release_scheduled_step', scope, async (tx) => {
      const released = await tx.db.updateTable('scheduled_steps').set({ send_started_at: null, updated_at: tx.now }).where('id', '=', prepared.stepId).where('send_started_at', '=', prepared.claimedAt).executeTakeFirst();
      if (Number(released.numUpdatedRows) > 0) await tx.record('scheduled_step', prepared.stepId, 'update', { send_started_at: null });
    });
    throw err;
  }

  let failure: string | null = null;
  try {
    const message = { to: prepared.to, subject: prepared.subject, text: prepared.text, html: prepared.html, messageId: prepared.messageId, inReplyTo: prepared.inReplyTo, attachments };
    await handToSmtp(engine, { companyId: scope.companyId, customerId: prepared.customerId, invoiceIds: prepared.mentionedInvoiceIds, connection: prepared.connection, message, contact: prepared.contact });
  } catch (err) {
    if (err instanceof ContactHeldError) {
      // Held at the door: nothing left the machine; the step is ready again and says why.
      await runCommand(engine, 'hold_scheduled_step', scope, async (tx) => {
        const current = await tx.db.selectFrom('scheduled_steps').select(['status', 'send_started_at']).where('id', '=', prepared.stepId).executeTakeFirstOrThrow();
        if (current.status === 'ready' && current.send_started_at === prepared.claimedAt) await markHeld(tx, prepared.stepId, err.message, { send_started_at: null });
      });
      throw new ConflictError(err.message, 'contact_held');
    }
    failure = (err instanceof Error ? err.message : String(err)).slice(0, ERROR_MAX) || 'The mail server refused the message';
  }

  await runCommand(engine, failure ? 'fail_scheduled_step' : 'send_scheduled_step', scope, async (tx) => {
    const current = await tx.db.selectFrom('scheduled_steps').select(['status', 'send_started_at', 'enrollment_id', 'customer_id']).where('id', '=', prepared.stepId).executeTakeFirstOrThrow();
    // Another attempt took over a stale claim meanwhile: it records its own outcome.
    if (current.status !== 'ready' || current.send_started_at !== prepared.claimedAt) return;
    // The rows merged into this one share its outcome: their invoices were in the same email.
    const members = (await tx.db.selectFrom('scheduled_steps').select('id').where('merged_into', '=', prepared.stepId).where('status', '=', 'ready').execute()).map((m) => m.id);
    if (failure) {
      for (const stepId of [prepared.stepId, ...members]) {
        await tx.db.updateTable('scheduled_steps').set({ status: 'failed', error: failure, updated_at: tx.now }).where('id', '=', stepId).execute();
        await tx.record('scheduled_step', stepId, 'update', { status: 'failed', error: failure });
      }
    } else {
      const communicationId = await recordSentEmail(tx, {
        companyId: scope.companyId,
        customerId: current.customer_id,
        invoiceId: prepared.invoiceId,
        subject: prepared.subject,
        body: prepared.text,
        author: tx.actor,
        connectionId: prepared.connection.id,
        messageId: prepared.messageId,
        attachments: communicationAttachments(attachments),
        aboutInvoiceIds: prepared.mentionedInvoiceIds,
      });
      await tx.db
        .updateTable('scheduled_steps')
        .set({ status: 'sent', sent_at: tx.now, error: null, communication_id: communicationId, updated_at: tx.now })
        .where('id', '=', prepared.stepId)
        .execute();
      await tx.record('scheduled_step', prepared.stepId, 'update', { status: 'sent', sent_at: tx.now, communication_id: communicationId });
      for (const stepId of members) {
        const sent = { status: 'sent' as const, sent_at: tx.now, error: null, communication_id: communicationId, email_subject: prepared.subject, message_id: prepared.messageId };
        await tx.db.updateTable('scheduled_steps').set({ ...sent, updated_at: tx.now }).where('id', '=', stepId).execute();
        await tx.record('scheduled_step', stepId, 'update', sent);
      }
    }
    await completeIfFinished(tx, current.enrollment_id);
  });
  return getQueueRow(engine, scope.companyId, prepared.stepId);
}

/**
 * "Send now" on a step of the queue: an email step (upcoming or ready) is sent at once through the
 * same claim, contact rule and daily limit as a send; a call or task step becomes ready, listed in
 * Today to be done. A paused enrollment's step is refused with its reason.
 */
export async function sendStepNow(engine: Engine, scope: Scope, id: string, input: SendInput): Promise<QueueRowView> {
  const step = await engine.db
    .selectFrom('scheduled_steps as s')
    .innerJoin('sequence_steps as st', 'st.id', 's.step_id')
    .select(['st.step_type'])
    .where('s.company_id', '=', scope.companyId)
    .where('s.id', '=', id.toLowerCase())
    .executeTakeFirst();
  if (!step) throw new NotFoundError('Scheduled step', id);
  if (step.step_type === EMAIL_STEP_TYPE) return sendQueueStep(engine, scope, id, input, { early: true });
  const stepId = await runCommand(engine, 'bring_step_forward', scope, async (tx) => {
    const row = await tx.db
      .selectFrom('scheduled_steps as s')
      .innerJoin('sequence_enrollments as e', 'e.id', 's.enrollment_id')
      .select(['s.id', 's.status', 'e.paused_reason'])
      .where('s.company_id', '=', scope.companyId)
      .where('s.id', '=', id.toLowerCase())
      .executeTakeFirstOrThrow();
    if (row.status !== 'scheduled') return row.id;
    assertNotPaused(row.paused_reason);
    const set = { status: 'ready' as const, scheduled_at: tx.now };
    await tx.db.updateTable('scheduled_steps').set({ ...set, updated_at: tx.now }).where('id', '=', row.id).execute();
    await tx.record('scheduled_step', row.id, 'update', set);
    return row.id;
  });
  return getQueueRow(engine, scope.companyId, stepId);
}
