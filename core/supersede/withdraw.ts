/**
 * Proposals follow the facts and the collector's choice: a promise to pay, a dispute, a reply or a payment makes some open
 * proposals wrong, and they are withdrawn (cancelled with the reason in words) in the transaction
 * that records the fact, not at the next refresh. Only what the engine recommended is withdrawn;
 * an action a person created stays theirs to decide.
 *
 * A module of its own below every area that records facts (payments, communications, replies)
 * and below actions, which also withdraws an approved option's siblings with it; it depends on
 * the ground only.
 */
import type { ActionType } from '../db/schema';
import { longDate } from '../dates';
import type { CommandTx } from '../engine';
import { newId } from '../ids';

export type Fact =
  /** A promise to pay, on one invoice or (invoiceId null) on the customer's account. */
  | { kind: 'promise'; customerId: string; invoiceId: string | null; date: string }
  | { kind: 'dispute'; customerId: string; invoiceId: string | null; on: string }
  | { kind: 'reply'; customerId: string; communicationId: string; on: string }
  | { kind: 'payment'; customerId: string; invoiceId: string; paidInFull: boolean; on: string }
  /** A label the company marked as meaning a dispute or a promise to pay, put on an invoice. */
  | { kind: 'label'; customerId: string; invoiceId: string; label: string; on: string }
  /** An email of ours went out (a sequence step, a reminder, a statement, an approved action, a reply): about these invoices. */
  | { kind: 'contact'; customerId: string; invoiceIds: string[]; on: string };

export interface OpenProposal {
  invoiceId: string | null;
  actionType: ActionType;
  triggerKey: string | null;
  /** The invoices a proposal on the customer as a whole lists (a statement, old balances). */
  listedInvoiceIds?: string[];
}

/** The reason a withdrawn proposal carries: "superseded: promise to pay on record for Dec 4, 2026". */
export function supersedeReason(fact: Fact): string {
  switch (fact.kind) {
    case 'promise':
      return `superseded: promise to pay on record for ${longDate(fact.date)}`;
    case 'dispute':
      return `superseded: disputed by the customer on ${longDate(fact.on)}`;
    case 'reply':
      return `superseded: reply received on ${longDate(fact.on)}`;
    case 'payment':
      return fact.paidInFull ? `superseded: paid in full on ${longDate(fact.on)}` : `superseded: payment received on ${longDate(fact.on)}`;
    case 'label':
      return `superseded: labelled "${fact.label}" on ${longDate(fact.on)}`;
    case 'contact':
      return `superseded: we emailed the customer about it on ${longDate(fact.on)}`;
  }
}

/**
 * Whether the fact makes the open proposal wrong. A promise, dispute or payment on an invoice
 * withdraws that invoice's proposals (a promise or dispute on the account withdraws all of the
 * customer's); a reply withdraws everything but the answer to that very reply, since the collector
 * answers the customer before chasing them. A fact that takes an invoice out of the chase (a
 * promise, a dispute, such a label, paid in full) also withdraws the email or call on the customer
 * that lists it: the next refresh proposes one for the others (a task, such as a review of old
 * balances, stays).
 */
export function isSuperseded(fact: Fact, proposal: OpenProposal): boolean {
  switch (fact.kind) {
    case 'promise':
    case 'dispute':
      return fact.invoiceId === null || proposal.invoiceId === fact.invoiceId || chaseListing(proposal, fact.invoiceId);
    case 'payment':
      return proposal.invoiceId === fact.invoiceId || (fact.paidInFull && chaseListing(proposal, fact.invoiceId));
    case 'label':
      return proposal.invoiceId === fact.invoiceId || chaseListing(proposal, fact.invoiceId);
    case 'reply':
      return !(proposal.triggerKey ?? '').startsWith(`reply_received:${fact.communicationId}`);
    case 'contact':
      return contactAnswers(fact.invoiceIds, proposal);
  }
}

/** An email or call on the customer as a whole whose list names the invoice. */
function chaseListing(proposal: OpenProposal, invoiceId: string): boolean {
  return proposal.invoiceId === null && proposal.actionType !== 'task' && (proposal.listedInvoiceIds ?? []).includes(invoiceId);
}

/**
 * An email of ours answers the proposals to write to or call the customer about those invoices
 * (their own, or listed by a proposal on the whole customer) and a proposal to answer their reply:
 * one conversation at a time. A task (resolve a dispute, find a contact, wait) still stands.
 */
export function contactAnswers(invoiceIds: string[], proposal: OpenProposal): boolean {
  if ((proposal.triggerKey ?? '').startsWith('reply_received:')) return true;
  if (proposal.actionType === 'task') return false;
  const about = new Set(invoiceIds);
  return proposal.invoiceId !== null ? about.has(proposal.invoiceId) : (proposal.listedInvoiceIds ?? []).some((id) => about.has(id));
}

/** Withdraws the customer's open proposals the fact makes wrong, in the caller's transaction; returns how many. */
export async function withdrawProposals(tx: CommandTx, companyId: string, fact: Fact): Promise<number> {
  const open = await tx.db
    .selectFrom('actions')
    .select(['id', 'invoice_id', 'action_type', 'trigger_key', 'metadata'])
    .where('company_id', '=', companyId)
    .where('customer_id', '=', fact.customerId)
    .where('status', 'in', ['proposed', 'scheduled'])
    .where('is_ai_recommended', '=', 1)
    .where('deleted_at', 'is', null)
    .execute();
  const wrong = open.filter((a) => isSuperseded(fact, { invoiceId: a.invoice_id, actionType: a.action_type, triggerKey: a.trigger_key, listedInvoiceIds: a.invoice_id === null ? listedOf(a.metadata) : [] }));
  if (!wrong.length) return 0;
  await cancelWithReason(tx, companyId, wrong.map((a) => a.id), supersedeReason(fact));
  return wrong.length;
}

/** The invoice_ids a proposal's metadata lists (JSON text); none when it lists none. */
function listedOf(metadata: string): string[] {
  try {
    const ids: unknown = (JSON.parse(metadata) as { invoice_ids?: unknown } | null)?.invoice_ids;
    return Array.isArray(ids) ? ids.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/** The reason the other options of a trigger carry once one of them was chosen. */
export const ANOTHER_OPTION = 'another option was chosen';

/**
 * The trigger an engine proposal answers: its key without the alternative's suffix
 * ("past_due_no_touch:<invoice>:31_60:alt:call" -> "past_due_no_touch:<invoice>:31_60").
 */
export function baseTrigger(triggerKey: string | null): string | null {
  return triggerKey === null ? null : triggerKey.replace(/:alt:[a-z]+$/, '');
}

/**
 * Choosing one option (approving, sending or completing it) cancels the other open options for
 * the same decision: the same trigger, or for proposals without one (the demo's, older ones) the
 * same invoice.
 */
export async function withdrawSiblings(tx: CommandTx, companyId: string, action: { id: string; customer_id: string; invoice_id: string | null; trigger_key: string | null }): Promise<number> {
  const base = baseTrigger(action.trigger_key);
  if (base === null && action.invoice_id === null) return 0;
  let q = tx.db
    .selectFrom('actions')
    .select('id')
    .where('company_id', '=', companyId)
    .where('customer_id', '=', action.customer_id)
    .where('id', '!=', action.id)
    .where('status', 'in', ['proposed', 'scheduled'])
    .where('is_ai_recommended', '=', 1)
    .where('deleted_at', 'is', null);
  q = base === null ? q.where('invoice_id', '=', action.invoice_id).where('trigger_key', 'is', null) : q.where((eb) => eb.or([eb('trigger_key', '=', base), eb('trigger_key', 'like', `${base}:alt:%`)]));
  const ids = (await q.execute()).map((r) => r.id);
  if (!ids.length) return 0;
  await cancelWithReason(tx, companyId, ids, ANOTHER_OPTION);
  return ids.length;
}

async function cancelWithReason(tx: CommandTx, companyId: string, ids: string[], reason: string): Promise<void> {
  const changes = { status: 'cancelled' as const, updated_at: tx.now };
  await tx.db.updateTable('actions').set(changes).where('id', 'in', ids).execute();
  const entries = ids.map((actionId) => ({
    id: newId(),
    company_id: companyId,
    action_id: actionId,
    operation: 'cancel' as const,
    reason,
    comment: null,
    approver_id: null,
    user_id: tx.actor.userId,
    created_at: tx.now,
  }));
  await tx.db.insertInto('action_approvals').values(entries).execute();
  await tx.recordMany([
    ...ids.map((id) => ({ entity: 'action', entityId: id, op: 'update' as const, data: changes })),
    ...entries.map((e) => ({ entity: 'action_approval', entityId: e.id, op: 'insert' as const, data: e })),
  ]);
}
