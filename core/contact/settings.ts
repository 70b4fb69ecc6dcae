/**
 * What people set for the contact rule: a stop on one customer (a pause, or "do not contact"), with
 * who and why, set by anyone who may write (owner or collector); and the company's settings, an
 * owner's to change: the promise grace days and the hold kinds nobody may send through.
 */
import type { ContactStop } from '../db/schema';
import { type Engine, runCommand, type Scope } from '../engine';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors';
import { CONTACT_HOLD_KINDS, type ContactHoldKind } from './rule';
import { stopWords } from '../holds/holds';
import { type ContactSettings, contactSettings } from './store';

export const STOP_REASON_MAX = 500;
export const GRACE_DAYS_MAX = 60;

export interface CustomerStop {
  stop: ContactStop | null;
  reason: string | null;
  by: string | null;
  at: string | null;
  /** In the rule's words ("Do not contact, set by Ann on Nov 20: ..."); null when no stop. */
  words: string | null;
}

/** Sets (or with `stop: null` lifts) a person's stop on the customer; a stop needs a reason. */
export async function setCustomerStop(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope, customerId: string, input: { stop: ContactStop | null; reason?: string | null }): Promise<CustomerStop> {
  const reason = input.reason?.trim() || null;
  if (input.stop !== null && reason === null) throw new ValidationError('Say why contact stops', { reason: ['Say why, for whoever reads the hold'] });
  return runCommand(engine, 'set_contact_stop', scope, async (tx) => {
    const found = await tx.db.selectFrom('customers').select('id').where('company_id', '=', scope.companyId).where('id', '=', customerId).executeTakeFirst();
    if (!found) throw new NotFoundError('Customer not found');
    const set = input.stop === null ? { contact_stop: null, contact_stop_reason: null, contact_stop_by: null, contact_stop_at: null } : { contact_stop: input.stop, contact_stop_reason: reason, contact_stop_by: tx.actor.name, contact_stop_at: tx.now };
    await tx.db.updateTable('customers').set({ ...set, updated_at: tx.now }).where('id', '=', customerId).execute();
    await tx.record('customer', customerId, 'update', set);
    return stopView(set, tx.now.slice(0, 10));
  });
}

export async function getCustomerStop(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope, customerId: string): Promise<CustomerStop> {
  const row = await engine.db
    .selectFrom('customers')
    .select(['contact_stop', 'contact_stop_reason', 'contact_stop_by', 'contact_stop_at'])
    .where('company_id', '=', scope.companyId)
    .where('id', '=', customerId)
    .executeTakeFirst();
  if (!row) throw new NotFoundError('Customer not found');
  return stopView(row, engine.clock.now().toISOString().slice(0, 10));
}

function stopView(r: { contact_stop: ContactStop | null; contact_stop_reason: string | null; contact_stop_by: string | null; contact_stop_at: string | null }, today: string): CustomerStop {
  return { stop: r.contact_stop, reason: r.contact_stop_reason, by: r.contact_stop_by, at: r.contact_stop_at, words: r.contact_stop ? stopWords(r, today) : null };
}

export function getContactSettings(engine: Pick<Engine, 'db'>, scope: Scope): Promise<ContactSettings> {
  return contactSettings(engine.db, scope.companyId);
}

/** An owner's change of the company's contact settings; fields left out keep their value. */
export async function updateContactSettings(
  engine: Pick<Engine, 'db' | 'clock'>,
  scope: Scope & { role: string },
  input: { promise_grace_days?: number; no_override?: ContactHoldKind[] },
): Promise<ContactSettings> {
  if (scope.role !== 'owner') throw new ForbiddenError('Only a company owner can change the contact settings', 'owner_only');
  const errors: Record<string, string[]> = {};
  if (input.promise_grace_days !== undefined && !(Number.isInteger(input.promise_grace_days) && input.promise_grace_days >= 0 && input.promise_grace_days <= GRACE_DAYS_MAX)) {
    errors.promise_grace_days = [`A whole number of days from 0 to ${GRACE_DAYS_MAX}`];
  }
  const unknown = (input.no_override ?? []).filter((k) => !CONTACT_HOLD_KINDS.includes(k));
  if (unknown.length) errors.no_override = [`Not a hold: ${unknown.join(', ')}`];
  if (Object.keys(errors).length) throw new ValidationError('The contact settings are invalid', errors);
  return runCommand(engine, 'update_contact_settings', scope, async (tx) => {
    const set = {
      ...(input.promise_grace_days !== undefined ? { promise_grace_days: input.promise_grace_days } : {}),
      ...(input.no_override !== undefined ? { contact_no_override: JSON.stringify(CONTACT_HOLD_KINDS.filter((k) => input.no_override!.includes(k))) } : {}),
    };
    if (Object.keys(set).length) {
      await tx.db.updateTable('companies').set({ ...set, updated_at: tx.now }).where('id', '=', scope.companyId).execute();
      await tx.record('company', scope.companyId, 'update', set);
    }
    return contactSettings(tx.db, scope.companyId);
  });
}
