import { describe, expect, it } from 'vitest';
import { describeInsight, evidenceLine, feedOrder, inWords, onePerKind, signalLine } from '../../renderer/src/insights/describe';
import type { Schemas } from '../../renderer/src/api/client';
import { describeCommunication } from '../../renderer/src/customers/communication-words';
import { readingWords } from '../../renderer/src/customers/reading-words';
import { buildMapping, fieldsFor, missingFields, requirement } from '../../renderer/src/settings/import-mapping';
import { describeReplyRead, replyReadProgress } from '../../renderer/src/settings/reply-read';
import { SAMPLE_PAYLOADS } from '../support/actions-fixtures';
import { reminderWhen } from '../../renderer/src/desk/reminder-words';

describe('insights in words (renderer/src/insights/describe)', () => {
  it('never shows JSON for any insight type the spec defines', () => {
    for (const [type, payload] of Object.entries(SAMPLE_PAYLOADS)) {
      const words = describeInsight({ insight_type: type, payload_json: payload as Record<string, unknown> });
      const text = [words.kind, words.title, ...words.lines].join(' ');
      expect(text, type).not.toMatch(/[{}[\]]/);
      expect(words.title, type).not.toBe('');
    }
  });

  it('says the predicted date, its basis and the alternatives with their likelihood', () => {
    const w = describeInsight({ insight_type: 'invoice_pay_date_prediction', payload_json: SAMPLE_PAYLOADS.invoice_pay_date_prediction });
    expect(w.title).toBe('Expected to be paid on Dec 5, 2026');
    expect(w.lines).toContain('Based on a promise to pay');
    expect(w.lines).toContain('Otherwise: Dec 15, 2026 (20% likely)');
  });

  it('takes the severity of a signal and explains a null signal by its reason', () => {
    const high = describeInsight({ insight_type: 'customer_signal', payload_json: { entity: {}, signal: { title: 'Gone quiet', severity: 'high', description: 'No reply in 21 days' } } });
    expect(high).toMatchObject({ severity: 'high', title: 'Gone quiet', lines: ['No reply in 21 days'] });
    const none = describeInsight({ insight_type: 'invoice_signal', payload_json: SAMPLE_PAYLOADS.invoice_signal });
    expect(none).toMatchObject({ severity: null, title: 'No change worth acting on', lines: ['Why: No material change since the last review'] });
  });

  it('says so when there has been no conversation with a customer, rather than an unknown tone', () => {
    const payload = { summary: '', tone: 'unknown', active_court: 'AR', action: null, action_breakdown: {}, last_touch: {}, commitment_date: null, predicted_pay_date: null, evidence_trace: null, unrelated_items: [] };
    expect(describeInsight({ insight_type: 'customer_conversation_summary', payload_json: payload })).toMatchObject({ title: 'No conversation with this customer yet', lines: ['Ball is with: AR'] });
  });

  it('reads evidence items and drops malformed ones', () => {
    const w = describeInsight({
      insight_type: 'portfolio_signal',
      payload_json: SAMPLE_PAYLOADS.portfolio_signal,
      evidence: [{ fact: 'Days since last reply', value: 21, source: 'communications', ref: { type: 'customer', id: 'x' } }, { value: 3 }, 'text'],
    });
    expect(w.evidence).toHaveLength(1);
    expect(evidenceLine(w.evidence[0])).toBe('Days since last reply: 21 (communications)');
  });

  it('orders the feed most severe first, then newest', () => {
    const item = (id: string, severity: 'high' | 'low' | null, valid_from: string) => ({ id, valid_from, words: { kind: '', title: '', lines: [], evidence: [], severity } });
    const ordered = feedOrder([item('a', null, '2026-11-22'), item('b', 'low', '2026-11-20'), item('c', 'high', '2026-11-01'), item('d', 'low', '2026-11-21')]);
    expect(ordered.map((i) => i.id)).toEqual(['c', 'd', 'b', 'a']);
  });

  it('keeps one card per kind, the first in feed order', () => {
    const kinds = onePerKind([
      { id: 'a', insight_type: 'invoice_signal' },
      { id: 'b', insight_type: 'customer_signal' },
      { id: 'c', insight_type: 'invoice_signal' },
      { id: 'd', insight_type: 'invoice_pay_date_prediction' },
    ]);
    expect(kinds.map((i) => i.id)).toEqual(['a', 'b', 'd']);
  });

  it('says why a late invoice has no pay date, and its chance within 90 days', () => {
    const words = describeInsight({
      insight_type: 'invoice_pay_date_prediction',
      payload_json: { predicted_date: null, basis: 'historical', alternative_scenarios: [], collectible_90d: 0.12, reason: 'Invoices this late were paid within 90 days 12% of the time; no reliable date' },
    });
    expect(words.title).toBe('No reliable pay date');
    expect(words.lines.slice(0, 2)).toEqual(['Invoices this late were paid within 90 days 12% of the time; no reliable date', 'Chance of payment within 90 days: 12%']);
  });

  it("says an invoice's signal by its title, severity and since when, never as JSON", () => {
    const ref = { insight_id: 'i', insight_type: 'invoice_signal', detected_at: '2026-11-23T06:00:00.000Z' };
    expect(signalLine({ ...ref, signal: { type: 'newly_past_due', severity: 'medium', title: 'Newly past due', detected_at: '2026-11-17' } })).toBe('Newly past due (medium), since Nov 17, 2026');
    expect(signalLine({ ...ref, signal: { type: 'broken_promise' } })).toBe('Broken promise, since Nov 23, 2026');
    expect(signalLine({ ...ref, signal: {} })).toBe('Invoice signal, since Nov 23, 2026');
  });

  it('writes dates as dates and nested values as words', () => {
    expect(inWords('2026-11-30')).toBe('Nov 30, 2026');
    // Inside the engine's sentences too, but not inside invoice numbers or timestamps.
    expect(inWords('INV-7 was due 2026-11-21 and is now 1-30 days past due.')).toBe('INV-7 was due Nov 21, 2026 and is now 1-30 days past due.');
    expect(inWords('Invoice INV-2026-11-21 (logged 2026-11-21T10:00:00Z)')).toBe('Invoice INV-2026-11-21 (logged 2026-11-21T10:00:00Z)');
    expect(inWords({ open_balance: 12.5, days_quiet: 3 })).toBe('Open balance: 12.5, Days quiet: 3');
    expect(inWords(['a', null, 'b'])).toBe('a; b');
  });
});

describe('import wizard mapping (renderer/src/settings/import-mapping)', () => {
  it('offers per entity the fields an import reads, without the cross-references a combined row cannot use', () => {
    const combined = fieldsFor('ar-rows');
    expect(combined.map((s) => s.section)).toEqual(['customers', 'invoices', 'payments']);
    expect(combined[1].fields).not.toContain('customer_name');
    expect(combined[2].fields).not.toContain('invoice_number');
    expect(fieldsFor('invoices')[0].fields).toContain('customer_name');
  });

  it('marks the required fields and says in words which are still missing', () => {
    const choice = { entity: 'ar-rows' as const, columns: { 'customers.remote_id': 'ID', 'invoices.invoice_number': 'Nr' }, date: 'M/D/YYYY' as const, decimal: '.' as const, valueMaps: [] };
    expect(requirement(choice, 'invoices.invoice_date')).toBe('required');
    expect(requirement(choice, 'customers.name')).toBe('one-of');
    expect(requirement(choice, 'invoices.due_date')).toBeNull();
    expect(requirement(choice, 'payments.amount')).toBeNull();
    expect(missingFields(choice)).toEqual(['Invoice date', 'Total amount']);
    // A payment column makes the payment's amount and date required too.
    const paid = { ...choice, columns: { ...choice.columns, 'payments.payment_method': 'How' } };
    expect(requirement(paid, 'payments.amount')).toBe('required');
    expect(missingFields({ ...paid, entity: 'customers', columns: {} })).toEqual(['Customer ID or Customer name']);
    expect(buildMapping(choice)).toEqual({ entity: 'ar-rows', formats: { date: 'M/D/YYYY', decimal: '.' }, customers: { remote_id: 'ID' }, invoices: { invoice_number: 'Nr' } });
  });
});

describe('a reading of replies in words (renderer/src/settings/reply-read)', () => {
  const tally = { mailbox: 'INBOX', uid_validity: '7', last_uid: 12, uid_validity_changed: false, read: 0, replies: 0, auto_replies: 0, bounces: 0, unmatched: 0, duplicates: 0, enrollments_paused: 0 };

  it('says what was read, what counted as a reply and which sequences paused', () => {
    expect(describeReplyRead(tally)).toBe('No new mail in INBOX.');
    expect(describeReplyRead({ ...tally, read: 4, replies: 1, auto_replies: 1, bounces: 1, unmatched: 1, enrollments_paused: 1 })).toBe(
      'Read 4 messages in INBOX: 1 reply from customers recorded, 1 automatic reply ignored, 1 bounce (the address is marked as failing), 1 message not from a known customer. 1 sequence paused by what the customer wrote.',
    );
    expect(describeReplyRead({ ...tally, read: 2, replies: 0, duplicates: 2, uid_validity_changed: true })).toBe(
      'Read 2 messages in INBOX: 0 replies from customers recorded, 2 replies already recorded. The mailbox was renumbered by the server, so it was read again from the start.',
    );
    expect(describeReplyRead({ skipped: 'The connection has no IMAP server' })).toBe('Nothing read: the connection has no IMAP server.');
  });

  it('follows the job until it succeeded or failed, with the reason of a failure', () => {
    expect(replyReadProgress({ status: 'queued', last_error: null, result: null })).toMatchObject({ done: false });
    expect(replyReadProgress({ status: 'running', last_error: null, result: null })).toMatchObject({ done: false, text: 'Reading the mailbox…' });
    expect(replyReadProgress({ status: 'succeeded', last_error: null, result: { ...tally, read: 1, unmatched: 1 } })).toEqual({
      done: true,
      ok: true,
      text: 'Read 1 message in INBOX: 0 replies from customers recorded, 1 message not from a known customer.',
    });
    expect(replyReadProgress({ status: 'failed', last_error: 'The IMAP server refused the user name or password', result: null })).toEqual({
      done: true,
      ok: false,
      text: 'Reading replies failed: The IMAP server refused the user name or password',
    });
  });
});

describe('the customer timeline in words (renderer/src/customers/communication-words)', () => {
  const base: Omit<Schemas['Communication'], 'kind' | 'direction'> = {
    id: 'c1',
    customer: 'u1',
    customer_name: 'Globex',
    invoice: null,
    invoice_number: null,
    outcome: null,
    subject: null,
    body: null,
    promise_date: null,
    promise_amount: null,
    currency: 'USD',
    occurred_at: '2026-11-20T10:00:00.000Z',
    author_user_id: null,
    author_name: null,
    from_email: null,
    attachments: [],
    email_connection_id: null,
    thread_id: null,
    created_at: '2026-11-20T10:00:00.000Z',
    reading: null,
  };

  it('marks an email received as a reply, with its sender and attachments', () => {
    const words = describeCommunication({
      ...base,
      kind: 'email',
      direction: 'inbound',
      subject: 'Re: Invoice 1042',
      author_name: 'Pat Payables',
      from_email: 'pat@globex.test',
      attachments: [{ name: 'remittance.pdf', size: 24_576 }],
    });
    expect(words).toEqual({ kind: 'Reply received', isReply: true, title: 'Re: Invoice 1042', lines: ['From Pat Payables <pat@globex.test>', 'Attached: remittance.pdf (24 KB)'] });
  });

  it('says a call by its outcome and promise, and never shows codes', () => {
    const call = describeCommunication({ ...base, kind: 'call', direction: 'outbound', outcome: 'promised_to_pay', promise_date: '2026-12-05', promise_amount: 1250, author_name: 'Alice' });
    expect(call.isReply).toBe(false);
    expect(call.kind).toBe('Call');
    expect(call.title).toBe('Promised to pay');
    expect(call.lines[0]).toMatch(/^Promised \$1,250\.00 by Dec 5, 2026$/);
    expect(describeCommunication({ ...base, kind: 'call', direction: 'inbound', outcome: 'disputed' })).toMatchObject({ kind: 'The customer called', title: 'Disputes the invoice' });
    expect(describeCommunication({ ...base, kind: 'email', direction: 'outbound', subject: 'Reminder' })).toMatchObject({ kind: 'Email sent', isReply: false, title: 'Reminder' });
    expect(describeCommunication({ ...base, kind: 'note', direction: 'internal', body: 'Asked for a PO' })).toMatchObject({ kind: 'Note', title: 'Note' });
  });
});

describe('a reminder in words (renderer/src/desk/reminder-words)', () => {
  const base = { attempts: 0, max_attempts: 5, next_attempt_at: null, queued_at: '2026-11-20T09:00:00.000Z', sent_at: null };
  it('says a reminder that failed every try failed, never that it is queued', () => {
    const failed = reminderWhen({ ...base, status: 'failed', attempts: 5 });
    expect(failed).toMatch(/^Not sent: failed 5 of 5 tries/);
    expect(failed).not.toMatch(/^Queued/);
  });
  it('says when the next try is, and when it was sent', () => {
    expect(reminderWhen({ ...base, status: 'queued', attempts: 2, next_attempt_at: '2026-11-20T10:00:00.000Z' })).toMatch(/^Try 3 of 5 at /);
    expect(reminderWhen({ ...base, status: 'queued' })).toMatch(/^Queued /);
    expect(reminderWhen({ ...base, status: 'sent', attempts: 1, sent_at: '2026-11-20T09:01:00.000Z' })).toMatch(/^Sent /);
  });
});

describe('a reply’s reading in words (renderer/src/customers/reading-words)', () => {
  const reading = { kind: 'none' as const, promise_date: null, promise_amount: null, sentence: null, automatic: true, corrected_by: null, corrected_at: null };
  it('says what ardesk read, a dispute being only possible until a person says so', () => {
    expect(readingWords({ ...reading, kind: 'promise', promise_date: '2027-01-08' }, 'USD')).toBe('Promise to pay by Jan 8, 2027');
    expect(readingWords({ ...reading, kind: 'promise', promise_amount: 980 }, 'USD')).toBe('Promise to pay $980.00, no date given');
    expect(readingWords({ ...reading, kind: 'dispute' }, 'USD')).toBe('A possible dispute');
    expect(readingWords({ ...reading, kind: 'dispute', automatic: false }, 'USD')).toBe('A dispute');
    expect(readingWords({ ...reading, kind: 'needs_answer' }, 'USD')).toBe('A question that needs an answer');
    expect(readingWords(reading, 'USD')).toBe('Nothing to act on');
  });
});
