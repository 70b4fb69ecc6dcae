import { createRoute, z } from '@hono/zod-openapi';
import { logCommunication } from '../../communications/log';
import { CALL_OUTCOMES, LOGGED_KINDS } from '../../communications/rules';
import { draftReply, sendReply } from '../../communications/reply';
import { listCommunications, listEmailThreads, TIMELINE_DEFAULT_LIMIT, TIMELINE_MAX_LIMIT } from '../../communications/timeline';
import { ATTACHMENT_KINDS } from '../../documents/attachments';
import { CONTACT_HOLD_KINDS } from '../../contact/rule';
import { ValidationError } from '../../errors';
import { toMinor } from '../../money';
import { READING_KINDS } from '../../replies/reading';
import { correctReading, withReading } from '../../replies/readings';
import { parseEnumList } from '../../sequences/rules';
import { scopeOf } from '../context';
import { CompanyParams, createRouter, DateString, idParams, json, jsonBody, MoneyValue, problems, SECURITY, Text, Timestamp, Uuid, UuidValue } from '../openapi';
import { offsetPaging } from './payments';

const TAGS = ['Extensions'];
const KINDS = ['email', 'call', 'note'] as const;
const DIRECTIONS = ['outbound', 'inbound', 'internal'] as const;

export const CallOutcome = z.enum(CALL_OUTCOMES).openapi('CallOutcome');

const ReadingKind = z.enum(READING_KINDS).openapi('ReplyReadingKind', {
  description: 'promise (explicit commitment words with a date within 120 days, or an amount), dispute (a complaint about the bill or a claim of having paid: a proposed dispute), needs_answer (a question or request), none',
});

export const ReplyReading = z
  .object({
    kind: ReadingKind,
    promise_date: DateString.nullable(),
    promise_amount: z.number().nullable().openapi({ description: 'Major units, in currency' }),
    sentence: z.string().nullable().openapi({ description: 'The sentence of the reply the reading came from' }),
    automatic: z.boolean().openapi({ description: 'false once a person corrected it' }),
    corrected_by: z.string().nullable(),
    corrected_at: Timestamp.nullable(),
  })
  .openapi('ReplyReading', { description: 'How ardesk read an email received (a promise, a proposed dispute, a question), or how a person corrected it' });

export const Communication = z
  .object({
    id: Uuid,
    customer: Uuid,
    customer_name: z.string(),
    invoice: Uuid.nullable(),
    invoice_number: z.string().nullable(),
    kind: z.enum(KINDS),
    direction: z.enum(DIRECTIONS).openapi({ description: 'outbound (sent, or a call we made), inbound (a reply received, a call from the customer), internal (a note)' }),
    outcome: CallOutcome.nullable().openapi({ description: "A call's outcome" }),
    subject: z.string().nullable(),
    body: z.string().nullable().openapi({ description: "The note's or call's text; an email's plain text (HTML reduced to text)" }),
    promise_date: DateString.nullable(),
    promise_amount: z.number().nullable().openapi({ description: 'Major units, in currency' }),
    currency: z.string().openapi({ description: "The invoice's currency, else the customer's" }),
    occurred_at: Timestamp,
    author_user_id: Uuid.nullable(),
    author_name: z.string().nullable().openapi({ description: 'Who logged or sent it; for an email received, the sender' }),
    from_email: z.string().nullable().openapi({ description: "An email received: the sender's address" }),
    attachments: z.array(z.object({ name: z.string(), size: z.number().int() })).openapi({ description: 'Attachment names and sizes in bytes (their content is not kept): of an email received, or the documents ardesk attached to one it sent (a reminder\'s invoice PDF, a statement)' }),
    email_connection_id: Uuid.nullable(),
    thread_id: z.string().nullable().openapi({ description: "An email: its thread (the Message-ID of the thread's first message); null for calls and notes" }),
    created_at: Timestamp,
    reading: ReplyReading.nullable(),
  })
  .openapi('Communication');

const ReadingCorrection = z
  .strictObject({
    kind: ReadingKind,
    promise_date: DateString.nullable().optional().openapi({ description: 'A promise only: the day promised, not before the reply' }),
    promise_amount: MoneyValue.nullable().optional().openapi({ description: 'A promise only: the amount promised' }),
  })
  .openapi('ReplyReadingCorrection');

const CommunicationList = z
  .object({ count: z.number().int(), limit: z.number().int(), offset: z.number().int(), data: z.array(Communication) })
  .openapi('CommunicationList');

const NewCommunication = z
  .strictObject({
    customer_id: UuidValue,
    invoice_id: UuidValue.nullable().optional().openapi({ description: "One of the customer's invoices: the communication becomes its last touch" }),
    kind: z.enum(LOGGED_KINDS),
    direction: z.enum(['outbound', 'inbound']).optional().openapi({ description: 'Calls only: outbound (default) or inbound (the customer called)' }),
    outcome: CallOutcome.nullable().optional().openapi({ description: 'Calls only' }),
    subject: Text(300).nullable().optional(),
    body: Text(20_000).nullable().optional().openapi({ description: "The note's text (required for a note); the call's notes" }),
    promise_date: DateString.nullable().optional().openapi({ description: 'Required with outcome promised_to_pay, only then allowed; not before the day of the call' }),
    promise_amount: MoneyValue.nullable().optional().openapi({ description: 'Only with outcome promised_to_pay' }),
    occurred_at: z.iso.datetime({ offset: true }).nullable().optional().openapi({ description: 'Default now; not in the future' }),
  })
  .openapi('NewCommunication');

const ListQuery = z.object({
  customer_id: UuidValue.optional(),
  invoice_id: UuidValue.optional(),
  kind: z.string().optional().openapi({ description: 'Comma-separated: email, call, note' }),
  direction: z.enum(DIRECTIONS).optional(),
  ...offsetPaging(TIMELINE_DEFAULT_LIMIT, TIMELINE_MAX_LIMIT),
});

const path = '/api/companies/{company_id}/communications';

const EmailThread = z
  .object({
    thread_id: z.string(),
    subject: z.string().nullable().openapi({ description: "The first message's subject" }),
    last_at: Timestamp,
    messages: z.array(Communication).openapi({ description: 'Oldest first: our emails and the customer\'s replies' }),
  })
  .openapi('EmailThread');

const EmailThreadList = z.object({ data: z.array(EmailThread) }).openapi('EmailThreadList');

const ThreadQuery = z.object({ customer_id: UuidValue.optional(), invoice_id: UuidValue.optional() });

const threadsRoute = createRoute({
  method: 'get',
  path: '/api/companies/{company_id}/email-threads',
  tags: TAGS,
  summary: "A customer's email threads, or those touching an invoice, the most recently active first",
  description: 'One of customer_id or invoice_id. Threads follow In-Reply-To and References; the newest 500 emails are read.',
  security: SECURITY,
  request: { params: CompanyParams, query: ThreadQuery },
  responses: { 200: json(EmailThreadList, 'The threads'), ...problems(400, 401, 403, 404) },
});

const ContactAnswer = z
  .object({
    allowed: z.boolean(),
    reason: z.string().nullable().openapi({ description: 'Every hold in words; null when nothing holds' }),
    held: z.array(z.object({ kind: z.enum(CONTACT_HOLD_KINDS), invoice_id: Uuid.nullable(), reason: z.string() })),
  })
  .openapi('ContactAnswer');

const ReplyDraft = z
  .object({
    communication_id: Uuid,
    customer_id: Uuid,
    invoice_id: Uuid.nullable(),
    invoice_number: z.string().nullable(),
    from: z.string(),
    to: z.string(),
    subject: z.string(),
    in_reply_to: z.string(),
    references: z.array(z.string()),
    attach_options: z.array(z.enum(ATTACHMENT_KINDS)).openapi({ description: 'invoice_pdf only for an email about an invoice' }),
    contact: ContactAnswer.openapi({ description: "The contact rule's answer now, about the customer as a whole (the reply answered does not hold it)" }),
  })
  .openapi('ReplyDraft');

const NewReply = z
  .strictObject({
    body: Text(20_000).refine((s) => s.trim().length > 0, 'Write the answer'),
    subject: Text(300).optional().openapi({ description: 'Default: "Re: " and the subject answered' }),
    attach: z.array(z.enum(ATTACHMENT_KINDS)).max(ATTACHMENT_KINDS.length).optional().openapi({ description: 'Made when it is sent: invoice_pdf (the email\'s invoice), statement' }),
    override_reason: Text(500)
      .refine((s) => s.trim().length > 0, 'Say why it goes anyway')
      .optional()
      .openapi({ description: 'Send through the holds the draft showed, for this reason (kept in the change log)' }),
  })
  .openapi('NewReply');

const replyPath = `${path}/{communication_id}/reply`;

const draftReplyRoute = createRoute({
  method: 'get',
  path: replyPath,
  tags: TAGS,
  summary: "The answer to a customer's email, before it is written: to, from, subject, thread headers, documents, the contact rule",
  security: SECURITY,
  request: { params: idParams('communication_id') },
  responses: { 200: json(ReplyDraft, 'The draft'), ...problems(401, 403, 404, 409) },
});

const sendReplyRoute = createRoute({
  method: 'post',
  path: replyPath,
  tags: TAGS,
  summary: "Answer a customer's email from the timeline",
  description:
    'Sent over SMTP (the connection the email came in on, else the default) with In-Reply-To and References, recorded in the thread; it answers the customer\'s reply, so the chase it held resumes. 409 contact_held with the rule\'s words unless override_reason; 409 not_a_reply for anything but an email received; 502 send_failed when the mail server refused it (nothing recorded).',
  security: SECURITY,
  request: { params: idParams('communication_id'), body: jsonBody(NewReply) },
  responses: { 201: json(Communication, 'The answer as recorded'), ...problems(400, 401, 403, 404, 409, 502) },
});

const listRoute = createRoute({
  method: 'get',
  path,
  tags: TAGS,
  summary: 'Communications (emails sent and received, calls, notes), newest first',
  description: `Filter by customer_id, invoice_id, kind, direction. Paging: limit (default ${TIMELINE_DEFAULT_LIMIT}, at most ${TIMELINE_MAX_LIMIT}) and offset; count is the total matching.`,
  security: SECURITY,
  request: { params: CompanyParams, query: ListQuery },
  responses: { 200: json(CommunicationList, 'One page of communications'), ...problems(400, 401, 403, 404) },
});

const createCommunicationRoute = createRoute({
  method: 'post',
  path,
  tags: TAGS,
  summary: 'Log a call or a note',
  security: SECURITY,
  request: { params: CompanyParams, body: jsonBody(NewCommunication) },
  responses: { 201: json(Communication, 'The logged communication'), ...problems(400, 401, 403, 404) },
});

const correctReadingRoute = createRoute({
  method: 'post',
  path: `${path}/{communication_id}/reading`,
  tags: TAGS,
  summary: "Correct how a customer's reply was read",
  description:
    'Not a promise (kind none or needs_answer), a dispute (opens the dispute on the reply\'s invoice unless one is open), or a promise with its date or amount. The chase holds follow at once; the reply keeps who corrected it and when.',
  security: SECURITY,
  request: { params: idParams('communication_id'), body: jsonBody(ReadingCorrection) },
  responses: { 200: json(Communication, 'The reply with its corrected reading'), ...problems(400, 401, 403, 404) },
});

export function communicationRoutes() {
  return createRouter()
    .openapi(listRoute, async (c) => {
      const q = c.req.valid('query');
      const page = await listCommunications(c.var.engine.db, scopeOf(c).companyId, {
        customerId: q.customer_id ?? null,
        invoiceId: q.invoice_id ?? null,
        kinds: q.kind !== undefined ? parseEnumList(q.kind, KINDS, 'kind') : null,
        direction: q.direction ?? null,
        limit: q.limit ?? TIMELINE_DEFAULT_LIMIT,
        offset: q.offset ?? 0,
      });
      return c.json({ ...page, data: page.data.map(withReading) }, 200);
    })
    .openapi(correctReadingRoute, async (c) => {
      const { communication_id } = c.req.valid('param');
      const body = c.req.valid('json');
      const amount = body.promise_amount ?? null;
      return c.json(await correctReading(c.var.engine, scopeOf(c), communication_id, { kind: body.kind, promise_date: body.promise_date ?? null, promise_amount: amount === null ? null : toMinor(amount) }), 200);
    })
    .openapi(threadsRoute, async (c) => {
      const q = c.req.valid('query');
      if (!q.customer_id === !q.invoice_id) throw new ValidationError('Give one of customer_id or invoice_id', { customer_id: ['One of customer_id or invoice_id'] });
      const threads = await listEmailThreads(c.var.engine.db, scopeOf(c).companyId, { customerId: q.customer_id ?? null, invoiceId: q.invoice_id ?? null });
      return c.json({ data: threads.map((t) => ({ ...t, messages: t.messages.map(withReading) })) }, 200);
    })
    .openapi(draftReplyRoute, async (c) => c.json(await draftReply(c.var.engine, scopeOf(c).companyId, c.req.valid('param').communication_id), 200))
    .openapi(sendReplyRoute, async (c) => c.json(await sendReply(c.var.engine, scopeOf(c), c.req.valid('param').communication_id, c.req.valid('json')), 201))
    .openapi(createCommunicationRoute, async (c) => c.json(await logCommunication(c.var.engine, scopeOf(c), c.req.valid('json')), 201));
}
