/** Reading communications: one customer's or invoice's timeline, newest first. */
import type { Db } from '../db/connection';
import { readPage } from '../db/paging';
import type { CallOutcome, CommunicationKind, ReadingKind } from '../db/schema';
import { NotFoundError } from '../errors';
import { fromMinor } from '../money';

export interface AttachmentInfo {
  name: string;
  /** Bytes. */
  size: number;
}

/** How a reply from the customer reads (core/replies/reading.ts), and whether a person corrected it. */
export interface ReadingDto {
  kind: ReadingKind;
  promise_date: string | null;
  /** Major units, in the communication's currency. */
  promise_amount: number | null;
  /** The sentence the reading came from, as the customer wrote it. */
  sentence: string | null;
  automatic: boolean;
  corrected_by: string | null;
  corrected_at: string | null;
}

export interface CommunicationDto {
  id: string;
  customer: string;
  customer_name: string;
  invoice: string | null;
  invoice_number: string | null;
  kind: CommunicationKind;
  direction: 'outbound' | 'inbound' | 'internal';
  outcome: CallOutcome | null;
  subject: string | null;
  body: string | null;
  promise_date: string | null;
  promise_amount: number | null;
  /** The currency of the promise: the invoice's, else the customer's. */
  currency: string;
  occurred_at: string;
  author_user_id: string | null;
  author_name: string | null;
  /** An email received: who sent it. */
  from_email: string | null;
  /** An email received: its attachments (their content is not kept). */
  attachments: AttachmentInfo[];
  email_connection_id: string | null;
  /** An email: the thread it belongs to (its first message's Message-ID); null for calls and notes. */
  thread_id: string | null;
  created_at: string;
  /** An email received: how it reads; null for the rest. */
  reading: ReadingDto | null;
}

export interface TimelineFilter {
  customerId: string | null;
  invoiceId: string | null;
  kinds: CommunicationKind[] | null;
  direction: 'outbound' | 'inbound' | 'internal' | null;
  limit: number;
  offset: number;
}

export const TIMELINE_DEFAULT_LIMIT = 50;
export const TIMELINE_MAX_LIMIT = 200;

function base(db: Db, companyId: string) {
  return db
    .selectFrom('communications as m')
    .innerJoin('customers as c', 'c.id', 'm.customer_id')
    .leftJoin('invoices as i', 'i.id', 'm.invoice_id')
    .where('m.company_id', '=', companyId);
}

function withColumns(q: ReturnType<typeof base>) {
  return q.select([
    'm.id',
    'm.customer_id',
    'c.name as customer_name',
    'c.currency as customer_currency',
    'm.invoice_id',
    'i.invoice_number',
    'i.currency as invoice_currency',
    'm.kind',
    'm.direction',
    'm.outcome',
    'm.subject',
    'm.body',
    'm.promise_date',
    'm.promise_amount',
    'm.occurred_at',
    'm.author_user_id',
    'm.author_name',
    'm.from_email',
    'm.attachments',
    'm.email_connection_id',
    'm.thread_id',
    'm.message_id',
    'm.created_at',
    'm.reading_kind',
    'm.reading_date',
    'm.reading_amount',
    'm.reading_sentence',
    'm.reading_by_name',
    'm.reading_corrected_at',
  ]);
}

type Row = Awaited<ReturnType<ReturnType<typeof withColumns>['executeTakeFirstOrThrow']>>;

function toDto(r: Row): CommunicationDto {
  return {
    id: r.id,
    customer: r.customer_id,
    customer_name: r.customer_name,
    invoice: r.invoice_id,
    invoice_number: r.invoice_number,
    kind: r.kind,
    direction: r.direction,
    outcome: r.outcome,
    subject: r.subject,
    body: r.body,
    promise_date: r.promise_date,
    promise_amount: r.promise_amount === null ? null : fromMinor(r.promise_amount),
    currency: r.invoice_currency ?? r.customer_currency,
    occurred_at: r.occurred_at,
    author_user_id: r.author_user_id,
    author_name: r.author_name,
    from_email: r.from_email,
    attachments: r.attachments ? (JSON.parse(r.attachments) as AttachmentInfo[]) : [],
    email_connection_id: r.email_connection_id,
    thread_id: r.kind === 'email' ? (r.thread_id ?? r.message_id ?? r.id) : null,
    created_at: r.created_at,
    // A reply recorded before readings were kept has none here: the replies area reads it when shown.
    reading:
      r.reading_kind === null
        ? null
        : {
            kind: r.reading_kind,
            promise_date: r.reading_date,
            promise_amount: r.reading_amount === null ? null : fromMinor(r.reading_amount),
            sentence: r.reading_sentence,
            automatic: r.reading_corrected_at === null,
            corrected_by: r.reading_by_name,
            corrected_at: r.reading_corrected_at,
          },
  };
}

export async function getCommunication(db: Db, companyId: string, id: string): Promise<CommunicationDto> {
  const row = await withColumns(base(db, companyId)).where('m.id', '=', id.toLowerCase()).executeTakeFirst();
  if (!row) throw new NotFoundError('Communication', id);
  return toDto(row);
}

/** A page of communications, newest first (ties by id), with the total matching. */
export async function listCommunications(db: Db, companyId: string, f: TimelineFilter): Promise<{ count: number; limit: number; offset: number; data: CommunicationDto[] }> {
  let q = base(db, companyId);
  if (f.customerId) q = q.where('m.customer_id', '=', f.customerId);
  if (f.invoiceId) q = q.where('m.invoice_id', '=', f.invoiceId);
  if (f.kinds) q = q.where('m.kind', 'in', f.kinds);
  if (f.direction) q = q.where('m.direction', '=', f.direction);
  const { count, rows } = await readPage(q, withColumns(q).orderBy('m.occurred_at', 'desc').orderBy('m.id', 'desc'), f);
  return { count, limit: f.limit, offset: f.offset, data: rows.map(toDto) };
}

export interface EmailThread {
  thread_id: string;
  subject: string | null;
  /** Its messages, oldest first: our sends and the customer's replies. */
  messages: CommunicationDto[];
  last_at: string;
}

/** The emails read for threads: the newest this many, ample for a customer's conversations on screen. */
export const THREAD_EMAILS_MAX = 500;

/**
 * The email threads of a customer, or those touching an invoice (every message of a thread one of
 * whose messages is about it), the most recently active first.
 */
export async function listEmailThreads(db: Db, companyId: string, f: { customerId: string | null; invoiceId: string | null }): Promise<EmailThread[]> {
  let q = base(db, companyId).where('m.kind', '=', 'email');
  if (f.customerId) q = q.where('m.customer_id', '=', f.customerId);
  if (f.invoiceId) {
    const invoice = await db.selectFrom('invoices').select('customer_id').where('company_id', '=', companyId).where('id', '=', f.invoiceId).executeTakeFirst();
    if (!invoice) throw new NotFoundError('Invoice', f.invoiceId);
    q = q.where('m.customer_id', '=', invoice.customer_id);
  }
  const rows = await withColumns(q).orderBy('m.occurred_at', 'desc').orderBy('m.id', 'desc').limit(THREAD_EMAILS_MAX).execute();
  const threads = new Map<string, CommunicationDto[]>();
  for (const dto of rows.map(toDto).reverse()) {
    const key = dto.thread_id ?? dto.id;
    threads.set(key, [...(threads.get(key) ?? []), dto]);
  }
  const out = [...threads.entries()]
    .filter(([, messages]) => !f.invoiceId || messages.some((m) => m.invoice === f.invoiceId))
    .map(([thread_id, messages]) => ({ thread_id, subject: messages[0].subject, messages, last_at: messages[messages.length - 1].occurred_at }));
  return out.sort((a, b) => (a.last_at < b.last_at ? 1 : a.last_at > b.last_at ? -1 : 0));
}
