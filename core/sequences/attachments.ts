/**
 * The documents a sequence email step attaches ("attach the invoice PDF", "attach a statement"),
 * made when the email is sent (and for its preview) with the figures of that moment.
 */
import type { Db } from '../db/connection';
import { ATTACHMENT_KINDS, type AttachmentKind, attachmentKinds, type DocumentAttachment, makeAttachments } from '../documents/attachments';

/** A step's stored JSON list, known kinds only (a row synced from a newer desktop may name more). */
export function storedAttach(json: string): AttachmentKind[] {
  try {
    const list: unknown = JSON.parse(json);
    return Array.isArray(list) ? attachmentKinds(list.filter((k): k is AttachmentKind => (ATTACHMENT_KINDS as readonly unknown[]).includes(k))) : [];
  } catch {
    return [];
  }
}

/**
 * The invoices whose copies go with the email: every invoice a due-date email lists (one email may
 * cover several), else the one its placeholders describe.
 */
export function attachedInvoiceIds(listed: ReadonlyArray<{ id: string }> | undefined, primary: { id: string } | null): string[] {
  if (listed?.length) return listed.map((i) => i.id);
  return primary ? [primary.id] : [];
}

/** The invoice copies first (in the email's order), then the customer's statement as of `today`. */
export async function stepAttachments(db: Db, companyId: string, customerId: string, invoiceIds: readonly string[], kinds: readonly AttachmentKind[], today: string): Promise<DocumentAttachment[]> {
  const out: DocumentAttachment[] = [];
  if (kinds.includes('invoice_pdf')) {
    for (const invoiceId of invoiceIds) out.push(...(await makeAttachments(db, companyId, { invoiceId, customerId }, ['invoice_pdf'], today)));
  }
  if (kinds.includes('statement')) out.push(...(await makeAttachments(db, companyId, { invoiceId: null, customerId }, ['statement'], today)));
  return out;
}
