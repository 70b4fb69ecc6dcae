/**
 * Disputes: a customer contests an invoice. A dispute has a reason, an owner (a team member who
 * sorts it out) and a state, open or resolved; it is opened from the invoice panel or from a reply.
 * While open it holds the chase of that invoice (the hold rules read this table); opening and
 * resolving are each one command that also writes a note on the invoice's activity and pauses or
 * resumes the customer's sequences at once.
 */
import type { Selectable } from 'kysely';
import { withdrawProposals } from '../supersede/withdraw';
import { insertCommunication } from '../communications/store';
import type { Db } from '../db/connection';
import type { DisputesTable, DisputeStatus } from '../db/schema';
import { type CommandTx, type Engine, runCommand, type Scope } from '../engine';
import { ConflictError, InvalidStateError, NotFoundError, ValidationError } from '../errors';
import { newId } from '../ids';
import { refreshHolds } from '../holds/store';

export const DISPUTE_STATUSES = ['open', 'resolved'] as const satisfies readonly DisputeStatus[];
export const REASON_MAX = 500;
export const RESOLUTION_MAX = 2_000;

export interface DisputeView {
  id: string;
  invoice: string;
  invoice_number: string;
  customer: string;
  customer_name: string;
  reason: string;
  owner: string | null;
  owner_name: string | null;
  status: DisputeStatus;
  /** The reply it was opened from. */
  communication: string | null;
  resolution: string | null;
  opened_by: string | null;
  resolved_by: string | null;
  resolved_at: string | null;
  created_at: string;
  updated_at: string;
}

function withNames(db: Db, companyId: string) {
  return db
    .selectFrom('disputes as d')
    .innerJoin('invoices as i', 'i.id', 'd.invoice_id')
    .innerJoin('customers as c', 'c.id', 'd.customer_id')
    .leftJoin('team_members as m', 'm.id', 'd.owner_id')
    .selectAll('d')
    .select(['i.invoice_number', 'c.name as customer_name', 'm.name as owner_name'])
    .where('d.company_id', '=', companyId);
}

function toView(r: Selectable<DisputesTable> & { invoice_number: string; customer_name: string; owner_name: string | null }): DisputeView {
  return {
    id: r.id,
    invoice: r.invoice_id,
    invoice_number: r.invoice_number,
    customer: r.customer_id,
    customer_name: r.customer_name,
    reason: r.reason,
    owner: r.owner_id,
    owner_name: r.owner_name,
    status: r.status,
    communication: r.communication_id,
    resolution: r.resolution,
    opened_by: r.opened_by,
    resolved_by: r.resolved_by,
    resolved_at: r.resolved_at,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export async function getDispute(db: Db, companyId: string, id: string): Promise<DisputeView> {
  const row = await withNames(db, companyId).where('d.id', '=', id.toLowerCase()).executeTakeFirst();
  if (!row) throw new NotFoundError('Dispute', id);
  return toView(row);
}

export interface DisputeFilter {
  invoiceId: string | null;
  customerId: string | null;
  status: DisputeStatus | null;
}

/** Open ones first, then newest first (ids are time-ordered). */
export async function listDisputes(db: Db, companyId: string, f: DisputeFilter): Promise<DisputeView[]> {
  let q = withNames(db, companyId);
  if (f.invoiceId) q = q.where('d.invoice_id', '=', f.invoiceId.toLowerCase());
  if (f.customerId) q = q.where('d.customer_id', '=', f.customerId.toLowerCase());
  if (f.status) q = q.where('d.status', '=', f.status);
  const rows = await q.orderBy('d.status').orderBy('d.id', 'desc').limit(200).execute();
  return rows.map(toView);
}

export interface OpenDisputeInput {
  invoice_id: string;
  reason: string;
  owner_id?: string | null;
  /** The customer's reply it is opened from: an email received from the invoice's customer. */
  communication_id?: string | null;
}

/** A note on the invoice's activity, by whoever did it. */
async function logNote(tx: CommandTx, companyId: string, d: { customer_id: string; invoice_id: string }, subject: string, body: string): Promise<void> {
  await insertCommunication(tx, {
    id: newId(),
    company_id: companyId,
    customer_id: d.customer_id,
    invoice_id: d.invoice_id,
    kind: 'note',
    direction: 'internal',
    subject,
    body,
    occurred_at: tx.now,
    author_user_id: tx.actor.userId,
    author_name: tx.actor.name,
    email_connection_id: null,
    message_id: null,
    created_at: tx.now,
  });
}

/** The owner named by `ownerId` (null: nobody): an active team member of the company, else the error in words. */
async function ownerOf(tx: CommandTx, companyId: string, ownerId: string | null): Promise<{ name: string | null; error: string | null }> {
  if (!ownerId) return { name: null, error: null };
  const owner = await tx.db.selectFrom('team_members').select(['name', 'is_active']).where('company_id', '=', companyId).where('id', '=', ownerId.toLowerCase()).executeTakeFirst();
  if (!owner) return { name: null, error: 'No team member with this id in the company' };
  if (owner.is_active !== 1) return { name: null, error: `${owner.name} is no longer active` };
  return { name: owner.name, error: null };
}

export async function openDispute(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope, input: OpenDisputeInput): Promise<DisputeView> {
  const id = await runCommand(engine, 'open_dispute', scope, (tx) => openDisputeIn(tx, scope, input));
  return getDispute(engine.db, scope.companyId, id);
}

/** Opens a dispute inside a command already running (a reply's reading corrected to a dispute opens one with it); its id. */
export async function openDisputeIn(tx: CommandTx, scope: Scope, input: OpenDisputeInput): Promise<string> {
  const reason = input.reason.trim();
  const errors: Record<string, string[]> = {};
  if (!reason) errors.reason = ['Say what the customer disputes'];
  const invoice = await tx.db
    .selectFrom('invoices')
    .select(['id', 'customer_id', 'invoice_number', 'closing_reason'])
    .where('company_id', '=', scope.companyId)
    .where('id', '=', input.invoice_id.toLowerCase())
    .executeTakeFirst();
  if (!invoice) errors.invoice_id = ['No invoice with this id in the company'];
  else if (invoice.closing_reason !== null) errors.invoice_id = [`${invoice.invoice_number} is closed: there is nothing left to dispute`];
  const owner = await ownerOf(tx, scope.companyId, input.owner_id ?? null);
  if (owner.error) errors.owner_id = [owner.error];
  const ownerName = owner.name;
  if (input.communication_id && invoice) {
    const reply = await tx.db.selectFrom('communications').select(['customer_id', 'direction', 'kind']).where('company_id', '=', scope.companyId).where('id', '=', input.communication_id.toLowerCase()).executeTakeFirst();
    if (!reply) errors.communication_id = ['No communication with this id in the company'];
    else if (reply.kind !== 'email' || reply.direction !== 'inbound') errors.communication_id = ['Must be an email received from the customer'];
    else if (reply.customer_id !== invoice.customer_id) errors.communication_id = ["Is not from this invoice's customer"];
  }
  if (Object.keys(errors).length || !invoice) throw new ValidationError('The dispute is invalid', errors);
  const open = await tx.db.selectFrom('disputes').select('id').where('company_id', '=', scope.companyId).where('invoice_id', '=', invoice.id).where('status', '=', 'open').executeTakeFirst();
  if (open) throw new ConflictError(`${invoice.invoice_number} already has an open dispute: resolve it before opening another`, 'dispute_open');
  const row = {
    id: newId(),
    company_id: scope.companyId,
    customer_id: invoice.customer_id,
    invoice_id: invoice.id,
    reason,
    owner_id: input.owner_id?.toLowerCase() ?? null,
    status: 'open' as const,
    communication_id: input.communication_id?.toLowerCase() ?? null,
    resolution: null,
    opened_by: tx.actor.name,
    resolved_by: null,
    resolved_at: null,
    created_at: tx.now,
    updated_at: tx.now,
  };
  await tx.db.insertInto('disputes').values(row).execute();
  await tx.record('dispute', row.id, 'insert', row);
  await logNote(tx, scope.companyId, row, 'Dispute opened', ownerName ? `${reason}\nOwner: ${ownerName}` : reason);
  await withdrawProposals(tx, scope.companyId, { kind: 'dispute', customerId: invoice.customer_id, invoiceId: invoice.id, on: tx.now.slice(0, 10) });
  await refreshHolds(tx, scope.companyId, [invoice.customer_id]);
  return row.id;
}

/** Resolves an open dispute with a note saying how; the chase of the invoice goes on if nothing else holds it. */
export async function resolveDispute(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope, id: string, input: { resolution: string }): Promise<DisputeView> {
  const resolution = input.resolution.trim();
  if (!resolution) throw new ValidationError('The resolution is invalid', { resolution: ['Say how the dispute was resolved'] });
  const disputeId = await runCommand(engine, 'resolve_dispute', scope, async (tx) => {
    const d = await tx.db.selectFrom('disputes').selectAll().where('company_id', '=', scope.companyId).where('id', '=', id.toLowerCase()).executeTakeFirst();
    if (!d) throw new NotFoundError('Dispute', id);
    if (d.status !== 'open') throw new InvalidStateError('The dispute is already resolved', 'dispute_resolved');
    const set = { status: 'resolved' as const, resolution, resolved_by: tx.actor.name, resolved_at: tx.now, updated_at: tx.now };
    await tx.db.updateTable('disputes').set(set).where('id', '=', d.id).execute();
    await tx.record('dispute', d.id, 'update', set);
    await logNote(tx, scope.companyId, d, 'Dispute resolved', `${resolution}\nThe dispute was: ${d.reason}`);
    await refreshHolds(tx, scope.companyId, [d.customer_id]);
    return d.id;
  });
  return getDispute(engine.db, scope.companyId, disputeId);
}

export interface EditDisputeInput {
  reason?: string;
  owner_id?: string | null;
  /** A resolved dispute's note on how it was resolved; an open one has none yet. */
  resolution?: string;
}

interface DisputeText {
  reason: string;
  owner_id: string | null;
  owner_name: string | null;
  resolution: string | null;
}

/**
 * What an edit changed, in words for the invoice's activity, one line per field ("Reason: Price
 * does not match the PO (was: Price)"); empty when nothing changed. Pure.
 */
export function disputeChanges(before: DisputeText, after: DisputeText): string[] {
  const lines: string[] = [];
  if (after.reason !== before.reason) lines.push(`Reason: ${after.reason} (was: ${before.reason})`);
  if (after.owner_id !== before.owner_id) lines.push(`Owner: ${after.owner_name ?? 'nobody'} (was: ${before.owner_name ?? 'nobody'})`);
  if (after.resolution !== before.resolution) lines.push(`Resolution: ${after.resolution ?? 'none'} (was: ${before.resolution ?? 'none'})`);
  return lines;
}

/**
 * Edits a dispute's reason, owner or (once resolved) resolution. One command: the change, a note
 * "Dispute edited" on the invoice's activity saying what changed, and, for an open dispute, the
 * holds re-read so a pause names the new reason. Nothing changed: nothing is written.
 */
export async function editDispute(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope, id: string, input: EditDisputeInput): Promise<DisputeView> {
  const disputeId = await runCommand(engine, 'edit_dispute', scope, async (tx) => {
    const d = await tx.db.selectFrom('disputes').selectAll().where('company_id', '=', scope.companyId).where('id', '=', id.toLowerCase()).executeTakeFirst();
    if (!d) throw new NotFoundError('Dispute', id);
    const errors: Record<string, string[]> = {};
    const reason = input.reason === undefined ? d.reason : input.reason.trim();
    if (!reason) errors.reason = ['Say what the customer disputes'];
    const ownerId = input.owner_id === undefined ? d.owner_id : (input.owner_id?.toLowerCase() ?? null);
    const owner = await ownerOf(tx, scope.companyId, ownerId);
    // A former member who already owns it may stay its owner; a new owner must be active.
    if (owner.error && ownerId !== d.owner_id) errors.owner_id = [owner.error];
    let resolution = d.resolution;
    if (input.resolution !== undefined) {
      resolution = input.resolution.trim();
      if (d.status === 'open') errors.resolution = ['An open dispute has no resolution yet: resolve it to say how'];
      else if (!resolution) errors.resolution = ['Say how the dispute was resolved'];
    }
    if (Object.keys(errors).length) throw new ValidationError('The dispute is invalid', errors);
    const formerOwner = d.owner_id ? ((await tx.db.selectFrom('team_members').select('name').where('id', '=', d.owner_id).executeTakeFirst())?.name ?? null) : null;
    const changes = disputeChanges(
      { reason: d.reason, owner_id: d.owner_id, owner_name: formerOwner, resolution: d.resolution },
      { reason, owner_id: ownerId, owner_name: ownerId === d.owner_id ? formerOwner : owner.name, resolution },
    );
    if (changes.length === 0) return d.id;
    const set = { reason, owner_id: ownerId, resolution, updated_at: tx.now };
    await tx.db.updateTable('disputes').set(set).where('id', '=', d.id).execute();
    await tx.record('dispute', d.id, 'update', set);
    await logNote(tx, scope.companyId, d, 'Dispute edited', changes.join('\n'));
    if (d.status === 'open') await refreshHolds(tx, scope.companyId, [d.customer_id]);
    return d.id;
  });
  return getDispute(engine.db, scope.companyId, disputeId);
}
