/**
 * A customer's chase as it stands now, for the customer page and the invoice panel: what holds it
 * (a dispute, a promise, an unanswered reply), and for each active enrollment whether it runs or
 * why it is paused. Read live from the facts, so a promise or dispute logged a moment ago shows at
 * once; the queue's next refresh writes the same pause onto the enrollment.
 */
import { type Clock, today as todayOf } from '../clock';
import type { Db } from '../db/connection';
import type { PauseKind } from '../db/schema';
import { NotFoundError } from '../errors';
import { checkContact } from '../contact/store';
import { chaseHolds, type HoldKind } from '../holds/holds';
import { chaseFacts, enrollmentHold } from '../holds/store';
import { localDate } from '../zones';

export interface ChaseHoldView {
  kind: HoldKind;
  /** In words, without "Paused: ": "Tri-County promised payment by Nov 27". */
  reason: string;
  invoice: string | null;
}

export interface ChaseEnrollmentView {
  id: string;
  sequence: string;
  sequence_name: string;
  pause_kind: PauseKind | null;
  /** "Paused: Tri-County promised payment by Nov 27"; null while it runs. */
  pause_reason: string | null;
}

export interface CustomerChase {
  customer: string;
  holds: ChaseHoldView[];
  enrollments: ChaseEnrollmentView[];
  /**
   * The contact rule's answer for an email about the customer's open invoices now (core/contact):
   * held (nothing would go) or the invoices it leaves out, in words; reason null when all may go.
   */
  contact: { allowed: boolean; reason: string | null };
}

export async function customerChase(engine: { db: Db; clock: Clock }, companyId: string, customerId: string): Promise<CustomerChase> {
  const id = customerId.toLowerCase();
  const facts = (await chaseFacts(engine.db, companyId, [id])).get(id);
  if (!facts) throw new NotFoundError('Customer', customerId);
  const enrollments = await engine.db
    .selectFrom('sequence_enrollments as e')
    .innerJoin('sequences as q', 'q.id', 'e.sequence_id')
    .select(['e.id', 'e.sequence_id', 'q.name', 'q.timezone', 'e.paused_kind', 'e.paused_reason', 'e.reply_handled_at', 'e.created_at', 'q.pause_on_reply', 'q.pause_on_promise', 'q.pause_on_dispute'])
    .where('e.company_id', '=', companyId)
    .where('e.customer_id', '=', id)
    .where('e.status', '=', 'active')
    .orderBy('q.name')
    .execute();
  const now = engine.clock.now();
  const answer = await checkContact(engine.db, companyId, id, { channel: 'sequence', invoiceIds: facts.openInvoices.map((i) => i.id) }, now.toISOString());
  return {
    customer: id,
    contact: { allowed: answer.allowed, reason: answer.reason },
    holds: chaseHolds(facts, todayOf(engine.clock)).map((h) => ({ kind: h.kind, reason: h.reason.replace(/^Paused: /, ''), invoice: h.invoiceId })),
    enrollments: enrollments.map((e) => {
      const hold = e.paused_kind === 'manual' ? null : enrollmentHold(e, facts, localDate(now, e.timezone));
      return {
        id: e.id,
        sequence: e.sequence_id,
        sequence_name: e.name,
        pause_kind: e.paused_kind === 'manual' ? 'manual' : (hold?.kind ?? null),
        pause_reason: e.paused_kind === 'manual' ? e.paused_reason : (hold?.reason ?? null),
      };
    }),
  };
}
