/**
 * What customers sent through the portal, for the collector: the list, and a proposed billing
 * contact accepted (it becomes the customer's billing contact: the one marked billing is updated,
 * else one is added) or declined. One command each, with a note on the customer's timeline.
 */
import { insertCommunication } from '../communications/store';
import type { Db } from '../db/connection';
import type { Selectable } from 'kysely';
import type { PortalSubmissionKind, PortalSubmissionsTable } from '../db/schema';
import { type Engine, runCommand, type Scope } from '../engine';
import { InvalidStateError, NotFoundError } from '../errors';
import { newId } from '../ids';

export interface SubmissionView {
  id: string;
  customer: string;
  kind: PortalSubmissionKind;
  invoices: string[];
  details: Record<string, unknown>;
  file: string | null;
  status: 'open' | 'accepted' | 'declined';
  decided_by: string | null;
  created_at: string;
}

export const MAX_LISTED = 200;

/** The company's submissions, newest first (at most 200), of one customer or status when asked. */
export async function listSubmissions(db: Db, companyId: string, filter: { customerId?: string; status?: SubmissionView['status'] }): Promise<SubmissionView[]> {
  let q = db.selectFrom('portal_submissions').selectAll().where('company_id', '=', companyId);
  if (filter.customerId) q = q.where('customer_id', '=', filter.customerId.toLowerCase());
  if (filter.status) q = q.where('status', '=', filter.status);
  return (await q.orderBy('id', 'desc').limit(MAX_LISTED).execute()).map(toView);
}

function toView(r: Selectable<PortalSubmissionsTable>): SubmissionView {
  return {
    id: r.id,
    customer: r.customer_id,
    kind: r.kind,
    invoices: JSON.parse(r.invoice_ids) as string[],
    details: JSON.parse(r.details) as Record<string, unknown>,
    file: r.file_id,
    status: r.status,
    decided_by: r.decided_by,
    created_at: r.created_at,
  };
}

export async function getSubmission(db: Db, companyId: string, id: string): Promise<SubmissionView> {
  const row = await db.selectFrom('portal_submissions').selectAll().where('company_id', '=', companyId).where('id', '=', id.toLowerCase()).executeTakeFirst();
  if (!row) throw new NotFoundError('Portal submission', id);
  return toView(row);
}

/** Accepts or declines a proposed billing contact; the submission as it now stands. */
export async function decideContactChange(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope, submissionId: string, accept: boolean): Promise<SubmissionView> {
  const id = submissionId.toLowerCase();
  await runCommand(engine, accept ? 'accept_portal_contact' : 'decline_portal_contact', scope, async (tx) => {
    const s = await tx.db.selectFrom('portal_submissions').selectAll().where('company_id', '=', scope.companyId).where('id', '=', id).executeTakeFirst();
    if (!s) throw new NotFoundError('Portal submission', submissionId);
    if (s.kind !== 'contact') throw new InvalidStateError('Only a proposed billing contact is accepted or declined', 'not_a_contact_change');
    if (s.status !== 'open') throw new InvalidStateError(`It was already ${s.status}`, 'already_decided');
    const proposed = JSON.parse(s.details) as { name: string; email: string; phone: string | null };
    if (accept) {
      const billing = await tx.db.selectFrom('customer_contacts').select('id').where('company_id', '=', scope.companyId).where('customer_id', '=', s.customer_id).where('is_billing', '=', 1).orderBy('created_at').executeTakeFirst();
      const fields = { name: proposed.name, email: proposed.email, ...(proposed.phone ? { phone: proposed.phone } : {}), email_failed_at: null, email_failure: null, updated_at: tx.now };
      if (billing) {
        await tx.db.updateTable('customer_contacts').set(fields).where('id', '=', billing.id).execute();
        await tx.record('customer_contact', billing.id, 'update', fields);
      } else {
        const row = { id: newId(), company_id: scope.companyId, customer_id: s.customer_id, name: proposed.name, email: proposed.email, phone: proposed.phone, title: null, is_billing: 1 as const, created_at: tx.now, updated_at: tx.now };
        await tx.db.insertInto('customer_contacts').values(row).execute();
        await tx.record('customer_contact', row.id, 'insert', row);
      }
    }
    const set = { status: accept ? ('accepted' as const) : ('declined' as const), decided_by: tx.actor.name, updated_at: tx.now };
    await tx.db.updateTable('portal_submissions').set(set).where('id', '=', s.id).execute();
    await tx.record('portal_submission', s.id, 'update', set);
    await insertCommunication(tx, {
      id: newId(),
      company_id: scope.companyId,
      customer_id: s.customer_id,
      invoice_id: null,
      kind: 'note',
      direction: 'internal',
      subject: accept ? 'Billing contact changed as asked in the portal' : 'Billing contact change declined',
      body: `${proposed.name} <${proposed.email}>${proposed.phone ? `, ${proposed.phone}` : ''}`,
      occurred_at: tx.now,
      author_user_id: tx.actor.userId,
      author_name: tx.actor.name,
      email_connection_id: null,
      message_id: null,
      created_at: tx.now,
    });
  });
  return getSubmission(engine.db, scope.companyId, id);
}
