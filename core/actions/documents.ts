/**
 * What an email action can attach, shown before approval: the invoice copy (an action about an
 * invoice) and the customer's statement, made now to show their names and sizes. Approval keeps
 * the choice (metadata.attach); the send makes them again with the figures of that moment.
 */
import { today } from '../clock';
import { ATTACHMENT_KINDS, type AttachmentSummary, makeAttachments, summarize } from '../documents/attachments';
import type { Engine } from '../engine';
import { NotFoundError } from '../errors';

export async function actionAttachmentPreview(engine: Pick<Engine, 'db' | 'clock'>, companyId: string, actionId: string): Promise<AttachmentSummary[]> {
  const action = await engine.db.selectFrom('actions').select(['action_type', 'customer_id', 'invoice_id']).where('company_id', '=', companyId).where('id', '=', actionId).executeTakeFirst();
  if (!action) throw new NotFoundError('Action', actionId);
  if (action.action_type !== 'email') return [];
  return summarize(await makeAttachments(engine.db, companyId, { invoiceId: action.invoice_id, customerId: action.customer_id }, ATTACHMENT_KINDS, today(engine.clock)));
}
