import { describe, expect, it } from 'vitest';
import { deliveryOf } from '../../core/actions/delivery';
import { sendFailureWords } from '../../core/actions/send';
import { MailDeliveryError } from '../../core/email/diagnose';
import { baseTrigger, isSuperseded, supersedeReason } from '../../core/supersede/withdraw';

const on = (invoiceId: string | null, triggerKey: string | null = null) => ({ invoiceId, actionType: 'email' as const, triggerKey });

describe('what a fact supersedes', () => {
  it('a promise or payment on an invoice withdraws that invoice’s proposals only; on the account, all of them', () => {
    const promise = { kind: 'promise' as const, customerId: 'c', invoiceId: 'i1', date: '2026-12-04' };
    expect(isSuperseded(promise, on('i1'))).toBe(true);
    expect(isSuperseded(promise, on('i2'))).toBe(false);
    expect(isSuperseded(promise, on(null))).toBe(false);
    expect(isSuperseded({ ...promise, invoiceId: null }, on('i2'))).toBe(true);
    const payment = { kind: 'payment' as const, customerId: 'c', invoiceId: 'i1', paidInFull: false, on: '2026-11-23' };
    expect(isSuperseded(payment, on('i1'))).toBe(true);
    expect(isSuperseded(payment, on(null))).toBe(false);
  });

  it('a reply withdraws everything but the answer to that reply', () => {
    const reply = { kind: 'reply' as const, customerId: 'c', communicationId: 'm1', on: '2026-11-23' };
    expect(isSuperseded(reply, on('i1', 'past_due_no_touch:i1:1_30'))).toBe(true);
    expect(isSuperseded(reply, on(null, 'reply_received:m0'))).toBe(true);
    expect(isSuperseded(reply, on(null, 'reply_received:m1'))).toBe(false);
    expect(isSuperseded(reply, on(null, 'reply_received:m1:alt:call'))).toBe(false);
  });

  it('says why in words', () => {
    expect(supersedeReason({ kind: 'promise', customerId: 'c', invoiceId: 'i', date: '2026-12-04' })).toBe('superseded: promise to pay on record for December 4, 2026');
    expect(supersedeReason({ kind: 'payment', customerId: 'c', invoiceId: 'i', paidInFull: true, on: '2026-11-22' })).toBe('superseded: paid in full on November 22, 2026');
  });

  it('an alternative belongs to its recommendation’s trigger', () => {
    expect(baseTrigger('past_due_no_touch:abc:31_60:alt:call')).toBe('past_due_no_touch:abc:31_60');
    expect(baseTrigger('past_due_no_touch:abc:31_60')).toBe('past_due_no_touch:abc:31_60');
    expect(baseTrigger(null)).toBeNull();
  });
});

describe('an approved email’s delivery in words', () => {
  const job = (status: 'queued' | 'running' | 'succeeded' | 'failed', last_error: string | null = null) => ({ status, last_error, run_after: '2026-11-23T12:01:00.000Z' });
  it('a failed try that will run again is already failed, with when', () => {
    expect(deliveryOf(job('queued', 'down'), { status: 'not_sent', to_email: 'a@b', sent_at: null })).toMatchObject({ status: 'failed', error: 'down', next_attempt_at: '2026-11-23T12:01:00.000Z' });
    expect(deliveryOf(job('failed', 'down'), null)).toMatchObject({ status: 'failed', next_attempt_at: null });
    expect(deliveryOf(job('queued'), null).status).toBe('queued');
    expect(deliveryOf(job('queued'), { status: 'sending', to_email: 'a@b', sent_at: null }).status).toBe('sending');
    expect(deliveryOf(job('succeeded'), { status: 'sent', to_email: 'a@b', sent_at: 'x' })).toMatchObject({ status: 'sent', recipient: 'a@b' });
    expect(deliveryOf(job('failed', 'x'), { status: 'unknown', to_email: 'a@b', sent_at: null }).may_have_been_sent).toBe(true);
  });

  it('names the server and what went wrong, never an error code', () => {
    const conn = { name: 'AR mailbox', smtp_host: 'smtp.acme.test', smtp_port: 587 };
    expect(sendFailureWords({ code: 'ESOCKET', originalCode: 'ECONNREFUSED' }, conn).words).toBe('The mail server of "AR mailbox" (smtp.acme.test:587) could not be reached.');
    expect(sendFailureWords({ code: 'EAUTH', responseCode: 535 }, conn).words).toBe('The mail server of "AR mailbox" (smtp.acme.test:587) did not accept the connection\'s user name and password.');
    expect(sendFailureWords({ code: 'EENVELOPE', responseCode: 550, response: '550 No such user' }, conn).words).toBe('The mail server of "AR mailbox" (smtp.acme.test:587) refused the message (550).');
    const refused = Object.assign(new MailDeliveryError('The mail server smtp.acme.test:587 refused the sender (5.7.1).'), { code: 'EENVELOPE', responseCode: 550 });
    expect(sendFailureWords(refused, conn).words).toBe('The mail server smtp.acme.test:587 refused the sender (5.7.1).');
    const untrusted = Object.assign(new MailDeliveryError('The certificate of smtp.acme.test:587 changed since it was trusted.'), { code: 'ETLS' });
    expect(sendFailureWords(untrusted, conn).words).toBe('The certificate of smtp.acme.test:587 changed since it was trusted.');
    const lost = sendFailureWords({ code: 'ECONNECTION' }, conn);
    expect(lost.outcome).toEqual({ delivered: 'unknown' });
    expect(lost.words).toMatch(/may have been delivered, so it was not sent again/);
  });
});
