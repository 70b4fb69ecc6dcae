import { describe, expect, it } from 'vitest';
import { ACTION_OPERATIONS, ACTION_STATUSES, nextStatus } from '../../core/actions/rules';
import { nextSequenceStatus, SEQUENCE_ACTIONS, SEQUENCE_STATUSES } from '../../core/sequences/rules';
import { type Action, allowedOperations, deadlineInstant, decideBy, draftOf, listedWords, recommendationOf } from '../../renderer/src/actions/labels';
import { promiseAmountValue } from '../../renderer/src/components/callOutcomes';
import { copyName, dueOffsetWords, insertAt, lifecycleActions, plural, stepWhen } from '../../renderer/src/sequences/words';
import { holdWords } from '../../renderer/src/queue/words';

const action = (over: Partial<Action>): Action => ({ status: 'proposed', is_deleted: false, metadata: {}, ...over }) as Action;

describe('the outreach screens’ rules', () => {
  it("words what an action recommends: its label, else its description, with the engine's dates as dates", () => {
    expect(recommendationOf({ recommendation_label: null, description: 'Wait: Globex promised to pay INV-7 by 2026-12-04.' })).toBe('Wait: Globex promised to pay INV-7 by Dec 4, 2026.');
    expect(recommendationOf({ recommendation_label: 'Send an email', description: 'Send a reminder for INV-7' })).toBe('Send an email');
  });

  it('names the invoices a decision on the whole customer lists, short enough for the inbox cell', () => {
    const listed = (numbers: string[], count = numbers.length) => ({ listed_invoices: numbers.map((n) => ({ id: n, invoice_number: n })), listed_invoice_count: count });
    expect(listedWords(listed([]))).toBeNull();
    expect(listedWords(listed(['INV-1']))).toBe('INV-1');
    expect(listedWords(listed(['INV-1', 'INV-2']))).toBe('INV-1, INV-2');
    expect(listedWords(listed(['INV-1', 'INV-2', 'INV-3', 'INV-4', 'INV-5']))).toBe('INV-1 and 4 more');
    expect(listedWords(listed(['INV-1'], 40))).toBe('INV-1 and 39 more');
  });

  it('marks an open decision whose "Decide by" has passed as overdue, and only an open one', () => {
    const now = new Date('2026-11-28T12:00:00.000Z');
    expect(decideBy(action({ response_deadline: '2026-11-20T17:00:00.000Z' }), now)).toEqual({ date: '2026-11-20', overdue: true });
    expect(decideBy(action({ status: 'scheduled', response_deadline: '2026-11-28T11:59:00.000Z' }), now)).toEqual({ date: '2026-11-28', overdue: true });
    expect(decideBy(action({ response_deadline: '2026-11-30T17:00:00.000Z' }), now)).toEqual({ date: '2026-11-30', overdue: false });
    expect(decideBy(action({ status: 'completed', response_deadline: '2026-11-20T17:00:00.000Z' }), now)).toEqual({ date: '2026-11-20', overdue: false });
    expect(decideBy(action({ response_deadline: null }), now)).toBeNull();
  });

  it('offers exactly the action operations the core state machine allows from each status', () => {
    for (const status of ACTION_STATUSES) {
      const core = ACTION_OPERATIONS.filter((op) => {
        try {
          nextStatus(status, op);
          return true;
        } catch {
          return false;
        }
      });
      expect(allowedOperations(action({ status })).sort(), status).toEqual([...core].sort());
    }
    expect(allowedOperations(action({ status: 'proposed', is_deleted: true }))).toEqual([]);
  });

  it('offers exactly the sequence lifecycle moves the core allows', () => {
    for (const status of SEQUENCE_STATUSES) {
      const core = SEQUENCE_ACTIONS.filter((a) => {
        try {
          nextSequenceStatus(status, a);
          return true;
        } catch {
          return false;
        }
      });
      expect(lifecycleActions(status).sort(), status).toEqual([...core].sort());
    }
  });

  it('reads the drafted content, an edited final content winning over the draft', () => {
    expect(draftOf(action({ metadata: { draft_subject: 'Second notice', draft_body: 'Hi Ana', talking_points: ['Ask for a date', 3] } }))).toEqual({
      subject: 'Second notice',
      body: 'Hi Ana',
      talkingPoints: ['Ask for a date'],
    });
    expect(draftOf(action({ metadata: { subject: 'Paid, thanks', draft_body: 'old', final_content: 'Edited text' } }))).toEqual({ subject: 'Paid, thanks', body: 'Edited text', talkingPoints: [] });
    expect(draftOf(action({ metadata: { draft_body: '   ' } })).body).toBe('');
    // An engine proposal written before its drafts used these keys.
    expect(draftOf(action({ metadata: { draft: { subject: 'Invoice 7 is past due', body: 'Hello,' } } }))).toEqual({ subject: 'Invoice 7 is past due', body: 'Hello,', talkingPoints: [] });
  });

  it('turns a local date-time into an instant with its zone, and nothing into nothing', () => {
    expect(deadlineInstant('')).toBeUndefined();
    expect(deadlineInstant('not a date')).toBeUndefined();
    expect(deadlineInstant('2026-12-01T17:00')).toBe(new Date(2026, 11, 1, 17, 0).toISOString());
  });

  it('takes a promised amount only when it is a positive number, rounded to cents', () => {
    expect(promiseAmountValue('250.5')).toBe(250.5);
    expect(promiseAmountValue('10.005')).toBe(10.01);
    expect(promiseAmountValue('')).toBeUndefined();
    expect(promiseAmountValue('0')).toBeUndefined();
    expect(promiseAmountValue('-3')).toBeUndefined();
    expect(promiseAmountValue('abc')).toBeUndefined();
  });

  it('says when a step fires, inserts placeholders at the caret, names copies and counts in words', () => {
    expect(stepWhen({ offset_days: 0, offset_time: '09:00', on_promise_missed: false, due_offset_days: 0 })).toBe('On the start date, 09:00');
    expect(stepWhen({ offset_days: 1, offset_time: '14:30', on_promise_missed: false, due_offset_days: 0 })).toBe('1 day after the start date, 14:30');
    expect(stepWhen({ offset_days: 7, offset_time: '08:00', on_promise_missed: false, due_offset_days: 0 })).toBe('7 days after the start date, 08:00');
    expect(stepWhen({ offset_days: 0, offset_time: '09:00', on_promise_missed: true, due_offset_days: 0 })).toBe('When a promise to pay is missed, 09:00');
    expect(stepWhen({ offset_days: 0, offset_time: '09:00', on_promise_missed: false, due_offset_days: -3 }, 'due_date')).toBe('3 days before due, 09:00');
    expect(stepWhen({ offset_days: 0, offset_time: '10:00', on_promise_missed: false, due_offset_days: 0 }, 'due_date')).toBe('On the due date, 10:00');
    expect(stepWhen({ offset_days: 5, offset_time: '09:00', on_promise_missed: false, due_offset_days: 1 }, 'due_date')).toBe('1 day after due, 09:00');
    expect(dueOffsetWords(-1)).toBe('1 day before due');
    expect(dueOffsetWords(7)).toBe('7 days after due');
  });

  it('a paused step names its own reason; other holds their fixed words', () => {
    expect(holdWords({ hold_reason: 'paused', pause_reason: 'Paused: Tri-County promised payment by Nov 27' })).toBe('Paused: Tri-County promised payment by Nov 27');
    expect(holdWords({ hold_reason: 'skipped', pause_reason: null })).toBe('Skipped');
    expect(holdWords({ hold_reason: null, pause_reason: null })).toBeNull();
    expect(insertAt('Dear ,', '{{contact_name}}', 5, 5)).toEqual({ value: 'Dear {{contact_name}},', caret: 21 });
    expect(insertAt('Hi NAME', '{{x}}', 3, 7)).toEqual({ value: 'Hi {{x}}', caret: 8 });
    expect(insertAt('End', '{{x}}', null, null)).toEqual({ value: 'End{{x}}', caret: 8 });
    expect(copyName('Standard', ['Standard', 'standard (COPY)'])).toBe('Standard (copy 2)');
    expect(copyName('Fresh', [])).toBe('Fresh (copy)');
    expect(plural(1, 'step')).toBe('1 step');
    expect(plural(0, 'step')).toBe('0 steps');
  });
});
