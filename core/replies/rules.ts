/**
 * The rules for reading customers' replies, as pure functions: what kind of message arrived
 * (a reply, an automatic answer, a bounce), which of our messages it answers, who a bounce was
 * for, and what of its text is kept.
 */

/** A received message as the rules see it: header names lower case, values as text. */
export interface IncomingHeaders {
  headers: Record<string, string>;
  fromAddress: string | null;
  subject: string;
}

export type MessageKind = 'reply' | 'auto_reply' | 'bounce';

const AUTO_SUBJECT = /^\s*(automatic reply|auto[- ]?reply|autoreply|auto:|out of (the )?office|abwesenheitsnotiz|r[ée]ponse automatique|respuesta autom[áa]tica)/i;
const BOUNCE_SENDER = /^(mailer-daemon|postmaster)@/i;
const BOUNCE_SUBJECT = /^\s*(undeliver(able|ed)|delivery status notification \(failure\)|mail delivery failed|returned mail|delivery (has )?failed|failure notice)/i;

/**
 * Bounces: a delivery-status report (multipart/report; report-type=delivery-status), or a message
 * from MAILER-DAEMON / postmaster with a failure subject. Automatic answers: Auto-Submitted other
 * than "no" (RFC 3834), X-Autoreply / X-Autorespond / X-Autoresponder, Precedence auto_reply /
 * bulk / junk / list, or an out-of-office subject ("Automatic reply:", "Out of Office", ...).
 * X-Auto-Response-Suppress alone is not a sign: ordinary Outlook mail carries it. Anything else:
 * a reply.
 */
export function classifyMessage(m: IncomingHeaders): MessageKind {
  const h = m.headers;
  const contentType = (h['content-type'] ?? '').toLowerCase();
  if (contentType.startsWith('multipart/report') && /report-type\s*=\s*"?delivery-status/.test(contentType)) return 'bounce';
  if (m.fromAddress && BOUNCE_SENDER.test(m.fromAddress) && (BOUNCE_SUBJECT.test(m.subject) || contentType.startsWith('multipart/report'))) return 'bounce';
  const autoSubmitted = (h['auto-submitted'] ?? '').trim().toLowerCase();
  if (autoSubmitted && autoSubmitted !== 'no') return 'auto_reply';
  if (h['x-autoreply'] !== undefined || h['x-autorespond'] !== undefined || h['x-autoresponder'] !== undefined) return 'auto_reply';
  const precedence = (h.precedence ?? '').trim().toLowerCase();
  if (['auto_reply', 'bulk', 'junk', 'list'].includes(precedence)) return 'auto_reply';
  if (AUTO_SUBJECT.test(m.subject)) return 'auto_reply';
  if (m.fromAddress && BOUNCE_SENDER.test(m.fromAddress)) return 'bounce';
  return 'reply';
}

/** A Message-ID as stored: one `<...>` token, surrounding space removed. */
export function normalizeMessageId(value: string): string | null {
  const inner = value.trim().replace(/^<+/, '').replace(/>+$/, '').trim();
  return inner && !/\s/.test(inner) ? `<${inner}>` : null;
}

function idsIn(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  const text = Array.isArray(value) ? value.join(' ') : value;
  return (text.match(/<[^<>\s]+>/g) ?? (text.trim() ? text.trim().split(/\s+/) : [])).flatMap((v) => normalizeMessageId(v) ?? []);
}

/**
 * The Message-IDs a message answers, most specific first: In-Reply-To, then References from the
 * newest (last) to the oldest; each once.
 */
export function threadCandidates(inReplyTo: string | undefined, references: string | string[] | undefined): string[] {
  return [...new Set([...idsIn(inReplyTo), ...idsIn(references).reverse()])];
}

/** The first candidate that is one of ours, in candidate order. */
export function pickThread<T>(candidates: string[], ours: Map<string, T>): T | null {
  for (const id of candidates) {
    const hit = ours.get(id);
    if (hit !== undefined) return hit;
  }
  return null;
}

/**
 * Who a bounce was for: the report's Final-Recipient (else Original-Recipient) fields, or an
 * X-Failed-Recipients header; lower case, each once.
 */
export function bounceRecipients(source: string, headers: Record<string, string>): string[] {
  const found: string[] = [];
  for (const m of source.matchAll(/^(?:Final|Original)-Recipient:\s*rfc822\s*;\s*<?([^\s<>;]+@[^\s<>;]+)>?/gim)) found.push(m[1]);
  for (const part of (headers['x-failed-recipients'] ?? '').split(',')) if (part.includes('@')) found.push(part.trim().replace(/^<|>$/g, ''));
  return [...new Set(found.map((a) => a.toLowerCase()))];
}

/** The server's reason for a bounce: the Diagnostic-Code, else the Status, else a plain statement. */
export function bounceReason(source: string): string {
  const diagnostic = /^Diagnostic-Code:\s*(?:smtp\s*;\s*)?(.+(?:\r?\n[ \t].+)*)/im.exec(source)?.[1];
  if (diagnostic) return clipLine(diagnostic.replace(/\s+/g, ' '), 500);
  const status = /^Status:\s*(\d\.\d+\.\d+)/im.exec(source)?.[1];
  return status ? `Delivery failed (status ${status})` : 'Delivery failed';
}

function clipLine(text: string, max: number): string {
  const t = text.trim();
  return t.length > max ? `${t.slice(0, max)}…` : t;
}

export const REPLY_TEXT_MAX = 20_000;
export const SUBJECT_MAX = 300;

/**
 * The text kept of a message: plain text only (HTML is reduced to text before this), line ends
 * normalised, control characters other than tab and newline removed, trailing blank lines dropped,
 * at most REPLY_TEXT_MAX characters.
 */
export function keptText(text: string | null | undefined, max = REPLY_TEXT_MAX): string | null {
  if (!text) return null;
  const clean = text
    .replace(/\r\n?/g, '\n')
    // Control characters and bidirectional overrides: nothing that can disguise what the text says.
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .replace(/\s+$/, '');
  if (!clean) return null;
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/**
 * An HTML body reduced to text: scripts, styles and the head dropped with their content, block
 * ends and <br> as line breaks, list items as "- ", every other tag removed, entities decoded.
 * Only text is kept of an email, so nothing in it can run.
 */
export function htmlToPlainText(html: string): string {
  return html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(script|style|head|title|noscript|template)\b[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<li\b[^>]*>/gi, '\n- ')
    .replace(/<\/(p|div|h[1-6]|tr|table|blockquote|pre|ul|ol|section|article|header|footer)\s*>/gi, '\n')
    .replace(/<(p|div|h[1-6]|tr|table|blockquote|pre|ul|ol)\b[^>]*>/gi, '\n')
    .replace(/<\/?[a-z!?][^>]*>/gi, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, code: string) => {
      if (code[0] === '#') {
        const n = code[1] === 'x' || code[1] === 'X' ? parseInt(code.slice(2), 16) : parseInt(code.slice(1), 10);
        return n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : '';
      }
      return ENTITIES[code.toLowerCase()] ?? whole;
    })
    .replace(/[ \t\u00a0]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** An invoice number of the customer's that the subject names as a whole word, longest first. */
export function invoiceNumberMentioned(subject: string, invoiceNumbers: string[]): string | null {
  const text = subject.toLowerCase();
  const sorted = [...invoiceNumbers].sort((a, b) => b.length - a.length);
  for (const number of sorted) {
    const n = number.toLowerCase();
    let at = text.indexOf(n);
    while (at !== -1) {
      const before = at === 0 ? '' : text[at - 1];
      const after = text[at + n.length] ?? '';
      if (!/[a-z0-9]/.test(before) && !/[a-z0-9]/.test(after)) return number;
      at = text.indexOf(n, at + 1);
    }
  }
  return null;
}

/** A reply's time: its Date header, unless missing or in the future (then when it was read). */
export function replyTime(date: Date | undefined, now: string): string {
  if (!date || Number.isNaN(date.getTime())) return now;
  const iso = date.toISOString();
  return iso > now ? now : iso;
}

