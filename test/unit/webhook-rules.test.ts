import { describe, expect, it } from 'vitest';
import { retryDelay } from '../../core/webhooks/deliver';
import { urlRefusal } from '../../core/webhooks/destination';
import { eventsOfChange, subscribes } from '../../core/webhooks/events';

const change = (entity: string, op: 'insert' | 'update' | 'delete', data: Record<string, unknown>) => ({ entity, entity_id: 'e1', op, data: JSON.stringify(data) });
const types = (c: ReturnType<typeof change>, job?: { kind: string; subject_id: string | null }) => eventsOfChange(c, job).map((e) => e.type);

describe('which events a change is', () => {
  it('reads invoices, payments, disputes, promises, replies and portal submissions', () => {
    expect(types(change('invoice', 'insert', { total_amount: 10 }))).toEqual(['invoice.created']);
    expect(types(change('invoice', 'update', { balance: 0, closed_date: '2026-11-20' }))).toEqual(['invoice.updated', 'invoice.closed']);
    expect(types(change('invoice', 'update', { next_follow_up_date: '2026-12-01' }))).toEqual(['invoice.updated']);
    expect(types(change('payment', 'insert', { amount: 10 }))).toEqual(['payment.created']);
    expect(types(change('payment', 'update', { status: 'voided' }))).toEqual([]);
    expect(types(change('dispute', 'insert', { status: 'open' }))).toEqual(['dispute.opened']);
    expect(types(change('dispute', 'update', { status: 'resolved' }))).toEqual(['dispute.resolved']);
    expect(types(change('dispute', 'update', { owner_id: 'u' }))).toEqual([]);
    expect(types(change('communication', 'insert', { kind: 'email', direction: 'inbound' }))).toEqual(['reply.received']);
    expect(types(change('communication', 'insert', { kind: 'email', direction: 'outbound' }))).toEqual([]);
    expect(types(change('communication', 'insert', { kind: 'call', outcome: 'promised_to_pay', promise_date: '2026-12-01' }))).toEqual(['promise.created']);
    expect(types(change('communication', 'update', { reading_kind: 'promise', reading_date: '2026-12-01' }))).toEqual(['promise.created']);
    expect(types(change('promise_followup', 'insert', { outcome: 'broken' }))).toEqual(['promise.broken']);
    expect(types(change('promise_followup', 'insert', { outcome: 'kept' }))).toEqual(['promise.kept']);
    expect(types(change('portal_submission', 'insert', { kind: 'dispute' }))).toEqual(['portal.submission']);
    expect(types(change('bank_statement', 'insert', {}))).toEqual(['bank_statement.imported']);
  });

  it('follows an action from proposal to approval, completion or a failed send', () => {
    expect(types(change('action', 'insert', { status: 'proposed' }))).toEqual(['action.proposed']);
    const approval = eventsOfChange(change('action_approval', 'insert', { action_id: 'a1', decision: 'approved' }));
    expect(approval.map((e) => [e.type, e.resource_type, e.resource_id])).toEqual([['action.approved', 'action', 'a1']]);
    expect(types(change('action', 'update', { status: 'completed' }))).toEqual(['action.completed']);
    const failed = eventsOfChange(change('job', 'update', { status: 'failed', last_error: 'SMTP said no' }), { kind: 'action_email', subject_id: 'a1' });
    expect(failed).toEqual([{ type: 'action.failed', resource_type: 'action', resource_id: 'a1', data: { id: 'a1', error: 'SMTP said no' } }]);
    expect(types(change('job', 'update', { status: 'failed' }), { kind: 'statement_send', subject_id: 'x' })).toEqual([]);
    expect(types(change('job', 'update', { status: 'queued' }), { kind: 'action_email', subject_id: 'a1' })).toEqual([]);
  });

  it('reads no event from what is not one, nor from a row it cannot parse', () => {
    expect(types(change('insight', 'insert', {}))).toEqual([]);
    expect(eventsOfChange({ entity: 'invoice', entity_id: 'x', op: 'insert', data: '{not json' })).toEqual([]);
  });

  it('sends an endpoint the types it chose, or all with "*"', () => {
    expect(subscribes(['payment.created'], 'payment.created')).toBe(true);
    expect(subscribes(['payment.created'], 'invoice.created')).toBe(false);
    expect(subscribes(['*'], 'sync.rejected')).toBe(true);
  });
});

describe('delivery rules', () => {
  it('backs off exponentially from 30 s to at most an hour', () => {
    expect([1, 2, 3, 4, 8, 20].map(retryDelay)).toEqual([30_000, 60_000, 120_000, 240_000, 3_600_000, 3_600_000]);
  });

  it('refuses addresses that are not public http(s) unless the operator allows the host', () => {
    const none = { allowedHosts: [] };
    expect(urlRefusal(none, 'https://hooks.example.com/ardesk')).toBeNull();
    expect(urlRefusal(none, 'ftp://hooks.example.com/')).toMatch(/https:\/\//);
    expect(urlRefusal(none, 'https://user:pw@hooks.example.com/')).toMatch(/no user name/);
    expect(urlRefusal(none, 'not a url')).toMatch(/Not a web address/);
    for (const inside of ['http://127.0.0.1:8080/', 'http://localhost/', 'http://10.1.2.3/', 'http://[::1]/', 'http://192.168.1.10/', 'http://169.254.169.254/latest/meta-data'])
      expect(urlRefusal(none, inside), inside).toMatch(/private or local/);
    expect(urlRefusal({ allowedHosts: ['127.0.0.1'] }, 'http://127.0.0.1:8080/')).toBeNull();
  });
});
