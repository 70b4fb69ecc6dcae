/**
 * The portal's rules, directly: tokens (shape, hash, constant-time comparison, link states), form
 * tokens, what an attachment may be (by its bytes, not its name), the form parsers' words, the rate
 * limits, and {{portal_link}} in templates.
 */
import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../core/clock';
import { parseAmount, parseContact, parseDispute, parsePaid, parsePromise, paidHoldUntil } from '../../core/portal/forms';
import { PortalLimiter } from '../../core/portal/limits';
import { MAX_UPLOAD_BYTES, safeFileName, sniffUpload, uploadProblem } from '../../core/portal/sniff';
import { formToken, formTokenValid, hashPortalToken, isTokenShape, linkState, newPortalToken, sameDigest } from '../../core/portal/tokens';
import { fillPlaceholder, renderTemplate, templateValues, usesPlaceholder } from '../../core/sequences/templates';
import { portalLine } from '../../renderer/src/settings/portal-words';
import { promiseIn } from '../../core/intelligence/promises';
import { describeCommunication } from '../../renderer/src/customers/communication-words';

describe('portal tokens', () => {
  it('are 256 random bits in base64url, never twice the same, kept as a SHA-256 that compares only equal digests', () => {
    const tokens = new Set(Array.from({ length: 200 }, newPortalToken));
    expect(tokens.size).toBe(200);
    for (const t of tokens) expect(isTokenShape(t)).toBe(true);
    const [a, b] = [...tokens];
    expect(Buffer.from(a, 'base64url')).toHaveLength(32);
    expect(hashPortalToken(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashPortalToken(a)).not.toContain(a);
    expect(sameDigest(hashPortalToken(a), hashPortalToken(a))).toBe(true);
    expect(sameDigest(hashPortalToken(a), hashPortalToken(b))).toBe(false);
    expect(sameDigest('', '')).toBe(false);
    for (const bad of ['', 'short', `${a}x`, `${a.slice(0, 42)}!`, '../../etc/passwd', `${a.slice(0, 42)}=`]) expect(isTokenShape(bad)).toBe(false);
  });

  it('a link is valid until it expires or is revoked, whichever comes first', () => {
    expect(linkState({ expires_at: '2027-01-22T12:00:00.000Z', revoked_at: null }, '2026-11-23T12:00:00.000Z')).toBe('valid');
    expect(linkState({ expires_at: '2026-11-23T12:00:00.000Z', revoked_at: null }, '2026-11-23T12:00:00.000Z')).toBe('expired');
    expect(linkState({ expires_at: '2027-01-22T12:00:00.000Z', revoked_at: '2026-11-20T00:00:00.000Z' }, '2026-11-23T12:00:00.000Z')).toBe('revoked');
  });

  it('a form token is the link’s under the server key: another link’s, another key’s, or none is refused', () => {
    const key = Buffer.alloc(32, 7);
    const t = formToken(key, 'link-1');
    expect(formTokenValid(key, 'link-1', t)).toBe(true);
    expect(formTokenValid(key, 'link-2', t)).toBe(false);
    expect(formTokenValid(Buffer.alloc(32, 8), 'link-1', t)).toBe(false);
    for (const bad of [undefined, '', ['x'], t.slice(1), 'x'.repeat(500)]) expect(formTokenValid(key, 'link-1', bad)).toBe(false);
  });
});

describe('portal attachments', () => {
  const pdf = new TextEncoder().encode('%PDF-1.7\n...');
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]);
  const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]);
  const html = new TextEncoder().encode('<!doctype html><script>alert(1)</script>');

  it('are a PDF, PNG or JPEG by their first bytes, whatever their name says, and at most 10 MB', () => {
    expect([pdf, png, jpeg, html].map(sniffUpload)).toEqual(['application/pdf', 'image/png', 'image/jpeg', null]);
    expect(uploadProblem(html)).toBe('Attach a PDF, PNG or JPEG file.');
    expect(uploadProblem(new Uint8Array(0))).toBe('The file is empty.');
    const big = new Uint8Array(MAX_UPLOAD_BYTES + 1);
    big.set(pdf);
    expect(uploadProblem(big)).toBe('The file is larger than 10 MB.');
    expect(uploadProblem(big.subarray(0, MAX_UPLOAD_BYTES))).toBeNull();
  });

  it('keep a plain name with the extension of their real type', () => {
    expect(safeFileName('../../proof "of" payment.html', 'application/pdf')).toBe('proof of payment.pdf');
    expect(safeFileName('C:\\scans\\delivery note.PNG', 'image/png')).toBe('delivery note.png');
    expect(safeFileName('', 'image/jpeg')).toBe('attachment.jpg');
  });
});

describe('portal forms', () => {
  const today = '2026-11-23';
  const inv = ['0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a', '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6b'];

  it('a promise names invoices and a day from today to a year ahead; the amount is optional', () => {
    expect(parsePromise({ invoice: inv, date: '2026-12-10', amount: '1,250.50' }, today)).toEqual({ ok: true, value: { invoiceIds: inv, date: '2026-12-10', amount: 125_050, message: null } });
    expect(parsePromise({ invoice: inv[0], date: '2026-12-10' }, today)).toMatchObject({ ok: true, value: { invoiceIds: [inv[0]], amount: null } });
    expect(parsePromise({ date: '2026-11-22', amount: 'ten' }, today)).toEqual({
      ok: false,
      problems: { invoice: 'Tick at least one invoice.', date: 'Choose a day from today to a year from now.', amount: 'Type an amount such as 1250.00.' },
    });
    expect(parsePromise({ invoice: inv, date: '2027-02-30' }, today)).toMatchObject({ ok: false, problems: { date: 'Choose a date from the calendar (year-month-day).' } });
  });

  it('a dispute needs a known category and a message; a report of payment a past day and an amount', () => {
    expect(parseDispute({ invoice: inv[0], category: 'damaged', message: 'Two crates arrived broken.' })).toEqual({ ok: true, value: { invoiceIds: [inv[0]], category: 'damaged', message: 'Two crates arrived broken.' } });
    expect(parseDispute({ invoice: inv[0], category: 'constructor', message: ' ' })).toEqual({ ok: false, problems: { category: 'Choose what the question is about.', message: 'Tell us what is wrong.' } });
    expect(parsePaid({ invoice: inv[0], date: '2026-11-20', amount: '$99', reference: 'RF18539007547034' }, today)).toEqual({ ok: true, value: { invoiceIds: [inv[0]], date: '2026-11-20', amount: 9900, reference: 'RF18539007547034' } });
    expect(parsePaid({ invoice: inv[0], date: '2026-11-24' }, today)).toEqual({ ok: false, problems: { date: 'Choose a day in the last year, not after today.', amount: 'Say how much was paid.' } });
    expect(parseAmount('0')).toBe('The amount must be more than zero.');
    expect(paidHoldUntil('2026-11-20', today)).toBe('2026-11-28');
  });

  it('a contact needs a name and a plausible address; text with a NUL is refused', () => {
    expect(parseContact({ name: 'Ann Lee', email: 'ann@tri-county.example' })).toEqual({ ok: true, value: { name: 'Ann Lee', email: 'ann@tri-county.example', phone: null, message: null } });
    expect(parseContact({ name: 'A\u0000', email: 'ann@' })).toEqual({ ok: false, problems: { name: 'Some characters could not be read; type it again.', email: 'Type an email address such as name@example.com.' } });
  });
});

describe('portal rate limits', () => {
  it('count per address (all loopback is one) and per link within a sliding window', () => {
    const clock = fixedClock('2026-11-23T12:00:00.000Z');
    const limiter = new PortalLimiter(clock, { misses: { limit: 3, windowMs: 60_000 }, address: { limit: 100, windowMs: 60_000 }, link: { limit: 2, windowMs: 60_000 }, submissions: { limit: 1, windowMs: 60_000 } });
    expect([1, 2, 3, 4].map(() => limiter.take('misses', '127.0.0.1'))).toEqual([true, true, true, false]);
    expect(limiter.spent('misses', '127.0.0.9')).toBe(true);
    expect(limiter.spent('misses', '203.0.113.5')).toBe(false);
    expect([limiter.take('link', 'a'), limiter.take('link', 'a'), limiter.take('link', 'a'), limiter.take('link', 'b')]).toEqual([true, true, false, true]);
    clock.set('2026-11-23T12:01:00.001Z');
    expect(limiter.spent('misses', '127.0.0.1')).toBe(false);
    expect(limiter.take('link', 'a')).toBe(true);
  });
});

describe('{{portal_link}}', () => {
  const ctx = { customerName: 'Tri-County', contactName: null, companyName: 'Acme', senderName: null, openInvoices: [], invoice: null, currency: 'USD', today: '2026-11-23' };
  const template = 'Hello.{{#portal_link}} Answer us at {{portal_link}}.{{/portal_link}}';

  it('fills the link minted for the email, and drops its section when there is none', () => {
    expect(renderTemplate(template, templateValues({ ...ctx, portalLink: 'https://ar.example/portal/abc' }))).toBe('Hello. Answer us at https://ar.example/portal/abc.');
    expect(renderTemplate(template, templateValues(ctx))).toBe('Hello.');
    expect(usesPlaceholder('portal_link', 'x', template)).toBe(true);
    expect(usesPlaceholder('portal_link', 'Pay at {{payment_link}}')).toBe(false);
    expect(fillPlaceholder(`${template} {{contact_name}}`, 'portal_link', 'https://l')).toBe('Hello. Answer us at https://l. {{contact_name}}');
    expect(fillPlaceholder(template, 'portal_link', '')).toBe('Hello.');
  });
});

describe('Settings’ line on the portal', () => {
  it('says where customers’ links are served, and why a desktop on its own serves none they can open', () => {
    expect(portalLine('server')).toMatch(/^Customer portal: served here\./);
    expect(portalLine('replica')).toMatch(/^Customer portal: served by the team server\./);
    expect(portalLine(null)).toBe('Customer portal: not available to customers. This desktop serves it only on this computer (for a demo); connect to a team server, which serves it to them.');
  });
});

describe('a promise written in the portal', () => {
  it('is what the customer said, not one a collector logged', () => {
    const note = { id: 'c1', invoiceId: 'i1', kind: 'note' as const, subject: "Wrote via the portal: I'll pay on December 10, 2026", body: "I'll pay INV-1 on December 10, 2026.", occurredAt: '2026-11-23T12:00:00.000Z', authorName: 'Tri-County', promiseDate: '2026-12-10', promiseAmount: null, reading: null };
    expect(promiseIn({ ...note, direction: 'inbound' })).toMatchObject({ date: '2026-12-10', logged: false, sentence: "I'll pay INV-1 on December 10, 2026." });
    expect(promiseIn({ ...note, direction: 'internal' })).toMatchObject({ logged: true });
  });
});

describe('the timeline’s words for a portal submission', () => {
  it('says it came via the portal, until when it holds reminders, and what was attached', () => {
    const c = { kind: 'note', direction: 'inbound', subject: 'Wrote via the portal: questions INV-1 (damaged goods)', author_name: 'Tri-County', promise_date: '2026-12-10', promise_amount: null, currency: 'USD', attachments: [{ name: 'crates.png', size: 2048 }] };
    expect(describeCommunication(c as unknown as Parameters<typeof describeCommunication>[0])).toEqual({
      kind: 'Via the portal',
      isReply: false,
      title: 'Wrote via the portal: questions INV-1 (damaged goods)',
      lines: [expect.stringMatching(/^Holds reminders until /), 'Attached: crates.png (2 KB)', 'Written by Tri-County'],
    });
  });
});
