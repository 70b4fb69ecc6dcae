import { createRoute, z } from '@hono/zod-openapi';
import { ATTACHMENT_KINDS } from '../../documents/attachments';
import { editStep, pauseEnrollment, resumeEnrollment, skipStep, snoozeStep } from '../../sequences/control';
import { bulkEnroll, enrollCustomer, getEnrollment, listEnrollments, stopEnrollment } from '../../sequences/enrollments';
import { completeQueueStep, enrollmentSteps, getQueueRow, listQueue } from '../../sequences/queue';
import { sentMessage } from '../../sequences/sent';
import {
  BULK_ENROLL_MAX,
  DEFAULT_PAGE_SIZE,
  DEFAULT_TIMEZONE,
  EMAIL_STEP_TYPE,
  LAST_TOUCH_QUIET_DAYS,
  MAX_PAGE_SIZE,
  NAME_MAX,
  ON_ENROLLED,
  OFFSET_DAYS_MAX,
  pageOf,
  parseEnumList,
  parseOwnerFilter,
  QUEUE_CATEGORIES,
  SEQUENCE_ACTIONS,
  SEQUENCE_STATUSES,
  STEP_DEFAULTS,
  STEP_TYPES,
  UNASSIGNED,
} from '../../sequences/rules';
import { SEQUENCE_TIMINGS } from '../../sequences/due-dates';
import { previewScheduledStep, previewSequenceTemplates } from '../../sequences/preview';
import { sendQueueStep, sendStepNow } from '../../sequences/send';
import { changeSequenceStatus, createSequence, getSequence, listSequences, sequenceOverview, updateSequence } from '../../sequences/sequences';
import { createStep, deleteStep, getStep, listSteps, updateStep } from '../../sequences/steps';
import { OFFSET_TIME_RE } from '../../zones';
import { PLACEHOLDERS } from '../../sequences/templates';
import { actorOf, scopeOf } from '../context';
import { CompanyParams, createRouter, DateString, idParams, json, jsonBody, MoneyValue, NullableUuidValue, problems, SearchText, SECURITY, Text, Timestamp, Uuid, UuidValue } from '../openapi';
import { CallOutcome } from './communications';
import { AttachmentPreview } from './reminders';

const TAG = 'Sequences';
const EXT = ['Extensions'];
const Page = z.coerce.number().int().min(1).optional().openapi({ type: 'integer', default: 1 });
const PageSize = z.coerce
  .number()
  .int()
  .min(1)
  .optional()
  .openapi({ type: 'integer', default: DEFAULT_PAGE_SIZE, description: `Values above ${MAX_PAGE_SIZE} are clamped to ${MAX_PAGE_SIZE}` });
const Search = SearchText.optional();
const StepType = z.enum(STEP_TYPES);
const OffsetTime = z
  .string()
  .regex(OFFSET_TIME_RE, 'Use HH:MM (00:00 to 23:59)')
  .openapi({ example: '09:00' });

const Timing = z.enum(SEQUENCE_TIMINGS);
const DueOffsetDays = z
  .number()
  .int()
  .min(-OFFSET_DAYS_MAX)
  .max(OFFSET_DAYS_MAX)
  .openapi({ description: 'Extension: days from the invoice\'s due date in a due_date sequence; negative before it (-3: "3 days before due"), 0 on the due date' });

const Attach = z
  .array(z.enum(ATTACHMENT_KINDS))
  .max(ATTACHMENT_KINDS.length)
  .openapi({
    description:
      "Extension, email steps: documents attached to each email, made when it is sent with the figures of that moment: invoice_pdf (a copy of the invoice the email is about; of each invoice a due-date email lists) and statement (the customer's statement of account as of that day, in the sequence's time zone)",
  });

const Sequence = z
  .object({
    id: Uuid,
    company: Uuid,
    name: z.string().openapi({ description: 'Unique within the company, regardless of case' }),
    timezone: z.string().openapi({ description: 'IANA time zone the steps fire in', example: DEFAULT_TIMEZONE }),
    send_followups_in_thread: z.boolean(),
    sender_connection_id: Uuid.nullable().openapi({ description: 'Default sender email connection' }),
    status: z.enum(SEQUENCE_STATUSES),
    pause_on_reply: z.boolean().openapi({ description: 'Extension: enrollments pause by themselves while a real reply of the customer is unanswered' }),
    pause_on_promise: z.boolean().openapi({ description: 'Extension: enrollments pause while a promise to pay stands, until its date passes unpaid' }),
    pause_on_dispute: z.boolean().openapi({ description: 'Extension: enrollments pause while an invoice of the customer is disputed' }),
    timing: Timing.openapi({ description: 'Extension: when steps run. enrollment_start (default): offset_days after each enrollment\'s start; due_date: per open invoice of the customer, due_offset_days from its due date, a customer\'s steps of one day merged into one email listing the invoices ({{invoice_list}})' }),
    step_count: z.number().int(),
    active_enrollment_count: z.number().int(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('Sequence');

const SequenceList = z
  .object({ count: z.number().int(), page: z.number().int(), page_size: z.number().int(), data: z.array(Sequence) })
  .openapi('SequenceList');

const Step = z
  .object({
    id: Uuid,
    sequence: Uuid,
    step_type: StepType.openapi({ description: `${EMAIL_STEP_TYPE} steps are sent as email from the queue; call and task steps are completed` }),
    label: z.string(),
    offset_days: z.number().int(),
    offset_time: z.string().openapi({ example: '09:00' }),
    is_active: z.boolean(),
    subject_template: z.string(),
    body_plain_template: z.string(),
    body_html_template: z.string(),
    instructions: z.string(),
    on_promise_missed: z.boolean().openapi({ description: 'Extension: not scheduled on enrollment; runs when a promise that paused the enrollment breaks' }),
    due_offset_days: DueOffsetDays,
    attach: Attach,
    has_history: z.boolean().openapi({ description: 'Executed for some enrollment: only is_active can change, and it cannot be deleted' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('SequenceStep');

const SenderOption = z
  .object({
    id: Uuid,
    name: z.string(),
    from_email: z.string(),
    from_name: z.string().nullable(),
    user_id: Uuid.nullable(),
    is_default: z.boolean(),
    allow_shared_sending: z.boolean(),
    is_sequence_sender: z.boolean(),
  })
  .openapi('SequenceSenderOption');

const Overview = z
  .object({
    sequence: Sequence,
    steps: z.array(Step).openapi({ description: 'In firing order: offset_days, then offset_time' }),
    active_enrollment_count: z.number().int(),
    email_connections: z.array(SenderOption).openapi({ description: "Active connections the caller may send with: their own, shared ones, and the sequence's sender" }),
    placeholders: z.array(z.string()).openapi({ description: 'Extension: the placeholder names templates may use, as {{name}}' }),
  })
  .openapi('SequenceOverview');

const PauseKind = z.enum(['reply', 'promise', 'dispute', 'manual']).openapi({
  description: 'reply: a real reply nobody has answered; promise: a standing promise to pay; dispute: an open dispute; manual: paused by a collector',
});

const Enrollment = z
  .object({
    id: Uuid,
    sequence: Uuid,
    sequence_name: z.string(),
    customer: Uuid,
    customer_name: z.string(),
    status: z.enum(['active', 'completed']),
    start_date: DateString,
    stop_reason: z.string().nullable().openapi({ description: 'Why it ended: the reason given to stop, "re-enrolled", "sequence archived", "replied" (the customer answered by email); null when it ran to the end' }),
    completed_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
    pause_kind: PauseKind.nullable().openapi({ description: 'Extension: what pauses the enrollment; null when it runs' }),
    pause_reason: z.string().nullable().openapi({ description: 'Extension: the pause in words, e.g. "Paused: Tri-County promised payment by Nov 27"' }),
    paused_at: Timestamp.nullable(),
    paused_until: DateString.nullable().openapi({ description: 'Extension: a promise date; the enrollment resumes when it passes unpaid' }),
    timing: Timing.openapi({ description: "Extension: the sequence's timing; in a due_date enrollment every open invoice has its own schedule (scheduled_steps with invoice, due_date, due_offset_days), invoices opening later join and closed ones leave" }),
  })
  .openapi('SequenceEnrollment');

const QueueRow = z
  .object({
    id: Uuid,
    sequence: Uuid,
    sequence_name: z.string(),
    step: Uuid,
    step_label: z.string(),
    step_type: StepType,
    enrollment: Uuid,
    customer: Uuid,
    customer_name: z.string(),
    ar_owner: Uuid.nullable(),
    ar_owner_name: z.string().nullable(),
    invoice: Uuid.nullable(),
    invoice_number: z.string().nullable(),
    scheduled_date: DateString.openapi({ description: "The date it fires on, in the sequence's time zone" }),
    scheduled_at: Timestamp,
    status: z.enum(['scheduled', 'ready', 'sent', 'completed', 'cancelled', 'failed']),
    email_subject: z.string().nullable().openapi({ description: 'The subject sent; before sending, a preview rendered with current data' }),
    sender_connection_id: Uuid.nullable(),
    message_id: z.string().nullable(),
    sent_at: Timestamp.nullable(),
    error: z.string().nullable(),
    replied_at: Timestamp.nullable().openapi({ description: 'When the customer last replied by email; null if never' }),
    hold_reason: z.enum(['paused', 'recent_contact', 'emailed_today', 'replied', 'skipped', 'caught_up', 'stopped']).nullable().openapi({
      description:
        `paused: its enrollment is paused (see pause_reason); recent_contact: a due email step held while the customer was contacted by hand in the last ${LAST_TOUCH_QUIET_DAYS} days (quiet_days); emailed_today (extension): a due email step waiting for tomorrow, since a sequence already emailed the customer today and one chase email a day goes out; replied: cancelled because the customer replied; skipped: skipped by a collector; caught_up (extension): an earlier email of a back-dated enrollment, skipped because one catch-up email goes in its place; stopped (extension): a person stopped contact with the customer (paused or do not contact), in the contact rule's words in pause_reason; lifted on the customer, not by Resume`,
    }),
    pause_kind: PauseKind.nullable().openapi({ description: "Extension: what pauses a pending step's enrollment" }),
    pause_reason: z.string().nullable().openapi({ description: "Extension: the pause in words; a person's stop on the customer first (hold_reason stopped)" }),
    edited_subject: z.string().nullable().openapi({ description: "Extension: the collector's subject, sent in place of the template" }),
    edited_body: z.string().nullable().openapi({ description: "Extension: the collector's body (plain text), sent in place of the templates" }),
    edited_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
    timing: Timing.openapi({ description: "Extension: the sequence's timing" }),
    due_date: DateString.nullable().openapi({ description: "Extension: the due date of the row's invoice in a due_date sequence; null otherwise" }),
    due_offset_days: z.number().int().nullable().openapi({ description: "Extension: the step's offset from that due date (negative before it); null otherwise" }),
    merged_into: Uuid.nullable().openapi({
      description: "Extension: the row whose one email also covers this row's invoice (same customer, day and step type); such rows are left out of the queue's lists and share that row's outcome",
    }),
    covered_invoices: z
      .array(z.object({ id: Uuid, invoice_number: z.string(), due_date: DateString }))
      .openapi({ description: 'Extension: the invoices the email is about (its own and those merged into it), soonest due first' }),
  })
  .openapi('ScheduledStep');

const QueueList = z
  .object({
    count: z.number().int(),
    page: z.number().int(),
    page_size: z.number().int(),
    data: z.array(QueueRow),
    quiet_days: z.number().int().openapi({ description: 'Extension: the days a customer contacted by hand (a call, an email) gets no sequence email (hold_reason recent_contact)' }),
  })
  .openapi('ScheduledStepList');

const SequenceParams = idParams('sequence_id');
const StepParams = idParams('sequence_id', 'step_id');
const EnrollmentParams = idParams('enrollment_id');
const QueueParams = idParams('scheduled_step_id');

const ListQuery = z.object({
  status: z.string().optional().openapi({ description: `Comma-separated: ${SEQUENCE_STATUSES.join(', ')}`, example: 'active,draft' }),
  search: Search.openapi({ description: 'Case-insensitive partial match on the name' }),
  page: Page,
  page_size: PageSize,
});

const CreateBody = z
  .strictObject({
    name: Text(NAME_MAX),
    timezone: Text(100).optional().openapi({ default: DEFAULT_TIMEZONE }),
    duplicate_from: UuidValue.optional().openapi({ description: 'A sequence of this company whose steps are copied' }),
    send_followups_in_thread: z.boolean().optional().openapi({ default: false }),
    sender_connection_id: NullableUuidValue.optional().openapi({ description: 'An active email connection of the company; null for none' }),
    timing: Timing.optional().openapi({ default: 'enrollment_start', description: 'Extension: enrollment_start or due_date (see Sequence.timing)' }),
  })
  .openapi('CreateSequenceRequest');

const PatchBody = z
  .strictObject({
    name: Text(NAME_MAX).optional(),
    timezone: Text(100).optional().openapi({ description: 'A valid IANA time zone' }),
    sender_connection_id: z
      .union([UuidValue, z.literal('')])
      .nullable()
      .optional()
      .openapi({ description: 'An active email connection of the company; null or "" clears it' }),
    send_followups_in_thread: z.boolean().optional(),
    pause_on_reply: z.boolean().optional(),
    pause_on_promise: z.boolean().optional(),
    pause_on_dispute: z.boolean().optional(),
    timing: Timing.optional().openapi({ description: 'Extension: changes only while no customer is enrolled (409 has_active_enrollments)' }),
  })
  .openapi('UpdateSequenceRequest');

const LifecycleBody = z
  .strictObject({ action: z.enum(SEQUENCE_ACTIONS).openapi({ description: 'activate: draft or archived -> active; archive: draft or active -> archived (ends active enrollments)' }) })
  .openapi('SequenceLifecycleRequest');

const placeholderHelp = `Placeholders: ${PLACEHOLDERS.map((p) => `{{${p}}}`).join(', ')}`;
const StepBody = z
  .strictObject({
    step_type: StepType.optional().openapi({ default: STEP_DEFAULTS.step_type }),
    label: Text(200).optional().openapi({ default: STEP_DEFAULTS.label }),
    offset_days: z.number().int().min(0).max(OFFSET_DAYS_MAX).optional().openapi({ default: 0, description: 'Days after the enrollment start date' }),
    offset_time: OffsetTime.optional().openapi({ default: STEP_DEFAULTS.offset_time }),
    is_active: z.boolean().optional().openapi({ default: true, description: 'Whether the step fires for new enrollments' }),
    subject_template: Text(1_000).optional().openapi({ description: placeholderHelp }),
    body_plain_template: Text(100_000).optional(),
    body_html_template: Text(200_000).optional(),
    instructions: Text(10_000).optional(),
    on_promise_missed: z.boolean().optional().openapi({ default: false }),
    due_offset_days: DueOffsetDays.optional().openapi({ default: 0 }),
    attach: Attach.optional().openapi({ default: [] }),
  })
  .openapi('SequenceStepRequest');

const SnoozeBody = z.strictObject({ date: DateString.openapi({ description: "A day after today in the sequence's time zone" }) }).openapi('SnoozeStepRequest');
const EditBody = z
  .strictObject({ subject: Text(1_000).nullable(), body: Text(100_000).nullable() })
  .openapi('EditStepRequest', { description: 'Both null: back to the templates' });

const OnEnrolled = z.enum(ON_ENROLLED).openapi({
  description: "Extension: for a customer already actively enrolled, keep that enrollment as it is, restart (it completes as re-enrolled and a new one starts on start_date), or ask (the request is refused with 409 already_enrolled and nothing changes, so a person can choose). Absent: the specification's behaviour, keep for one customer, restart in bulk",
});
const EnrollBody = z
  .strictObject({ sequence_id: UuidValue, customer_id: UuidValue, start_date: DateString.optional().openapi({ description: "Default: today in the sequence's time zone" }), on_enrolled: OnEnrolled.optional() })
  .openapi('EnrollCustomerRequest');
const EnrollResult = z.object({ created: z.boolean(), enrollment: Enrollment }).openapi('EnrollCustomerResult');

const BulkBody = z
  .strictObject({ customer_ids: z.array(UuidValue).min(1).max(BULK_ENROLL_MAX), start_date: DateString.optional(), on_enrolled: OnEnrolled.optional() })
  .openapi('BulkEnrollRequest');
const BulkResult = z
  .object({
    enrolled_count: z.number().int(),
    updated_count: z.number().int().openapi({ description: 'Customers already active in the sequence, re-enrolled with the new start date (on_enrolled restart, the default)' }),
    kept_count: z.number().int().openapi({ description: 'Extension: customers already active in the sequence, left as they were (on_enrolled keep)' }),
    skipped_count: z.number().int().openapi({ description: 'Customers not found in the company' }),
    skipped_customer_ids: z.array(Uuid),
  })
  .openapi('BulkEnrollResult');

const StopBody = z.strictObject({ stop_reason: Text(500).optional() }).openapi('StopEnrollmentRequest');
const StopResult = z.object({ enrollment: Enrollment, cancelled_scheduled_steps: z.number().int() }).openapi('StopEnrollmentResult');

const EnrollmentListQuery = z.object({
  sequence_id: UuidValue.optional(),
  customer_id: UuidValue.optional(),
  status: z.enum(['active', 'completed']).optional(),
  page: Page,
  page_size: PageSize,
});
const EnrollmentList = z
  .object({ count: z.number().int(), page: z.number().int(), page_size: z.number().int(), data: z.array(Enrollment) })
  .openapi('SequenceEnrollmentList');
const EnrollmentDetail = Enrollment.extend({ scheduled_steps: z.array(QueueRow) }).openapi('SequenceEnrollmentDetail');

const QueueQuery = z.object({
  category: z.enum(QUEUE_CATEGORIES).optional().openapi({
    default: 'ready',
    description: 'ready (never a paused enrollment\'s step); history (sent, completed, cancelled, failed); upcoming (scheduled, not yet due: extension); paused (pending steps of paused enrollments: extension)',
  }),
  step_type: z.string().optional().openapi({ description: `Comma-separated: ${STEP_TYPES.join(', ')}` }),
  sequence_id: UuidValue.optional(),
  enrollment_id: UuidValue.optional(),
  customer_id: UuidValue.optional(),
  ar_owner: z.string().optional().openapi({ description: `Comma-separated team member UUIDs; ${UNASSIGNED} for customers with no AR owner` }),
  search: Search.openapi({ description: 'Case-insensitive partial match on sequence name, step label, customer name, email subject' }),
  page: Page,
  page_size: PageSize,
});

const SendBody = z
  .strictObject({
    sender_connection_id: UuidValue.optional().openapi({ description: "Default: the sequence's sender" }),
    attach: Attach.optional().openapi({ description: "Extension: the documents for this email, instead of the step's attach ([] for none)" }),
    override_reason: Text(500)
      .refine((s) => s.trim().length > 0, 'Say why it goes anyway')
      .optional()
      .openapi({ description: "Extension: send anyway, through the holds of the contact rule the preview showed (hold_reason), for this reason; kept in the change log. An enrollment's pause is lifted with Resume instead" }),
  })
  .openapi('SendScheduledStepRequest');
const CompleteBody = z
  .strictObject({
    note: Text(10_000).nullable().optional(),
    outcome: CallOutcome.nullable().optional().openapi({ description: 'Call steps only' }),
    promise_date: DateString.nullable().optional().openapi({ description: 'Call steps with outcome promised_to_pay: required then, allowed only then' }),
    promise_amount: MoneyValue.nullable().optional().openapi({ description: 'Call steps with outcome promised_to_pay only' }),
  })
  .openapi('CompleteScheduledStepRequest');

const EmailPreview = z
  .object({
    subject: z.string(),
    body: z.string().openapi({ description: 'Plain text (from the HTML body when the step has no plain one)' }),
    to: z.string().nullable().openapi({ description: "The customer's billing contact email, else the first contact's with one; null: the step cannot be sent" }),
    contact_name: z.string().nullable(),
    sender: z
      .object({ id: Uuid, name: z.string(), from_email: z.string(), from_name: z.string().nullable() })
      .nullable()
      .openapi({ description: "The sequence's sender; null when it has none (sending then needs one)" }),
    customer: Uuid,
    customer_name: z.string(),
    invoice: Uuid.nullable().openapi({ description: "The invoice the placeholders describe: the step's own, else the customer's oldest open one" }),
    invoice_number: z.string().nullable(),
    unknown_placeholders: z.array(z.string()).openapi({ description: 'Placeholders the renderer does not know: left as written' }),
    empty_placeholders: z.array(z.string()).openapi({ description: 'Known placeholders outside any {{#name}} section with no value here: the email is not sent' }),
    refused_reason: z.string().nullable().openapi({ description: 'Why this email would not be sent, in words; null when it can go' }),
    hold_reason: z.string().nullable().openapi({ description: "Extension: the contact rule's answer as a send would get it now: 'Held: ...' (nothing would go: a dispute, a promise, a reply, a pause, today's email, an invoice not past due for past-due words) or 'Left out: ...' (those invoices are not in the email); null when nothing is held" }),
    attachments: z.array(AttachmentPreview).openapi({ description: "Extension: the documents the email attaches (the step's attach), made now to show their names and sizes; sending makes them again with the figures of that moment" }),
  })
  .openapi('EmailPreview');

const PreviewBody = z
  .strictObject({
    customer_id: UuidValue,
    invoice_id: NullableUuidValue.optional(),
    subject_template: Text(1_000).optional(),
    body_plain_template: Text(100_000).optional(),
    body_html_template: Text(200_000).optional(),
    attach: Attach.optional().openapi({ description: 'Extension: the documents to preview with the email (unsaved, like the templates)' }),
  })
  .openapi('TemplatePreviewRequest');

/** The preview's `attach` query: absent keeps the step's choice, empty means none. */
function attachQuery(value: string | undefined): Array<(typeof ATTACHMENT_KINDS)[number]> | undefined {
  if (value === undefined) return undefined;
  return value.trim() === '' ? [] : parseEnumList(value, ATTACHMENT_KINDS, 'attach');
}

const seqPath = '/api/companies/{company_id}/sequences';
const queuePath = `${seqPath}/queue`;
const enrollPath = '/api/companies/{company_id}/sequence-enrollments';

const queueRoute = createRoute({
  method: 'get',
  path: queuePath,
  tags: [TAG],
  summary: 'The outreach queue; due steps are promoted to ready first',
  security: SECURITY,
  request: { params: CompanyParams, query: QueueQuery },
  responses: { 200: json(QueueList, 'One page of scheduled steps'), ...problems(400, 401, 403, 404) },
});

const queueRowRoute = createRoute({
  method: 'get',
  path: `${queuePath}/{scheduled_step_id}`,
  tags: EXT,
  summary: 'One scheduled step',
  security: SECURITY,
  request: { params: QueueParams },
  responses: { 200: json(QueueRow, 'The scheduled step'), ...problems(401, 403, 404) },
});

const sendRoute = createRoute({
  method: 'post',
  path: `${queuePath}/{scheduled_step_id}/send`,
  tags: [TAG],
  summary: `Send a ready email (${EMAIL_STEP_TYPE}) step over SMTP; a step past ready is returned as it is`,
  description:
    "The sender is sender_connection_id, else the sequence's sender; it must be active and be the caller's own connection, the sequence's sender, or shared. An SMTP refusal marks the step failed (status failed, error) and is returned with 200. At most one chase email per customer per day: 409 emailed_today when the customer already got an email today (sent, or a send on the wire); the step waits for tomorrow.",
  security: SECURITY,
  request: { params: QueueParams, body: jsonBody(SendBody, false) },
  responses: { 200: json(QueueRow, 'The step after the send (sent or failed), or as it was if already past ready'), ...problems(400, 401, 403, 404, 409) },
});

const sendNowRoute = createRoute({
  method: 'post',
  path: `${queuePath}/{scheduled_step_id}/send-now`,
  tags: EXT,
  summary: 'Run an upcoming or ready step now: an email goes out at once (through the contact rule and the daily limit, as a send); a call or task becomes ready in Today',
  description: 'Held by the contact rule: 409 contact_held with the reason in words, and the step stays as it was (its error says why). A paused enrollment: 409 enrollment_paused.',
  security: SECURITY,
  request: { params: QueueParams, body: jsonBody(SendBody, false) },
  responses: { 200: json(QueueRow, 'The step after the send (sent or failed), or ready (a call or task)'), ...problems(400, 401, 403, 404, 409) },
});

const SentMessage = z
  .object({
    kind: z.enum(['email', 'call', 'note']).openapi({ description: 'email: the step sent it; call or note: what was recorded when a call or task step was completed' }),
    to: z.string().nullable().openapi({ description: 'The address the email went to (steps sent before this was kept: null)' }),
    from: z.string().nullable().openapi({ description: 'The sender, "Name <address>"' }),
    subject: z.string().nullable(),
    body: z.string().nullable().openapi({ description: 'The text as it went out (or the note recorded)' }),
    attachments: z.array(z.object({ name: z.string(), size: z.number().int() })),
    message_id: z.string().nullable(),
    occurred_at: Timestamp,
    outcome: CallOutcome.nullable().openapi({ description: "A call's outcome" }),
    author_name: z.string().nullable(),
  })
  .openapi('SentStepMessage');

const sentRoute = createRoute({
  method: 'get',
  path: `${queuePath}/{scheduled_step_id}/sent`,
  tags: EXT,
  summary: 'What a step that ran put out: the email as sent (to, from, subject, body, attachments), or the call or note it recorded',
  security: SECURITY,
  request: { params: QueueParams },
  responses: { 200: json(SentMessage, 'The message as it went out'), ...problems(401, 403, 404, 409) },
});

const completeRoute = createRoute({
  method: 'post',
  path: `${queuePath}/{scheduled_step_id}/complete`,
  tags: EXT,
  summary: 'Mark a ready step done (call made, task done, email handled elsewhere); past ready: returned as it is',
  security: SECURITY,
  request: { params: QueueParams, body: jsonBody(CompleteBody, false) },
  responses: { 200: json(QueueRow, 'The step after completion'), ...problems(400, 401, 403, 404, 409) },
});

const stepChanged = { 200: json(QueueRow, 'The step after the change'), ...problems(400, 401, 403, 404, 409) };
const skipRoute = createRoute({
  method: 'post',
  path: `${queuePath}/{scheduled_step_id}/skip`,
  tags: EXT,
  summary: 'Skip a pending step: cancelled, shown in history as skipped; the enrollment goes on',
  security: SECURITY,
  request: { params: QueueParams },
  responses: stepChanged,
});
const snoozeRoute = createRoute({
  method: 'post',
  path: `${queuePath}/{scheduled_step_id}/snooze`,
  tags: EXT,
  summary: 'Move a pending step to a later day, at its usual time',
  security: SECURITY,
  request: { params: QueueParams, body: jsonBody(SnoozeBody) },
  responses: stepChanged,
});
const editRoute = createRoute({
  method: 'post',
  path: `${queuePath}/{scheduled_step_id}/edit`,
  tags: EXT,
  summary: "Keep the collector's subject and body with a pending email step; both null go back to the templates",
  security: SECURITY,
  request: { params: QueueParams, body: jsonBody(EditBody) },
  responses: stepChanged,
});

function enrollmentControlRoute(action: string, summary: string) {
  return createRoute({
    method: 'post',
    path: `${enrollPath}/{enrollment_id}/${action}`,
    tags: EXT,
    summary,
    security: SECURITY,
    request: { params: EnrollmentParams },
    responses: { 200: json(Enrollment, 'The enrollment after the change'), ...problems(400, 401, 403, 404) },
  });
}

const pauseRoute = enrollmentControlRoute('pause', 'Pause an active enrollment until a collector resumes it');
const resumeRoute = enrollmentControlRoute('resume', "Resume an enrollment: the collector's pause ends and replies so far count as handled; a standing promise or dispute pauses it again");

const queuePreviewRoute = createRoute({
  method: 'get',
  path: `${queuePath}/{scheduled_step_id}/preview`,
  tags: EXT,
  summary: "The email a scheduled step would send now: rendered subject and body, recipient and the sequence's sender",
  security: SECURITY,
  request: {
    params: QueueParams,
    query: z.object({
      attach: z
        .string()
        .optional()
        .openapi({ description: `Extension: comma-separated ${ATTACHMENT_KINDS.join(', ')}, the documents to preview instead of the step's (empty for none), as a send with that attach would carry` }),
    }),
  },
  responses: { 200: json(EmailPreview, 'The rendered email'), ...problems(400, 401, 403, 404) },
});

const templatePreviewRoute = createRoute({
  method: 'post',
  path: `${seqPath}/{sequence_id}/preview`,
  tags: EXT,
  summary: "Render templates (saved or not) for a customer and invoice of the company, with the sequence's zone and sender; writes nothing",
  security: SECURITY,
  request: { params: SequenceParams, body: jsonBody(PreviewBody) },
  responses: { 200: json(EmailPreview, 'The rendered email'), ...problems(400, 401, 403, 404) },
});

const listRoute = createRoute({
  method: 'get',
  path: seqPath,
  tags: [TAG],
  summary: 'List sequences',
  security: SECURITY,
  request: { params: CompanyParams, query: ListQuery },
  responses: { 200: json(SequenceList, 'One page of sequences, by name'), ...problems(400, 401, 403, 404) },
});

const createSequenceRoute = createRoute({
  method: 'post',
  path: seqPath,
  tags: [TAG],
  summary: 'Create a sequence (draft), optionally copying the steps of another',
  security: SECURITY,
  request: { params: CompanyParams, body: jsonBody(CreateBody) },
  responses: { 201: json(Sequence, 'The created sequence'), ...problems(400, 401, 403, 404, 409) },
});

const getRoute = createRoute({
  method: 'get',
  path: `${seqPath}/{sequence_id}`,
  tags: [TAG],
  summary: 'One sequence',
  security: SECURITY,
  request: { params: SequenceParams },
  responses: { 200: json(Sequence, 'The sequence'), ...problems(401, 403, 404) },
});

const patchRoute = createRoute({
  method: 'patch',
  path: `${seqPath}/{sequence_id}`,
  tags: [TAG],
  summary: 'Update name, time zone, sender or threading',
  security: SECURITY,
  request: { params: SequenceParams, body: jsonBody(PatchBody) },
  responses: { 200: json(Sequence, 'The updated sequence'), ...problems(400, 401, 403, 404, 409) },
});

const lifecycleRoute = createRoute({
  method: 'post',
  path: `${seqPath}/{sequence_id}`,
  tags: [TAG],
  summary: 'Activate or archive',
  security: SECURITY,
  request: { params: SequenceParams, body: jsonBody(LifecycleBody) },
  responses: { 200: json(Sequence, 'The sequence in its new state'), ...problems(400, 401, 403, 404) },
});

const overviewRoute = createRoute({
  method: 'get',
  path: `${seqPath}/{sequence_id}/overview`,
  tags: [TAG],
  summary: 'The sequence with its steps, active enrollment count and the senders the caller may use',
  security: SECURITY,
  request: { params: SequenceParams },
  responses: { 200: json(Overview, 'The overview'), ...problems(401, 403, 404) },
});

const listStepsRoute = createRoute({
  method: 'get',
  path: `${seqPath}/{sequence_id}/steps`,
  tags: EXT,
  summary: 'The steps of a sequence in firing order',
  security: SECURITY,
  request: { params: SequenceParams },
  responses: { 200: json(z.object({ count: z.number().int(), data: z.array(Step) }).openapi('SequenceStepList'), 'The steps'), ...problems(401, 403, 404) },
});

const createStepRoute = createRoute({
  method: 'post',
  path: `${seqPath}/{sequence_id}/steps`,
  tags: [TAG],
  summary: 'Add a step (every field optional, with defaults)',
  security: SECURITY,
  request: { params: SequenceParams, body: jsonBody(StepBody, false) },
  responses: { 201: json(Step, 'The created step'), ...problems(400, 401, 403, 404) },
});

const getStepRoute = createRoute({
  method: 'get',
  path: `${seqPath}/{sequence_id}/steps/{step_id}`,
  tags: [TAG],
  summary: 'One step',
  security: SECURITY,
  request: { params: StepParams },
  responses: { 200: json(Step, 'The step'), ...problems(401, 403, 404) },
});

const putStepRoute = createRoute({
  method: 'put',
  path: `${seqPath}/{sequence_id}/steps/{step_id}`,
  tags: [TAG],
  summary: 'Update any of the step fields; 409 once the step has execution history (except is_active)',
  security: SECURITY,
  request: { params: StepParams, body: jsonBody(StepBody) },
  responses: { 200: json(Step, 'The updated step'), ...problems(400, 401, 403, 404, 409) },
});

const deleteStepRoute = createRoute({
  method: 'delete',
  path: `${seqPath}/{sequence_id}/steps/{step_id}`,
  tags: [TAG],
  summary: 'Delete a step permanently; 409 if it has execution history',
  security: SECURITY,
  request: { params: StepParams },
  responses: { 204: { description: 'The step and its pending queue rows are gone' }, ...problems(401, 403, 404, 409) },
});

const enrollRoute = createRoute({
  method: 'post',
  path: enrollPath,
  tags: [TAG],
  summary: 'Enroll one customer; already active in the sequence: 200 with the existing enrollment (on_enrolled restart: 201, a new one; ask: 409 already_enrolled)',
  security: SECURITY,
  request: { params: CompanyParams, body: jsonBody(EnrollBody) },
  responses: {
    201: json(EnrollResult, 'A new enrollment'),
    200: json(EnrollResult, 'The customer was already actively enrolled (kept as it was)'),
    ...problems(400, 401, 403, 404, 409),
  },
});

const listEnrollmentsRoute = createRoute({
  method: 'get',
  path: enrollPath,
  tags: EXT,
  summary: 'List enrollments, newest first',
  security: SECURITY,
  request: { params: CompanyParams, query: EnrollmentListQuery },
  responses: { 200: json(EnrollmentList, 'One page of enrollments'), ...problems(400, 401, 403, 404) },
});

const getEnrollmentRoute = createRoute({
  method: 'get',
  path: `${enrollPath}/{enrollment_id}`,
  tags: EXT,
  summary: 'One enrollment with its scheduled steps',
  security: SECURITY,
  request: { params: EnrollmentParams },
  responses: { 200: json(EnrollmentDetail, 'The enrollment'), ...problems(401, 403, 404) },
});

const stopRoute = createRoute({
  method: 'post',
  path: `${enrollPath}/{enrollment_id}/stop`,
  tags: [TAG],
  summary: 'Stop: complete the enrollment and cancel its steps that are not ready yet',
  security: SECURITY,
  request: { params: EnrollmentParams, body: jsonBody(StopBody, false) },
  responses: { 200: json(StopResult, 'The completed enrollment and how many steps were cancelled'), ...problems(400, 401, 403, 404) },
});

const bulkRoute = createRoute({
  method: 'post',
  path: `${seqPath}/{sequence_id}/enrollments/bulk`,
  tags: [TAG],
  summary: 'Enroll many customers into an active sequence; those already active are re-enrolled (on_enrolled keep: left as they were; ask: 409 already_enrolled)',
  security: SECURITY,
  request: { params: SequenceParams, body: jsonBody(BulkBody) },
  responses: { 200: json(BulkResult, 'Counts'), ...problems(400, 401, 403, 404, 409) },
});

export function sequenceRoutes() {
  const router = createRouter();

  // The queue first: /sequences/queue must not be taken for /sequences/{sequence_id}.
  router.openapi(queueRoute, async (c) => {
    const q = c.req.valid('query');
    const { page, pageSize } = pageOf(q.page, q.page_size);
    const result = await listQueue(c.var.engine, scopeOf(c), {
      category: q.category ?? 'ready',
      stepTypes: q.step_type !== undefined ? parseEnumList(q.step_type, STEP_TYPES, 'step_type') : null,
      sequenceId: q.sequence_id ?? null,
      enrollmentId: q.enrollment_id ?? null,
      customerId: q.customer_id ?? null,
      arOwner: q.ar_owner !== undefined ? parseOwnerFilter(q.ar_owner) : null,
      search: q.search?.trim() || null,
      page,
      pageSize,
    });
    return c.json({ ...result, quiet_days: LAST_TOUCH_QUIET_DAYS }, 200);
  });
  router.openapi(queueRowRoute, async (c) => c.json(await getQueueRow(c.var.engine, scopeOf(c).companyId, c.req.valid('param').scheduled_step_id), 200));
  router.openapi(queuePreviewRoute, async (c) =>
    c.json(await previewScheduledStep(c.var.engine, scopeOf(c).companyId, c.req.valid('param').scheduled_step_id, actorOf(c).name, attachQuery(c.req.valid('query').attach)), 200),
  );
  router.openapi(sendRoute, async (c) => c.json(await sendQueueStep(c.var.engine, scopeOf(c), c.req.valid('param').scheduled_step_id, c.req.valid('json')), 200));
  router.openapi(sendNowRoute, async (c) => c.json(await sendStepNow(c.var.engine, scopeOf(c), c.req.valid('param').scheduled_step_id, c.req.valid('json')), 200));
  router.openapi(sentRoute, async (c) => c.json(await sentMessage(c.var.engine.db, scopeOf(c).companyId, c.req.valid('param').scheduled_step_id), 200));
  router.openapi(completeRoute, async (c) =>
    c.json(await completeQueueStep(c.var.engine, scopeOf(c), c.req.valid('param').scheduled_step_id, c.req.valid('json')), 200),
  );
  router.openapi(skipRoute, async (c) => c.json(await skipStep(c.var.engine, scopeOf(c), c.req.valid('param').scheduled_step_id), 200));
  router.openapi(snoozeRoute, async (c) => c.json(await snoozeStep(c.var.engine, scopeOf(c), c.req.valid('param').scheduled_step_id, c.req.valid('json').date), 200));
  router.openapi(editRoute, async (c) => c.json(await editStep(c.var.engine, scopeOf(c), c.req.valid('param').scheduled_step_id, c.req.valid('json')), 200));

  router.openapi(listRoute, async (c) => {
    const q = c.req.valid('query');
    const { page, pageSize } = pageOf(q.page, q.page_size);
    const statuses = q.status !== undefined ? parseEnumList(q.status, SEQUENCE_STATUSES, 'status') : null;
    return c.json(await listSequences(c.var.engine.db, scopeOf(c).companyId, { statuses, search: q.search?.trim() || null, page, pageSize }), 200);
  });
  router.openapi(createSequenceRoute, async (c) => c.json(await createSequence(c.var.engine, scopeOf(c), c.req.valid('json')), 201));
  router.openapi(getRoute, async (c) => c.json(await getSequence(c.var.engine.db, scopeOf(c).companyId, c.req.valid('param').sequence_id), 200));
  router.openapi(patchRoute, async (c) => c.json(await updateSequence(c.var.engine, scopeOf(c), c.req.valid('param').sequence_id, c.req.valid('json')), 200));
  router.openapi(lifecycleRoute, async (c) =>
    c.json(await changeSequenceStatus(c.var.engine, scopeOf(c), c.req.valid('param').sequence_id, c.req.valid('json').action), 200),
  );
  router.openapi(overviewRoute, async (c) =>
    c.json({ ...(await sequenceOverview(c.var.engine.db, scopeOf(c).companyId, c.req.valid('param').sequence_id, c.var.user.id)), placeholders: [...PLACEHOLDERS] }, 200),
  );

  router.openapi(templatePreviewRoute, async (c) =>
    c.json(await previewSequenceTemplates(c.var.engine, scopeOf(c).companyId, c.req.valid('param').sequence_id, c.req.valid('json'), actorOf(c).name), 200),
  );

  router.openapi(listStepsRoute, async (c) => {
    const data = await listSteps(c.var.engine.db, scopeOf(c).companyId, c.req.valid('param').sequence_id);
    return c.json({ count: data.length, data }, 200);
  });
  router.openapi(createStepRoute, async (c) => c.json(await createStep(c.var.engine, scopeOf(c), c.req.valid('param').sequence_id, c.req.valid('json')), 201));
  router.openapi(getStepRoute, async (c) => {
    const p = c.req.valid('param');
    return c.json(await getStep(c.var.engine.db, scopeOf(c).companyId, p.sequence_id, p.step_id), 200);
  });
  router.openapi(putStepRoute, async (c) => {
    const p = c.req.valid('param');
    return c.json(await updateStep(c.var.engine, scopeOf(c), p.sequence_id, p.step_id, c.req.valid('json')), 200);
  });
  router.openapi(deleteStepRoute, async (c) => {
    const p = c.req.valid('param');
    await deleteStep(c.var.engine, scopeOf(c), p.sequence_id, p.step_id);
    return c.body(null, 204);
  });

  router.openapi(bulkRoute, async (c) => c.json(await bulkEnroll(c.var.engine, scopeOf(c), c.req.valid('param').sequence_id, c.req.valid('json')), 200));
  router.openapi(enrollRoute, async (c) => {
    const result = await enrollCustomer(c.var.engine, scopeOf(c), c.req.valid('json'));
    return result.created ? c.json(result, 201) : c.json(result, 200);
  });
  router.openapi(listEnrollmentsRoute, async (c) => {
    const q = c.req.valid('query');
    const { page, pageSize } = pageOf(q.page, q.page_size);
    return c.json(
      await listEnrollments(c.var.engine.db, scopeOf(c).companyId, {
        sequenceId: q.sequence_id ?? null,
        customerId: q.customer_id ?? null,
        statuses: q.status ? [q.status] : null,
        page,
        pageSize,
      }),
      200,
    );
  });
  router.openapi(getEnrollmentRoute, async (c) => {
    const { companyId } = scopeOf(c);
    const enrollment = await getEnrollment(c.var.engine.db, companyId, c.req.valid('param').enrollment_id);
    return c.json({ ...enrollment, scheduled_steps: await enrollmentSteps(c.var.engine, companyId, enrollment.id) }, 200);
  });
  router.openapi(pauseRoute, async (c) => c.json(await pauseEnrollment(c.var.engine, scopeOf(c), c.req.valid('param').enrollment_id), 200));
  router.openapi(resumeRoute, async (c) => c.json(await resumeEnrollment(c.var.engine, scopeOf(c), c.req.valid('param').enrollment_id), 200));
  router.openapi(stopRoute, async (c) =>
    c.json(await stopEnrollment(c.var.engine, scopeOf(c), c.req.valid('param').enrollment_id, c.req.valid('json').stop_reason ?? null), 200),
  );

  return router;
}
