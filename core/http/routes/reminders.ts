import { createRoute, z } from '@hono/zod-openapi';
import { OverrideReason } from './contact';
import { ATTACHMENT_KINDS } from '../../documents/attachments';
import { invoiceReminders, MAX_REMINDERS } from '../../reminders/history';
import { bulkReminderPreview, REMINDER_WARNING_KINDS, reminderPreview } from '../../reminders/preview';
import { ValidationError } from '../../errors';
import { queueInvoiceReminders } from '../../reminders/queue';
import { scopeOf } from '../context';
import { CompanyParams, createRouter, idParams, json, jsonBody, problems, SECURITY, Text, Timestamp, Uuid } from '../openapi';

export const MAX_REMINDER_IDS = 1000;

const reminderInvoices = {
  invoice_ids: z
    .array(z.guid().openapi({ format: 'uuid' }))
    .min(1)
    .max(MAX_REMINDER_IDS),
  attach: z
    .array(z.enum(ATTACHMENT_KINDS))
    .max(ATTACHMENT_KINDS.length)
    .optional()
    .openapi({
      description:
        'Extension: documents to attach to each reminder, made when it is sent with the figures of that moment: invoice_pdf (the invoice copy) and statement (the customer\'s statement of account as of the day it is sent)',
    }),
};

/** A document an email would carry, as it would be made now: also the sequences' and actions' previews. */
export const AttachmentPreview = z.object({ kind: z.enum(ATTACHMENT_KINDS), file_name: z.string(), bytes: z.number().int() }).openapi('AttachmentPreview');

const MAX_REMINDER_SUBJECT = 300;
const MAX_REMINDER_BODY = 20_000;
const notBlank = (s: string) => s.trim() !== '';

const SendRemindersRequest = z
  .strictObject({
    ...reminderInvoices,
    subject: Text(MAX_REMINDER_SUBJECT)
      .refine(notBlank, 'Must not be blank')
      .refine((s) => !/[\r\n]/.test(s), 'Must be one line')
      .optional()
      .openapi({ description: 'Extension: the subject as edited in the preview, sent instead of the template\'s. Only with exactly one invoice id.' }),
    body: Text(MAX_REMINDER_BODY)
      .refine(notBlank, 'Must not be blank')
      .optional()
      .openapi({ description: 'Extension: the plain-text body as edited in the preview, sent (as plain text only) instead of the template\'s, which is otherwise rendered when it is sent. Only with exactly one invoice id.' }),
    override_reason: OverrideReason,
  })
  // Edited text is written for one invoice: the same words to many customers would be wrong for all but one.
  .superRefine((v, ctx) => {
    if (v.invoice_ids.length === 1) return;
    for (const field of ['subject', 'body'] as const) {
      if (v[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: 'Edited text is for one reminder: send exactly one invoice id with it' });
    }
  })
  .openapi('SendRemindersRequest');

const BulkReminderPreviewRequest = z.strictObject(reminderInvoices).openapi('BulkReminderPreviewRequest');

const ReminderWarning = z.object({ kind: z.enum(REMINDER_WARNING_KINDS), message: z.string() }).openapi('ReminderWarning');

const InvoiceWarnings = z
  .object({
    invoice_id: Uuid,
    invoice_number: z.string(),
    customer_id: Uuid,
    customer_name: z.string(),
    warnings: z.array(ReminderWarning),
  })
  .openapi('InvoiceReminderWarnings');

const SendRemindersResponse = z
  .object({
    status: z.literal('queued'),
    invoice_ids: z.array(Uuid),
    message: z.string(),
    warnings: z.array(InvoiceWarnings).openapi({ description: 'Extension: the invoices asked for that had double-dunning warnings (a dispute, a standing promise, an unanswered reply, a ready dunning step, a recent email), as they stood when asked' }),
    held: z
      .array(z.object({ invoice_id: Uuid, reason: z.string() }))
      .openapi({ description: 'Extension: the invoices the contact rule held (an open dispute, a standing promise, an unanswered reply, a pause by a person, the one-email-a-day cap): no reminder queued, with why' }),
  })
  .openapi('SendRemindersResponse');

const sendRemindersRoute = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/invoices/bulk/send-reminders',
  tags: ['Invoices'],
  summary: 'Queue payment reminder emails',
  description:
    'Records one durable reminder job per invoice; a background worker emails each invoice to its customer\'s billing contact through the company\'s default email connection and records the email as a communication. All or nothing: unknown or other companies\' invoices, closed invoices and customers without a billing email fail the whole request with 400 naming them. At most one reminder per invoice per day: asking again while one is queued, running or already sent today queues nothing new; a reminder that failed today is queued again.',
  security: SECURITY,
  request: { params: CompanyParams, body: jsonBody(SendRemindersRequest) },
  responses: { 200: json(SendRemindersResponse, 'The reminders are queued'), ...problems(400, 401, 403, 404) },
});

const Reminder = z
  .object({
    id: Uuid,
    status: z.enum(['queued', 'running', 'sent', 'failed']).openapi({
      description:
        "queued: waiting for the worker (first try or a retry at next_attempt_at); running: being sent now; sent: the mail server accepted it; failed: given up, see last_error (this includes an email whose delivery is unknown after a crash or a lost connection: it is not sent again unless asked again)",
    }),
    attempts: z.number().int(),
    max_attempts: z.number().int(),
    next_attempt_at: Timestamp.nullable().openapi({ description: 'When a reminder queued after a failed try runs again; null otherwise' }),
    last_error: z.string().nullable().openapi({ description: 'Why the last try failed; null once sent' }),
    queued_at: Timestamp,
    sent_at: Timestamp.nullable(),
    queued_by: z.string().nullable().openapi({ description: 'Who asked for the reminder' }),
    recipient: z.string().nullable().openapi({ description: "The address it was sent to; before the first try, the customer's current billing contact" }),
  })
  .openapi('Reminder');

const listRemindersRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/invoices/{invoice_id}/reminders',
  tags: ['Extensions'],
  summary: `An invoice's reminder emails and their outcome, newest first (at most ${MAX_REMINDERS})`,
  security: SECURITY,
  request: { params: idParams('invoice_id') },
  responses: { 200: json(z.object({ count: z.number().int(), data: z.array(Reminder) }).openapi('ReminderList'), "The invoice's reminders"), ...problems(401, 403, 404) },
});

const ReminderPreview = z
  .object({
    invoice_id: Uuid,
    to: z.string().nullable().openapi({ description: 'The billing contact’s address; null when there is none' }),
    contact_name: z.string().nullable(),
    from: z.string().nullable().openapi({ description: 'The default connection’s sender; null without one' }),
    connection_name: z.string().nullable(),
    email: z.object({ subject: z.string(), text: z.string(), html: z.string() }).nullable().openapi({ description: 'The email as the worker renders it; null for a closed invoice' }),
    blockers: z.array(z.string()).openapi({ description: 'Why it cannot be sent; empty when it can' }),
    warnings: z
      .array(ReminderWarning)
      .openapi({
        description:
          'Warnings before chasing: the invoice is disputed, a promise to pay stands, a reply is unanswered, a recent email to the customer, a ready sequence step, a reminder already asked for today',
      }),
    attachments: z
      .array(AttachmentPreview)
      .openapi({ description: 'The documents that can be attached (send-reminders `attach`), made now to show their names and sizes; sending makes them again with the figures of that moment. Empty for a closed invoice.' }),
  })
  .openapi('ReminderPreview');

const previewRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/invoices/{invoice_id}/reminder-preview',
  tags: ['Extensions'],
  summary: 'The reminder email as it would be sent now, with what blocks it and double-dunning warnings; queues nothing',
  security: SECURITY,
  request: { params: idParams('invoice_id') },
  responses: { 200: json(ReminderPreview, 'The preview'), ...problems(401, 403, 404) },
});

const BulkReminderPreview = z
  .object({
    count: z.number().int(),
    held_count: z.number().int().openapi({ description: 'How many invoices are held by default' }),
    data: z.array(
      InvoiceWarnings.extend({
        blockers: z.array(z.string()).openapi({ description: 'Why it cannot be sent (closed, no billing email); the whole request is refused while any invoice has one' }),
        held: z.boolean().openapi({ description: 'A dispute, a standing promise, an unanswered reply or a ready dunning step: a client leaves it out by default' }),
      }),
    ),
  })
  .openapi('BulkReminderPreview');

const bulkPreviewRoute = createRoute({
  method: 'post',
  path: '/api/companies/{company_id}/invoices/bulk/reminder-preview',
  tags: ['Extensions'],
  summary: 'The double-dunning warnings of each invoice of a bulk reminder, in the order asked; queues nothing',
  description: 'Unknown or other companies\' invoices fail the request with 400 naming them.',
  security: SECURITY,
  request: { params: CompanyParams, body: jsonBody(BulkReminderPreviewRequest) },
  responses: { 200: json(BulkReminderPreview, 'The warnings per invoice'), ...problems(400, 401, 403, 404) },
});

export function reminderRoutes() {
  const router = createRouter();
  router.openapi(previewRoute, async (c) => c.json(await reminderPreview(c.var.engine, scopeOf(c).companyId, c.req.valid('param').invoice_id), 200));
  router.openapi(listRemindersRoute, async (c) => {
    const data = await invoiceReminders(c.var.engine.db, scopeOf(c).companyId, c.req.valid('param').invoice_id);
    return c.json({ count: data.length, data }, 200);
  });
  router.openapi(bulkPreviewRoute, async (c) => {
    const data = await bulkReminderPreview(c.var.engine, scopeOf(c).companyId, c.req.valid('json').invoice_ids);
    return c.json({ count: data.length, held_count: data.filter((d) => d.held).length, data }, 200);
  });
  router.openapi(sendRemindersRoute, async (c) => {
    const { invoice_ids, attach, subject, body, override_reason } = c.req.valid('json');
    const scope = scopeOf(c);
    // Read before queuing: a reminder queued by this very request is no warning about it. Unknown
    // ids are refused by the queuing, with its own words.
    const warned = await bulkReminderPreview(c.var.engine, scope.companyId, invoice_ids).catch((err: unknown) => {
      if (err instanceof ValidationError) return [];
      throw err;
    });
    const result = await queueInvoiceReminders(c.var.engine, scope, invoice_ids, attach, { subject, body }, override_reason);
    // "Already asked today" is what the message says; the rest is about the customer.
    const warnings = warned
      .map(({ blockers: _b, held: _h, ...w }) => ({ ...w, warnings: w.warnings.filter((x) => x.kind !== 'reminder_today') }))
      .filter((w) => w.warnings.length > 0);
    return c.json({ status: 'queued' as const, invoice_ids, message: reminderMessage(result.queued.length, result.unchanged.length, result.held.length), warnings, held: result.held }, 200);
  });
  return router;
}

export function reminderMessage(queued: number, unchanged: number, held = 0): string {
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const parts = [`${plural(queued, 'reminder', 'reminders')} queued`];
  if (unchanged) parts.push(`${plural(unchanged, 'invoice already has', 'invoices already have')} a reminder queued or sent today`);
  if (held) parts.push(`${plural(held, 'invoice is', 'invoices are')} on hold and got none`);
  return `${parts.join('; ')}.`;
}
