import { describe, expect, it } from 'vitest';
import { loggedFieldErrors } from '../../core/communications/rules';
import { describeMailError } from '../../core/email/diagnose';
import {
  bounceReason,
  bounceRecipients,
  classifyMessage,
  htmlToPlainText,
  invoiceNumberMentioned,
  keptText,
  normalizeMessageId,
  pickThread,
  replyTime,
  threadCandidates,
} from '../../core/replies/rules';
import { holdReason } from '../../core/sequences/queue';

const msg = (headers: Record<string, string>, subject = 'Re: Invoice INV-1', fromAddress: string | null = 'ap@customer.test') => ({ headers, subject, fromAddress });

describe('classifying a received message', () => {
  it('a person writing back is a reply', () => {
    expect(classifyMessage(msg({}))).toBe('reply');
    expect(classifyMessage(msg({ 'auto-submitted': 'no' }))).toBe('reply');
    expect(classifyMessage(msg({ 'x-auto-response-suppress': 'All' }))).toBe('reply');
    expect(classifyMessage(msg({ precedence: 'first-class' }))).toBe('reply');
  });
  it('automatic answers are not replies', () => {
    expect(classifyMessage(msg({ 'auto-submitted': 'auto-replied' }))).toBe('auto_reply');
    expect(classifyMessage(msg({ 'auto-submitted': 'auto-generated' }))).toBe('auto_reply');
    expect(classifyMessage(msg({ 'x-autoreply': 'yes' }))).toBe('auto_reply');
    expect(classifyMessage(msg({ 'x-autorespond': '' }))).toBe('auto_reply');
    for (const p of ['auto_reply', 'bulk', 'junk', 'list', ' Bulk ']) expect(classifyMessage(msg({ precedence: p }))).toBe('auto_reply');
    for (const s of ['Automatic reply: Invoice', 'Out of Office: back Monday', 'Auto-Reply: away', 'AUTOREPLY', 'Out of the office']) expect(classifyMessage(msg({}, s))).toBe('auto_reply');
    expect(classifyMessage(msg({}, 'Re: out of office supplies invoice'))).toBe('reply');
  });
  it('delivery reports and mailer-daemon failures are bounces', () => {
    expect(classifyMessage(msg({ 'content-type': 'multipart/report; report-type=delivery-status; boundary="x"' }))).toBe('bounce');
    expect(classifyMessage(msg({ 'content-type': 'multipart/report; report-type="delivery-status"' }))).toBe('bounce');
    expect(classifyMessage(msg({}, 'Undelivered Mail Returned to Sender', 'mailer-daemon@mx.test'))).toBe('bounce');
    expect(classifyMessage(msg({}, 'Delivery Status Notification (Failure)', 'postmaster@mx.test'))).toBe('bounce');
    // A read receipt is a report, but not of a delivery failure.
    expect(classifyMessage(msg({ 'content-type': 'multipart/report; report-type=disposition-notification' }))).toBe('reply');
  });
});

describe('threading', () => {
  it('normalises Message-IDs', () => {
    expect(normalizeMessageId(' <a@b> ')).toBe('<a@b>');
    expect(normalizeMessageId('a@b')).toBe('<a@b>');
    expect(normalizeMessageId('<>')).toBeNull();
    expect(normalizeMessageId('<a b@c>')).toBeNull();
  });
  it('tries In-Reply-To first, then References newest first, each once', () => {
    expect(threadCandidates('<c@x>', '<a@x> <b@x>\r\n <c@x>')).toEqual(['<c@x>', '<b@x>', '<a@x>']);
    expect(threadCandidates(undefined, ['<a@x>', '<b@x>'])).toEqual(['<b@x>', '<a@x>']);
    expect(threadCandidates('c@x', undefined)).toEqual(['<c@x>']);
    expect(threadCandidates(undefined, undefined)).toEqual([]);
  });
  it('picks the first candidate that is ours', () => {
    const ours = new Map([
      ['<a@x>', 'first email'],
      ['<b@x>', 'follow-up'],
    ]);
    expect(pickThread(['<z@x>', '<b@x>', '<a@x>'], ours)).toBe('follow-up');
    expect(pickThread(['<z@x>'], ours)).toBeNull();
  });
  it('finds an invoice number named as a whole word, longest first', () => {
    expect(invoiceNumberMentioned('Re: about INV-10 and more', ['INV-1', 'INV-10'])).toBe('INV-10');
    expect(invoiceNumberMentioned('Re: inv-1 paid', ['INV-1', 'INV-10'])).toBe('INV-1');
    expect(invoiceNumberMentioned('Re: INV-100', ['INV-1', 'INV-10'])).toBeNull();
  });
  it('dates a reply by its Date header unless missing or in the future', () => {
    const now = '2026-11-23T12:00:00.000Z';
    expect(replyTime(new Date('2026-11-23T10:00:00Z'), now)).toBe('2026-11-23T10:00:00.000Z');
    expect(replyTime(new Date('2027-01-01T00:00:00Z'), now)).toBe(now);
    expect(replyTime(undefined, now)).toBe(now);
    expect(replyTime(new Date('nonsense'), now)).toBe(now);
  });
});

describe('bounces', () => {
  const report = 'Reporting-MTA: dns; mx\r\n\r\nFinal-Recipient: rfc822; AP@Globex.test\r\nAction: failed\r\nStatus: 5.1.1\r\nDiagnostic-Code: smtp; 550 5.1.1 User unknown\r\n  in virtual table\r\n';
  it('names the failed recipients', () => {
    expect(bounceRecipients(report, {})).toEqual(['ap@globex.test']);
    expect(bounceRecipients('', { 'x-failed-recipients': 'a@x.test, <b@x.test>' })).toEqual(['a@x.test', 'b@x.test']);
    expect(bounceRecipients('Final-Recipient: rfc822;<c@x.test>\nOriginal-Recipient: rfc822; c@x.test', {})).toEqual(['c@x.test']);
  });
  it("gives the server's reason", () => {
    expect(bounceReason(report)).toBe('550 5.1.1 User unknown in virtual table');
    expect(bounceReason('Status: 5.2.2\n')).toBe('Delivery failed (status 5.2.2)');
    expect(bounceReason('')).toBe('Delivery failed');
  });
});

describe('what is kept of a message', () => {
  it('reduces HTML to text, dropping scripts and styles with their content', () => {
    const html = '<html><head><title>T</title><style>p{color:red}</style></head><body><p>Hello&nbsp;<b>there</b> &amp; &#8364;5 &#x41;</p><script>alert(1)</script><ul><li>one</li><li>two</li></ul>Line<br>break<!-- hidden --></body></html>';
    expect(htmlToPlainText(html)).toBe('Hello there & €5 A\n\n- one\n- two\nLine\nbreak');
    expect(htmlToPlainText('<img src=x onerror="alert(1)">ok')).toBe('ok');
  });
  it('keeps plain text without control characters or direction overrides, within a limit', () => {
    expect(keptText('a\r\nb\u0007c\u202Ed  \n\n')).toBe('a\nbcd');
    expect(keptText('   ')).toBeNull();
    expect(keptText(null)).toBeNull();
    expect(keptText('abcdef', 3)).toBe('abc…');
  });
});

describe('mail server failures in words', () => {
  const imap = { protocol: 'IMAP' as const, host: 'mail.test', port: 993 };
  it('says what failed', () => {
    expect(describeMailError({ authenticationFailed: true, responseText: 'Authentication failed.' }, imap, 15)).toBe('The IMAP server refused the username or password');
    expect(describeMailError({ code: 'EAUTH', response: '535 Invalid' }, { ...imap, protocol: 'SMTP' }, 10)).toBe('The SMTP server refused the username or password');
    expect(describeMailError({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' }, imap, 15)).toBe('Nothing answers at mail.test:993: the connection was refused (check the IMAP host and port)');
    expect(describeMailError({ code: 'ETIMEOUT', message: 'Socket timeout' }, imap, 15)).toBe('No answer from mail.test:993 within 15 seconds (check the IMAP host, port and firewall)');
    expect(describeMailError({ code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND mail.test' }, imap, 15)).toBe('The IMAP host "mail.test" was not found');
    expect(describeMailError({ code: 'ERR_SSL_WRONG_VERSION_NUMBER', message: 'wrong version number' }, imap, 15)).toMatch(/^The secure \(TLS\) connection to mail.test:993 failed/);
    expect(describeMailError('boom', imap, 15)).toBe('mail.test:993 did not answer as an IMAP server should (check the host, the port and the TLS setting)');
    // What the remote end says is never repeated: the test button must not read other services.
    const banner = { code: 'EPROTOCOL', message: 'Invalid greeting. response=SSH-2.0-OpenSSH_9.9 INTERNAL-SECRET-BANNER', response: 'SSH-2.0-OpenSSH_9.9 INTERNAL-SECRET-BANNER' };
    expect(describeMailError(banner, { ...imap, protocol: 'SMTP', port: 22 }, 10)).toBe('mail.test:22 did not answer as an SMTP server should (check the host, the port and the TLS setting)');
    expect(describeMailError({ authenticationFailed: true, responseText: 'NO [SECRET] internal text' }, imap, 15)).not.toMatch(/SECRET/);
  });
});

describe('logged calls and notes', () => {
  const now = '2026-11-23T12:00:00.000Z';
  const call = { kind: 'call' as const, outcome: null, body: null, promise_date: null, promise_amount: null, occurred_at: now };
  it('accepts a plain call and a promise with its date', () => {
    expect(loggedFieldErrors(call, now)).toEqual({});
    expect(loggedFieldErrors({ ...call, outcome: 'promised_to_pay', promise_date: '2026-11-23', promise_amount: 100 }, now)).toEqual({});
  });
  it('refuses what does not fit', () => {
    expect(Object.keys(loggedFieldErrors({ ...call, kind: 'note' }, now))).toEqual(['body']);
    expect(Object.keys(loggedFieldErrors({ ...call, kind: 'note', body: 'x', outcome: 'reached' }, now))).toEqual(['outcome']);
    expect(Object.keys(loggedFieldErrors({ ...call, outcome: 'promised_to_pay' }, now))).toEqual(['promise_date']);
    expect(Object.keys(loggedFieldErrors({ ...call, outcome: 'reached', promise_amount: 5 }, now))).toEqual(['promise_amount']);
    expect(Object.keys(loggedFieldErrors({ ...call, outcome: 'promised_to_pay', promise_date: '2026-11-22' }, now))).toEqual(['promise_date']);
    expect(Object.keys(loggedFieldErrors({ ...call, occurred_at: '2026-11-23T12:06:00.000Z' }, now))).toEqual(['occurred_at']);
    expect(loggedFieldErrors({ ...call, occurred_at: '2026-11-23T12:04:00.000Z' }, now)).toEqual({});
  });
});

describe('queue hold reasons', () => {
  const now = '2026-11-23T12:00:00.000Z';
  it('names why a step is not going out', () => {
    expect(holdReason({ step_type: 'reminder', status: 'scheduled', scheduled_at: '2026-11-23T09:00:00.000Z', stop_reason: null, paused_kind: null, cancel_reason: null }, now)).toBe('recent_contact');
    expect(holdReason({ step_type: 'reminder', status: 'scheduled', scheduled_at: '2026-11-24T09:00:00.000Z', stop_reason: null, paused_kind: null, cancel_reason: null }, now)).toBeNull();
    expect(holdReason({ step_type: 'call', status: 'scheduled', scheduled_at: '2026-11-23T09:00:00.000Z', stop_reason: null, paused_kind: null, cancel_reason: null }, now)).toBeNull();
    expect(holdReason({ step_type: 'reminder', status: 'cancelled', scheduled_at: '2026-11-24T09:00:00.000Z', stop_reason: 'replied', paused_kind: null, cancel_reason: null }, now)).toBe('replied');
    expect(holdReason({ step_type: 'reminder', status: 'cancelled', scheduled_at: '2026-11-24T09:00:00.000Z', stop_reason: 'stopped', paused_kind: null, cancel_reason: null }, now)).toBeNull();
    expect(holdReason({ step_type: 'call', status: 'ready', scheduled_at: '2026-11-23T09:00:00.000Z', stop_reason: null, paused_kind: 'promise', cancel_reason: null }, now)).toBe('paused');
    expect(holdReason({ step_type: 'reminder', status: 'cancelled', scheduled_at: '2026-11-23T09:00:00.000Z', stop_reason: null, paused_kind: 'promise', cancel_reason: 'skipped' }, now)).toBe('skipped');
  });
});
