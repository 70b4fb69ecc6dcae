import { describe, expect, it } from 'vitest';
import type { ActionStatus, ApprovalOperation } from '../../core/db/schema';
import { isExecution, nextStatus, parseResponseDeadline, resolveActionList } from '../../core/actions/rules';
import { likePattern } from '../../core/invoices/filters';
import { InvalidStateError, ValidationError } from '../../core/errors';

/** Expected result of every operation from every status: a status, or null for a 400 invalid_state. */
const EXPECTED: Record<ApprovalOperation, Record<ActionStatus, ActionStatus | null>> = {
  approve: { proposed: 'processing', scheduled: 'processing', processing: null, completed: null, cancelled: null },
  reject: { proposed: 'cancelled', scheduled: 'cancelled', processing: 'cancelled', completed: null, cancelled: 'cancelled' },
  send: { proposed: 'completed', scheduled: 'completed', processing: null, completed: null, cancelled: null },
  cancel: { proposed: 'cancelled', scheduled: 'cancelled', processing: 'cancelled', completed: null, cancelled: null },
  complete: { proposed: 'completed', scheduled: 'completed', processing: 'completed', completed: null, cancelled: null },
};

const cases = Object.entries(EXPECTED).flatMap(([op, row]) => Object.entries(row).map(([from, to]) => [op as ApprovalOperation, from as ActionStatus, to] as const));

describe('action state machine', () => {
  it.each(cases)('%s from %s -> %s', (operation, from, to) => {
    if (to === null) {
      expect(() => nextStatus(from, operation)).toThrow(InvalidStateError);
      try {
        nextStatus(from, operation);
      } catch (err) {
        expect((err as InvalidStateError).status).toBe(400);
        expect((err as InvalidStateError).code).toBe('invalid_state');
      }
    } else {
      expect(nextStatus(from, operation)).toBe(to);
    }
  });

  it('executes only on send and complete', () => {
    expect(['approve', 'reject', 'send', 'cancel', 'complete'].filter((op) => isExecution(op as ApprovalOperation))).toEqual(['send', 'complete']);
  });
});

describe('response_deadline', () => {
  it.each([
    ['2026-12-01T17:00:00Z', '2026-12-01T17:00:00.000Z'],
    ['2026-12-01T17:00:00.250Z', '2026-12-01T17:00:00.250Z'],
    ['2026-12-01T12:00:00-05:00', '2026-12-01T17:00:00.000Z'],
    ['2026-12-01T12:00-05:00', '2026-12-01T17:00:00.000Z'],
    ['2026-12-02T01:30:00+0830', '2026-12-01T17:00:00.000Z'],
    ['2028-02-29T00:00:00z', '2028-02-29T00:00:00.000Z'],
  ])('accepts %s as %s', (input, stored) => {
    expect(parseResponseDeadline(input)).toBe(stored);
  });

  it.each(['2026-12-01', '2026-12-01T17:00:00', 'tomorrow', '2026-02-30T10:00:00Z', '2026-12-01T24:00:00Z', '2026-12-01T10:61:00Z', '2026-13-01T10:00:00Z', ''])(
    'refuses %j with a 400 on the field',
    (input) => {
      expect(() => parseResponseDeadline(input)).toThrow(ValidationError);
      try {
        parseResponseDeadline(input);
      } catch (err) {
        expect((err as ValidationError).errors?.response_deadline).toBeDefined();
      }
    },
  );
});

function refusal(fn: () => unknown): Record<string, string[]> {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationError) return err.errors ?? {};
    throw err;
  }
  throw new Error('expected a ValidationError');
}

describe('action list parameters', () => {
  it('defaults: all categories, first page of 20, deleted hidden', () => {
    expect(resolveActionList({})).toEqual({
      category: null,
      actionTypes: null,
      arOwners: null,
      statuses: null,
      invoiceId: null,
      customerId: null,
      search: null,
      includeDeleted: false,
      includeAlternatives: true,
      executedFrom: null,
      executedUntil: null,
      sort: 'created',
      descending: true,
      page: 1,
      pageSize: 20,
    });
  });

  it('sorts amounts and lateness largest first, words and deadlines from the start, unless told', () => {
    expect(resolveActionList({ sort: 'value_at_risk' })).toMatchObject({ sort: 'value_at_risk', descending: true });
    expect(resolveActionList({ sort: 'days_past_due' }).descending).toBe(true);
    expect(resolveActionList({ sort: 'customer' }).descending).toBe(false);
    expect(resolveActionList({ sort: 'decide_by' }).descending).toBe(false);
    expect(resolveActionList({ sort: 'balance', direction: 'asc' }).descending).toBe(false);
  });

  it('includes deleted actions by default in history only, and lets the caller override both ways', () => {
    expect(resolveActionList({ category: 'history' }).includeDeleted).toBe(true);
    expect(resolveActionList({ category: 'history', includeDeleted: false }).includeDeleted).toBe(false);
    expect(resolveActionList({ category: 'needs_action' }).includeDeleted).toBe(false);
    expect(resolveActionList({ includeDeleted: true }).includeDeleted).toBe(true);
  });

  it('parses comma-separated statuses and refuses unknown ones', () => {
    expect(resolveActionList({ status: 'proposed, scheduled,proposed' }).statuses).toEqual(['proposed', 'scheduled']);
    expect(resolveActionList({ status: ',' }).statuses).toBeNull();
    expect(refusal(() => resolveActionList({ status: 'proposed,done' })).status[0]).toContain('done');
  });

  it('requires invoice_id for alternatives', () => {
    expect(refusal(() => resolveActionList({ category: 'alternatives' }))).toHaveProperty('invoice_id');
    expect(resolveActionList({ category: 'alternatives', invoiceId: 'x' }).invoiceId).toBe('x');
  });

  it('allows executed_after/before only with history, as an inclusive UTC day range', () => {
    expect(refusal(() => resolveActionList({ executedAfter: '2026-11-01' }))).toHaveProperty('executed_after');
    expect(refusal(() => resolveActionList({ category: 'needs_action', executedBefore: '2026-11-01' }))).toHaveProperty('executed_before');
    expect(refusal(() => resolveActionList({ category: 'history', executedAfter: '2026-11-02', executedBefore: '2026-11-01' }))).toHaveProperty('executed_before');
    const f = resolveActionList({ category: 'history', executedAfter: '2026-11-01', executedBefore: '2026-11-30' });
    expect([f.executedFrom, f.executedUntil]).toEqual(['2026-11-01', '2026-12-01']);
  });

  it('clamps page_size to 100 and trims the search text', () => {
    expect(resolveActionList({ pageSize: 500 }).pageSize).toBe(100);
    expect(resolveActionList({ pageSize: 5, page: 3 })).toMatchObject({ pageSize: 5, page: 3 });
    expect(resolveActionList({ search: '  acme ' }).search).toBe('acme');
    expect(resolveActionList({ search: '   ' }).search).toBeNull();
  });

  it('escapes LIKE wildcards in search text', () => {
    expect(likePattern('50%_off\\')).toBe('%50\\%\\_off\\\\%');
  });
});
