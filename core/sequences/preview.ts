/**
 * What an email step will say to one customer: the templates rendered exactly as the sender renders
 * them (same context, same sender name, today in the sequence's zone), without sending or writing.
 * The builder previews unsaved templates; the queue previews a ready step before it is sent.
 */
import { timestamp } from '../clock';
import type { ContactRequest } from '../contact/rule';
import { checkContact } from '../contact/store';
import type { Db } from '../db/connection';
import { settingsOf } from '../holds/store';
import { PORTAL_LINK_SAMPLE, portalLinksServed } from '../email/portal-link';
import { type AttachmentKind, type AttachmentSummary, summarize } from '../documents/attachments';
import type { Engine } from '../engine';
import { NotFoundError, ValidationError } from '../errors';
import { companyName, coveredInvoiceIds, listedOpenInvoices, loadCustomers, loadInvoices, primaryInvoice, templateContext } from './context';
import { replySubject } from './rules';
import { localDate } from '../zones';
import { sequenceRow } from './store';
import { attachedInvoiceIds, stepAttachments, storedAttach } from './attachments';
import { emptyPlaceholderReason, emptyPlaceholders, htmlToText, renderTemplate, saysPastDue, templateValues, unknownPlaceholders } from './templates';

export interface EmailPreview {
  subject: string;
  body: string;
  /** Where it would go: the customer's billing contact (else first contact) with an email. */
  to: string | null;
  contact_name: string | null;
  sender: { id: string; name: string; from_email: string; from_name: string | null } | null;
  customer: string;
  customer_name: string;
  invoice: string | null;
  invoice_number: string | null;
  unknown_placeholders: string[];
  /** Known placeholders outside any section that have no value here: such an email is refused. */
  empty_placeholders: string[];
  refused_reason: string | null;
  /** The step's documents as they would be made now (name and size); sending makes them again. */
  attachments: AttachmentSummary[];
  /**
   * The contact rule's answer, as the send would get it now: "Held: ..." (nothing would go), "Left
   * out: ..." (the invoices named are not in the email above), or null when nothing is held.
   */
  hold_reason: string | null;
}

export interface PreviewTemplates {
  subject_template: string;
  body_plain_template: string;
  body_html_template: string;
}

async function senderOf(db: Db, companyId: string, id: string | null) {
  if (!id) return null;
  const row = await db
    .selectFrom('email_connections')
    .select(['id', 'name', 'from_email', 'from_name'])
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .where('is_active', '=', 1)
    .executeTakeFirst();
  return row ?? null;
}

export async function renderEmailPreview(
  engine: Pick<Engine, 'db' | 'clock'>,
  companyId: string,
  input: PreviewTemplates & {
    customerId: string;
    invoiceId: string | null;
    senderId: string | null;
    timezone: string;
    actorName: string | null;
    /** A due-date email's invoices: {{invoice_list}} lists these (those still open) instead of all open ones. */
    listedInvoiceIds?: Array<string | null>;
    /** The documents the email attaches. */
    attach?: readonly AttachmentKind[];
    /** The sequence's pause settings: the contact rule is asked as the send asks it. */
    holds: { pause_on_reply: number; pause_on_promise: number; pause_on_dispute: number };
    /** The collector's own text, sent instead of the templates (its words decide past-due wording). */
    edited?: { subject: string; body: string } | null;
  },
): Promise<EmailPreview> {
  const db = engine.db;
  const customer = (await loadCustomers(db, companyId, [input.customerId.toLowerCase()])).get(input.customerId.toLowerCase());
  if (!customer) throw new ValidationError('The request is invalid', { customer_id: ['No customer with this id in the company'] });
  const stepInvoice = input.invoiceId ? (await loadInvoices(db, companyId, [input.invoiceId.toLowerCase()])).get(input.invoiceId.toLowerCase()) : null;
  if (input.invoiceId && !stepInvoice) throw new ValidationError('The request is invalid', { invoice_id: ['No invoice with this id in the company'] });
  // The contact rule, as the send asks it: the invoices it holds are left out of the email.
  const words = input.edited ? [input.edited.subject, input.edited.body] : [input.subject_template, input.body_plain_template, input.body_html_template];
  const contact = { channel: 'sequence', pastDue: saysPastDue(...words), holds: settingsOf(input.holds), timeZone: input.timezone } satisfies Omit<ContactRequest, 'invoiceIds'>;
  const asked = input.listedInvoiceIds ? input.listedInvoiceIds.filter((x): x is string => x !== null) : customer.openInvoices.map((i) => i.id);
  const answer = await checkContact(db, companyId, customer.id, { ...contact, invoiceIds: asked }, timestamp(engine.clock));
  const left = new Set(answer.invoiceIds);
  if (answer.allowed) customer.openInvoices = customer.openInvoices.filter((i) => !asked.includes(i.id) || left.has(i.id));
  const invoice = primaryInvoice(customer, stepInvoice);
  const sender = await senderOf(db, companyId, input.senderId);
  const today = localDate(engine.clock.now(), input.timezone);
  const ctx = templateContext(customer, invoice, await companyName(db, companyId), sender?.from_name ?? input.actorName, today);
  const listed = input.listedInvoiceIds ? listedOpenInvoices(customer, answer.allowed ? input.listedInvoiceIds.filter((id) => id === null || left.has(id)) : input.listedInvoiceIds) : undefined;
  if (listed) ctx.listedInvoices = listed;
  const attachments = input.attach?.length ? summarize(await stepAttachments(db, companyId, customer.id, attachedInvoiceIds(listed, invoice), input.attach, today)) : [];
  // A preview mints no link: it shows where the customer's own link will be.
  if (portalLinksServed()) ctx.portalLink = PORTAL_LINK_SAMPLE;
  const values = templateValues(ctx);
  const plain = renderTemplate(input.body_plain_template, values);
  const empty = [...new Set([input.subject_template, input.body_plain_template, input.body_html_template].flatMap((t) => emptyPlaceholders(t, values)))];
  return {
    subject: renderTemplate(input.subject_template, values).trim(),
    body: plain || htmlToText(renderTemplate(input.body_html_template, values, 'html')),
    to: customer.email,
    contact_name: customer.contactName,
    sender,
    customer: customer.id,
    customer_name: customer.name,
    invoice: invoice?.id ?? null,
    invoice_number: invoice?.invoice_number ?? null,
    unknown_placeholders: [
      ...new Set([...unknownPlaceholders(input.subject_template), ...unknownPlaceholders(input.body_plain_template), ...unknownPlaceholders(input.body_html_template)]),
    ],
    empty_placeholders: empty,
    refused_reason: emptyPlaceholderReason(empty),
    attachments,
    hold_reason: answer.reason,
  };
}

/**
 * The preview of one scheduled email step, with the sender the queue would use (the sequence's);
 * `attach` previews the documents a send with that choice would carry instead of the step's.
 */
export async function previewScheduledStep(engine: Pick<Engine, 'db' | 'clock'>, companyId: string, id: string, actorName: string | null, attach?: AttachmentKind[]): Promise<EmailPreview> {
  const row = await engine.db
    .selectFrom('scheduled_steps as s')
    .innerJoin('sequence_steps as st', 'st.id', 's.step_id')
    .innerJoin('sequences as q', 'q.id', 's.sequence_id')
    .select([
      's.id',
      's.customer_id',
      's.invoice_id',
      's.enrollment_id',
      's.edited_subject',
      's.edited_body',
      'st.subject_template',
      'st.body_plain_template',
      'st.body_html_template',
      'st.attach',
      'q.timezone',
      'q.timing',
      'q.sender_connection_id',
      'q.send_followups_in_thread',
      'q.pause_on_reply',
      'q.pause_on_promise',
      'q.pause_on_dispute',
    ])
    .where('s.company_id', '=', companyId)
    .where('s.id', '=', id.toLowerCase())
    .executeTakeFirst();
  if (!row) throw new NotFoundError('Scheduled step', id);
  const edited = row.edited_subject !== null && row.edited_body !== null ? { subject: row.edited_subject, body: row.edited_body } : null;
  const preview = await renderEmailPreview(engine, companyId, {
    subject_template: row.subject_template,
    body_plain_template: row.body_plain_template,
    body_html_template: row.body_html_template,
    customerId: row.customer_id,
    invoiceId: row.invoice_id,
    senderId: row.sender_connection_id,
    timezone: row.timezone,
    actorName,
    listedInvoiceIds: row.timing === 'due_date' ? await coveredInvoiceIds(engine.db, row.id, row.invoice_id) : undefined,
    attach: attach ?? storedAttach(row.attach),
    holds: row,
    edited,
  });
  // The collector's edit goes out as written, as the sender sends it.
  if (edited) {
    preview.subject = edited.subject;
    preview.body = edited.body;
    preview.unknown_placeholders = [];
    preview.empty_placeholders = [];
    preview.refused_reason = null;
  }
  // Follow-ups sent in one thread reuse the first email's subject, as the sender does.
  if (row.send_followups_in_thread === 1) {
    const first = await engine.db
      .selectFrom('scheduled_steps')
      .select('email_subject')
      .where('enrollment_id', '=', row.enrollment_id)
      .where('status', '=', 'sent')
      .where('message_id', 'is not', null)
      .orderBy('sent_at')
      .orderBy('id')
      .executeTakeFirst();
    if (first) preview.subject = replySubject(first.email_subject ?? preview.subject);
  }
  return preview;
}

/** A sequence's unsaved templates rendered for a customer (and invoice) of the company. */
export async function previewSequenceTemplates(
  engine: Pick<Engine, 'db' | 'clock'>,
  companyId: string,
  sequenceId: string,
  input: Partial<PreviewTemplates> & { customer_id: string; invoice_id?: string | null; attach?: AttachmentKind[] },
  actorName: string | null,
): Promise<EmailPreview> {
  const sequence = await sequenceRow(engine.db, companyId, sequenceId);
  return renderEmailPreview(engine, companyId, {
    subject_template: input.subject_template ?? '',
    body_plain_template: input.body_plain_template ?? '',
    body_html_template: input.body_html_template ?? '',
    customerId: input.customer_id,
    invoiceId: input.invoice_id ?? null,
    senderId: sequence.sender_connection_id,
    timezone: sequence.timezone,
    actorName,
    attach: input.attach,
    holds: sequence,
  });
}
