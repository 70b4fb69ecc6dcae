/** A raw message read over IMAP, parsed (mailparser) into what the reply rules and the record need. */
import type { AddressObject } from 'mailparser';
import { referenceChain } from '../communications/threads';
import type { AttachmentInfo } from '../communications/timeline';
import { htmlToPlainText, type IncomingHeaders, keptText, normalizeMessageId, SUBJECT_MAX, threadCandidates } from './rules';

export interface IncomingMessage extends IncomingHeaders {
  uid: number;
  messageId: string | null;
  /** Our Message-IDs it may answer, most specific first. */
  threadIds: string[];
  /** Its References chain, oldest first (else its In-Reply-To): where it stands in a thread. */
  references: string[];
  fromName: string | null;
  date: Date | undefined;
  /** Plain text (an HTML-only message reduced to text). */
  text: string | null;
  attachments: AttachmentInfo[];
  /** The message as received, for a bounce's delivery-status fields. */
  source: string;
}

function firstAddress(from: AddressObject | AddressObject[] | undefined): { address: string | null; name: string | null } {
  const value = (Array.isArray(from) ? from[0] : from)?.value[0];
  return { address: value?.address?.toLowerCase() ?? null, name: value?.name?.trim() || null };
}

function headerText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(headerText).join(', ');
  if (value && typeof value === 'object') {
    const v = value as { value?: unknown; params?: Record<string, string>; text?: string };
    if (typeof v.text === 'string') return v.text;
    if (typeof v.value === 'string') return [v.value, ...Object.entries(v.params ?? {}).map(([k, p]) => `${k}=${p}`)].join('; ');
  }
  return String(value ?? '');
}

export async function parseMessage(uid: number, source: Buffer): Promise<IncomingMessage> {
  // Loaded with the first message read: most runs read none.
  const { simpleParser } = await import('mailparser');
  const parsed = await simpleParser(source, { skipTextToHtml: true, skipImageLinks: true });
  const headers: Record<string, string> = {};
  for (const [key, value] of parsed.headers) headers[key.toLowerCase()] = headerText(value);
  const from = firstAddress(parsed.from);
  return {
    uid,
    headers,
    fromAddress: from.address,
    fromName: from.name,
    subject: keptText(parsed.subject ?? '', SUBJECT_MAX) ?? '',
    messageId: parsed.messageId ? normalizeMessageId(parsed.messageId) : null,
    threadIds: threadCandidates(parsed.inReplyTo, parsed.references),
    references: referenceChain(parsed.inReplyTo, parsed.references),
    date: parsed.date,
    text: keptText(parsed.text || (parsed.html ? htmlToPlainText(parsed.html) : null)),
    attachments: parsed.attachments.map((a) => ({ name: keptText(a.filename ?? '', 255) ?? 'unnamed', size: a.size ?? a.content?.length ?? 0 })),
    source: source.toString('utf8'),
  };
}
