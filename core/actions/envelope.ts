/**
 * What the approve panel shows of an email action before it goes: who it is from (the company's
 * default connection, which the send job uses), to whom (the addresses the send job picks), the
 * subject it would carry, the documents ticked to go with it, and what the contact rule holds it
 * for now, with whether a person may send it anyway (an owner may have forbidden it for that hold).
 */
import { overrideRefusal } from '../contact/override';
import { contactSettings } from '../contact/store';
import type { Db } from '../db/connection';
import { ATTACHMENT_KINDS, type AttachmentKind } from '../documents/attachments';
import { defaultConnection } from '../email/connections';
import { NotFoundError } from '../errors';
import { actionEmailContent } from './delivery';
import { parseMetadata } from './queries';
import { actionContactAnswer, actionRecipients } from './send';

export interface ActionEnvelope {
  /** Null when the company has no active default connection (approving would fail to send). */
  from: { connection: string; name: string; address: string } | null;
  to: string[];
  subject: string;
  /** The documents ticked: the approval's or the proposal's choice, else the invoice PDF for an email about an invoice. */
  attach: AttachmentKind[];
  /** The rule holds the email now ("Held: ..."), and why sending it anyway is refused (null: it may be, with a reason); null when it would go. */
  hold: { reason: string; override_refused: string | null } | null;
}

/** The choice kept on the action (metadata.attach), else the invoice PDF when it is about an invoice. */
export function defaultAttach(metadata: Record<string, unknown>, invoiceId: string | null): AttachmentKind[] {
  if (Array.isArray(metadata.attach)) return metadata.attach.filter((k): k is AttachmentKind => (ATTACHMENT_KINDS as readonly unknown[]).includes(k));
  return invoiceId ? ['invoice_pdf'] : [];
}

export async function actionEnvelope(db: Db, companyId: string, actionId: string, now: string): Promise<ActionEnvelope> {
  const action = await db
    .selectFrom('actions as a')
    .leftJoin('invoices as i', 'i.id', 'a.invoice_id')
    .select(['a.id', 'a.customer_id', 'a.invoice_id', 'a.metadata', 'a.description', 'a.action_type', 'i.invoice_number'])
    .where('a.company_id', '=', companyId)
    .where('a.id', '=', actionId.toLowerCase())
    .where('a.deleted_at', 'is', null)
    .executeTakeFirst();
  if (!action) throw new NotFoundError('Action', actionId);
  const metadata = parseMetadata(action.metadata);
  const connection = await defaultConnection(db, companyId);
  const answer = await actionContactAnswer(db, companyId, action.id, now);
  const held = answer && !answer.allowed ? answer : null;
  return {
    from: connection ? { connection: connection.id, name: connection.from_name ?? connection.name, address: connection.from_email } : null,
    to: action.action_type === 'email' ? await actionRecipients(db, companyId, action.customer_id) : [],
    subject: actionEmailContent(metadata, { description: action.description, invoiceNumber: action.invoice_number }).subject,
    attach: action.action_type === 'email' ? defaultAttach(metadata, action.invoice_id) : [],
    hold: held
      ? {
          reason: held.reason ?? 'Held.',
          override_refused: overrideRefusal(
            held.held.map((h) => h.kind),
            (await contactSettings(db, companyId)).noOverride,
          ),
        }
      : null,
  };
}
