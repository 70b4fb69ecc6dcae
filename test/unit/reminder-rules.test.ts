import { describe, expect, it } from 'vitest';
import { reminderMessage } from '../../core/http/routes/reminders';
import { reminderStatus } from '../../core/reminders/history';
import { classifySendError, jobMessageId } from '../../core/email/outbox';
import { reminderKey } from '../../core/reminders/queue';
import { type ReminderTarget, reminderBlockers } from '../../core/reminders/targets';

/** Errors shaped as nodemailer reports them (code, originalCode, responseCode, timeoutType). */
function smtpError(fields: Record<string, unknown>): Error {
  return Object.assign(new Error('smtp failure'), fields);
}

describe('classifySendError', () => {
  it('treats a negative server reply as not delivered: 4xx retries, 5xx does not', () => {
    expect(classifySendError(smtpError({ code: 'EENVELOPE', responseCode: 451, command: 'RCPT TO' }))).toEqual({ delivered: false, retry: true });
    expect(classifySendError(smtpError({ code: 'EENVELOPE', responseCode: 550, command: 'RCPT TO' }))).toEqual({ delivered: false, retry: false });
    expect(classifySendError(smtpError({ code: 'EMESSAGE', responseCode: 554, command: 'DATA' }))).toEqual({ delivered: false, retry: false });
    expect(classifySendError(smtpError({ code: 'EAUTH', responseCode: 535, command: 'AUTH PLAIN' }))).toEqual({ delivered: false, retry: false });
  });

  it('treats a failure before the session as not delivered, to be retried', () => {
    expect(classifySendError(smtpError({ code: 'ESOCKET', originalCode: 'ECONNREFUSED', command: 'CONN' }))).toEqual({ delivered: false, retry: true });
    expect(classifySendError(smtpError({ code: 'EDNS', originalCode: 'ENOTFOUND' }))).toEqual({ delivered: false, retry: true });
    expect(classifySendError(smtpError({ code: 'ETIMEDOUT', timeoutType: 'GREETING_TIMEOUT', command: 'CONN' }))).toEqual({ delivered: false, retry: true });
    expect(classifySendError(smtpError({ code: 'ETLS' }))).toEqual({ delivered: false, retry: true });
    expect(classifySendError(smtpError({ code: 'ENOAUTH' }))).toEqual({ delivered: false, retry: false });
  });

  it('treats a connection lost mid-session as an unknown outcome', () => {
    expect(classifySendError(smtpError({ code: 'ECONNECTION', command: 'CONN' }))).toEqual({ delivered: 'unknown' });
    expect(classifySendError(smtpError({ code: 'ETIMEDOUT', timeoutType: 'SOCKET_TIMEOUT', command: 'CONN' }))).toEqual({ delivered: 'unknown' });
    expect(classifySendError(smtpError({ code: 'ESOCKET', originalCode: 'ECONNRESET', command: 'CONN' }))).toEqual({ delivered: 'unknown' });
    expect(classifySendError(new Error('something else'))).toEqual({ delivered: 'unknown' });
  });
});

describe('reminder identifiers', () => {
  it('keys a reminder by invoice and day', () => {
    expect(reminderKey('0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a', '2026-11-23')).toBe('invoice_reminder:0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a:2026-11-23');
  });

  it('derives the Message-ID from the job, in the sender\'s domain', () => {
    expect(jobMessageId('job-1', 'ar@acme.example')).toBe('<reminder.job-1@acme.example>');
    expect(jobMessageId('job-1', 'not an address')).toBe('<reminder.job-1@ardesk.invalid>');
  });
});

function target(id: string, fields: Partial<ReminderTarget> = {}): ReminderTarget {
  return {
    invoiceId: id,
    invoiceNumber: `INV-${id}`,
    invoiceDate: '2026-10-01',
    dueDate: '2026-10-31',
    currency: 'USD',
    totalAmount: 100,
    paidAmount: 0,
    balance: 100,
    closingReason: null,
    paymentLink: null,
    customerId: 'c',
    customerName: 'Borealis',
    contactName: 'Pat',
    billingEmail: 'pat@borealis.example',
    ...fields,
  };
}

describe('reminderBlockers', () => {
  it('is empty when every invoice can be reminded', () => {
    expect(reminderBlockers(['a', 'b'], new Map([['a', target('a')], ['b', target('b')]]))).toEqual([]);
  });

  it('names the unknown, the closed and the unreachable invoices, one message each', () => {
    const found = new Map([
      ['a', target('a')],
      ['b', target('b', { closingReason: 'paid' })],
      ['c', target('c', { billingEmail: null })],
      ['d', target('d', { closingReason: 'written_off', billingEmail: null })],
    ]);
    expect(reminderBlockers(['a', 'b', 'c', 'd', 'x', 'y'], found)).toEqual([
      'Unknown invoice ids: x, y',
      'Closed invoices get no reminder: b, d',
      'No billing contact email for the customer of invoices: c',
    ]);
  });
});

describe('reminderMessage', () => {
  it('says how many were queued and how many already had one', () => {
    expect(reminderMessage(1, 0)).toBe('1 reminder queued.');
    expect(reminderMessage(3, 0)).toBe('3 reminders queued.');
    expect(reminderMessage(2, 1)).toBe('2 reminders queued; 1 invoice already has a reminder queued or sent today.');
    expect(reminderMessage(0, 2)).toBe('0 reminders queued; 2 invoices already have a reminder queued or sent today.');
  });
});

describe('a reminder as a collector sees it', () => {
  it('follows the job: succeeded is sent, failed is failed whatever the email said', () => {
    expect(reminderStatus('succeeded', 'sent')).toBe('sent');
    expect(reminderStatus('failed', 'unknown')).toBe('failed');
    expect(reminderStatus('failed', 'not_sent')).toBe('failed');
    expect(reminderStatus('failed', null)).toBe('failed');
  });

  it('is running while a worker holds it or its email is mid-send, else queued', () => {
    expect(reminderStatus('running', null)).toBe('running');
    expect(reminderStatus('queued', 'sending')).toBe('running');
    expect(reminderStatus('queued', null)).toBe('queued');
    expect(reminderStatus('queued', 'not_sent')).toBe('queued');
  });
});
