import { describe, expect, it } from 'vitest';
import { ConflictError, InvalidStateError, ValidationError } from '../../core/errors';
import {
  assertStepEditable,
  historyBlockedChanges,
  isPastReady,
  nextSequenceStatus,
  pageOf,
  parseEnumList,
  parseOwnerFilter,
  replySubject,
  STEP_DEFAULTS,
  stepMessageId,
  STEP_TYPES,
} from '../../core/sequences/rules';

describe('sequence lifecycle', () => {
  it('activates drafts and archived sequences, archives drafts and active ones', () => {
    expect(nextSequenceStatus('draft', 'activate')).toBe('active');
    expect(nextSequenceStatus('archived', 'activate')).toBe('active');
    expect(nextSequenceStatus('draft', 'archive')).toBe('archived');
    expect(nextSequenceStatus('active', 'archive')).toBe('archived');
  });

  it('refuses repeating the current state', () => {
    expect(() => nextSequenceStatus('active', 'activate')).toThrow(InvalidStateError);
    expect(() => nextSequenceStatus('archived', 'archive')).toThrow(InvalidStateError);
  });
});

describe('steps with history', () => {
  it('lists only the fields that actually change, never is_active', () => {
    expect(historyBlockedChanges(STEP_DEFAULTS, { label: 'New Step', is_active: false })).toEqual([]);
    expect(historyBlockedChanges(STEP_DEFAULTS, { label: 'Call them', offset_days: 0, subject_template: 'Hi' })).toEqual(['label', 'subject_template']);
  });

  it('refuses content changes with 409 only when the step has history', () => {
    expect(() => assertStepEditable(true, STEP_DEFAULTS, { offset_days: 3 })).toThrow(ConflictError);
    expect(() => assertStepEditable(true, STEP_DEFAULTS, { is_active: false })).not.toThrow();
    expect(() => assertStepEditable(false, STEP_DEFAULTS, { offset_days: 3 })).not.toThrow();
  });
});

describe('queue rules', () => {
  it('knows which states are past ready', () => {
    expect(['scheduled', 'ready'].map((s) => isPastReady(s as never))).toEqual([false, false]);
    expect(['sent', 'completed', 'cancelled', 'failed'].every((s) => isPastReady(s as never))).toBe(true);
  });

  it('parses ar_owner with __unassigned__', () => {
    const id = '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a';
    expect(parseOwnerFilter(`${id.toUpperCase()},__unassigned__`)).toEqual({ ids: [id], unassigned: true });
    expect(parseOwnerFilter('__unassigned__')).toEqual({ ids: [], unassigned: true });
    expect(() => parseOwnerFilter('nobody')).toThrow(ValidationError);
    expect(() => parseOwnerFilter(',')).toThrow(ValidationError);
  });

  it('parses comma-separated enums and refuses unknown values', () => {
    expect(parseEnumList('call, task,call', STEP_TYPES, 'step_type')).toEqual(['call', 'task']);
    expect(() => parseEnumList('call,email', STEP_TYPES, 'step_type')).toThrow(ValidationError);
    expect(() => parseEnumList('', STEP_TYPES, 'step_type')).toThrow(ValidationError);
  });

  it('pages with a default of 20 and a cap of 100', () => {
    expect(pageOf(undefined, undefined)).toEqual({ page: 1, pageSize: 20 });
    expect(pageOf(3, 500)).toEqual({ page: 3, pageSize: 100 });
  });

  it('builds stable Message-IDs in the sender domain and reply subjects', () => {
    expect(stepMessageId('abc', 'ar@acme.test')).toBe('<seq.abc@acme.test>');
    expect(stepMessageId('abc', 'local')).toBe('<seq.abc@ardesk.local>');
    expect(replySubject('Invoice INV-1')).toBe('Re: Invoice INV-1');
    expect(replySubject('RE: re: Invoice INV-1')).toBe('Re: Invoice INV-1');
  });
});
