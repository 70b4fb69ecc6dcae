/**
 * A reply's reading as the app shows it, and a person's correction of it: not a promise, a
 * dispute (which opens the dispute on the reply's invoice in the same command), a question that
 * needs an answer, or a promise with another date or amount (which withdraws the proposals it makes
 * wrong, as a promise logged with a call does). The correction is kept with the reply (who, when)
 * and the chase's holds follow it at once.
 */
import { getCommunication, type CommunicationDto, type ReadingDto } from '../communications/timeline';
import { isValidDate, MAX_DATE } from '../dates';
import { openDisputeIn, REASON_MAX } from '../disputes/disputes';
import { type Engine, runCommand, type Scope } from '../engine';
import { InvalidStateError, NotFoundError, ValidationError } from '../errors';
import { refreshHolds } from '../holds/store';
import { fromMinor, MAX_AMOUNT } from '../money';
import { withdrawProposals } from '../supersede/withdraw';
import { type ReadingKind, readReply } from './reading';

function isReply(c: { kind: string; direction: string }): boolean {
  return c.kind === 'email' && c.direction === 'inbound';
}

/** The automatic reading of a reply, read now, as the app shows it. */
function readNow(c: { subject: string | null; body: string | null; occurred_at: string }): ReadingDto {
  const r = readReply(c.subject, c.body, c.occurred_at);
  return { kind: r.kind, promise_date: r.date, promise_amount: r.amount === null ? null : fromMinor(r.amount), sentence: r.sentence, automatic: true, corrected_by: null, corrected_at: null };
}

/** A communication with its reading: a reply recorded before readings were kept is read now. */
export function withReading(c: CommunicationDto): CommunicationDto {
  if (c.reading !== null || !isReply(c)) return c;
  return { ...c, reading: readNow(c) };
}

/** A communication row's reading as the app shows it (kept, else read now); null for anything but a reply. */
export function readingOfRow(c: {
  kind: string;
  direction: string;
  subject: string | null;
  body: string | null;
  occurred_at: string;
  reading_kind: ReadingKind | null;
  reading_date: string | null;
  reading_amount: number | null;
  reading_sentence: string | null;
  reading_by_name: string | null;
  reading_corrected_at: string | null;
}): ReadingDto | null {
  if (!isReply(c)) return null;
  if (c.reading_kind === null) return readNow(c);
  return {
    kind: c.reading_kind,
    promise_date: c.reading_date,
    promise_amount: c.reading_amount === null ? null : fromMinor(c.reading_amount),
    sentence: c.reading_sentence,
    automatic: c.reading_corrected_at === null,
    corrected_by: c.reading_by_name,
    corrected_at: c.reading_corrected_at,
  };
}

export interface ReadingCorrection {
  kind: ReadingKind;
  promise_date?: string | null;
  /** Minor units. */
  promise_amount?: number | null;
}

/** What is wrong with a correction, by field (empty: nothing); `replyDay` is the day the reply was written. */
export function correctionErrors(input: ReadingCorrection, replyDay: string): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const date = input.promise_date ?? null;
  const amount = input.promise_amount ?? null;
  if (input.kind === 'promise') {
    if (date === null && amount === null) errors.promise_date = ['A promise needs the date promised, or the amount'];
    if (date !== null && (!isValidDate(date) || date > MAX_DATE)) errors.promise_date = ['A real date, as YYYY-MM-DD'];
    else if (date !== null && date < replyDay) errors.promise_date = [`Not before the day of the reply (${replyDay})`];
    if (amount !== null && (!Number.isSafeInteger(amount) || amount <= 0 || amount > MAX_AMOUNT * 100)) errors.promise_amount = ['A positive amount'];
  } else {
    if (date !== null) errors.promise_date = ['Only a promise has a date'];
    if (amount !== null) errors.promise_amount = ['Only a promise has an amount'];
  }
  return errors;
}

/** "From Pat's reply: "…"" as a dispute's reason, within the dispute's length. */
export function disputeReasonFrom(author: string | null, sentence: string | null): string {
  const said = sentence ? `: "${sentence}"` : '';
  const reason = `Raised in ${author ? `${author}'s` : 'the customer’s'} reply${said}`;
  return reason.length > REASON_MAX ? `${reason.slice(0, REASON_MAX - 2)}…"` : reason;
}

/**
 * A person corrects how a reply reads. "It is a dispute" opens the dispute on the reply's invoice
 * (unless one is open or the invoice is closed); the holds of the customer are refreshed in the
 * same command.
 */
export async function correctReading(engine: Engine, scope: Scope, communicationId: string, input: ReadingCorrection): Promise<CommunicationDto> {
  const id = communicationId.toLowerCase();
  await runCommand(engine, 'correct_reply_reading', scope, async (tx) => {
    const c = await tx.db
      .selectFrom('communications')
      .select(['id', 'customer_id', 'invoice_id', 'kind', 'direction', 'subject', 'body', 'occurred_at', 'author_name', 'reading_sentence'])
      .where('company_id', '=', scope.companyId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!c) throw new NotFoundError('Communication', communicationId);
    if (!isReply(c)) throw new InvalidStateError('Only a reply received from the customer has a reading to correct', 'not_a_reply');
    const errors = correctionErrors(input, c.occurred_at.slice(0, 10));
    if (Object.keys(errors).length) throw new ValidationError('The correction is invalid', errors);
    const sentence = c.reading_sentence ?? readReply(c.subject, c.body, c.occurred_at).sentence;
    const set = {
      reading_kind: input.kind,
      reading_date: input.kind === 'promise' ? (input.promise_date ?? null) : null,
      reading_amount: input.kind === 'promise' ? (input.promise_amount ?? null) : null,
      reading_sentence: sentence,
      reading_by_user_id: tx.actor.userId,
      reading_by_name: tx.actor.name,
      reading_corrected_at: tx.now,
    };
    await tx.db.updateTable('communications').set(set).where('id', '=', c.id).execute();
    await tx.record('communication', c.id, 'update', set);
    // A promise a person confirms makes the proposals that chase its invoice wrong, as one logged with a call does.
    if (set.reading_kind === 'promise' && set.reading_date) await withdrawProposals(tx, scope.companyId, { kind: 'promise', customerId: c.customer_id, invoiceId: c.invoice_id, date: set.reading_date });
    if (input.kind === 'dispute' && c.invoice_id) {
      const invoice = await tx.db.selectFrom('invoices').select('closing_reason').where('id', '=', c.invoice_id).executeTakeFirstOrThrow();
      const open = await tx.db.selectFrom('disputes').select('id').where('company_id', '=', scope.companyId).where('invoice_id', '=', c.invoice_id).where('status', '=', 'open').executeTakeFirst();
      if (invoice.closing_reason === null && !open) {
        await openDisputeIn(tx, scope, { invoice_id: c.invoice_id, reason: disputeReasonFrom(c.author_name, sentence), communication_id: c.id });
      }
    }
    await refreshHolds(tx, scope.companyId, [c.customer_id]);
  });
  return withReading(await getCommunication(engine.db, scope.companyId, id));
}

