/**
 * Documents attached to a collector's email (a reminder, a sequence step, an approved action):
 * "attach the invoice PDF" and "attach a statement". They are made when the email is sent, with the
 * figures of that moment, so a reminder queued in the morning and sent after a payment shows it.
 */
import type { Db } from '../db/connection';
import { invoicePdf } from './invoice';
import { statementFile } from './statement';

export const ATTACHMENT_KINDS = ['invoice_pdf', 'statement'] as const;
export type AttachmentKind = (typeof ATTACHMENT_KINDS)[number];

export interface DocumentAttachment {
  kind: AttachmentKind;
  filename: string;
  content: Buffer;
  contentType: 'application/pdf';
}

/** What a preview shows of an attachment, and what a communication keeps of it. */
export interface AttachmentSummary {
  kind: AttachmentKind;
  file_name: string;
  bytes: number;
}

/** Each kind once, in the order the options are listed; unknown words are the caller's 400. */
export function attachmentKinds(asked: readonly AttachmentKind[] | null | undefined): AttachmentKind[] {
  const chosen = new Set(asked ?? []);
  return ATTACHMENT_KINDS.filter((kind) => chosen.has(kind));
}

/**
 * The documents for an email about `invoiceId` (or only its customer): the invoice's copy, and the
 * customer's statement as of `today`. An email about a customer alone has no invoice to attach.
 */
export async function makeAttachments(db: Db, companyId: string, subject: { invoiceId: string | null; customerId: string }, kinds: readonly AttachmentKind[], today: string): Promise<DocumentAttachment[]> {
  const out: DocumentAttachment[] = [];
  for (const kind of attachmentKinds(kinds)) {
    if (kind === 'invoice_pdf') {
      if (!subject.invoiceId) continue;
      const { pdf, fileName } = await invoicePdf(db, companyId, subject.invoiceId, today);
      out.push({ kind, filename: fileName, content: pdf, contentType: 'application/pdf' });
    } else {
      const { pdf, fileName } = await statementFile(db, companyId, subject.customerId, { asOf: today }, today);
      out.push({ kind, filename: fileName, content: pdf, contentType: 'application/pdf' });
    }
  }
  return out;
}

export function summarize(attachments: readonly DocumentAttachment[]): AttachmentSummary[] {
  return attachments.map((a) => ({ kind: a.kind, file_name: a.filename, bytes: a.content.length }));
}

/** The communication's `attachments` column: names and sizes, as for an email received. */
export function communicationAttachments(attachments: readonly DocumentAttachment[]): string | null {
  return attachments.length ? JSON.stringify(attachments.map((a) => ({ name: a.filename, size: a.content.length }))) : null;
}
