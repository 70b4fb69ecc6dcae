import { describe, expect, it } from 'vitest';
import { answerHeaders, answerSubject, REFERENCES_KEPT, referenceChain, threadOf } from '../../core/communications/threads';

describe('email thread rules', () => {
  it('reads a chain from References, else In-Reply-To, each id once', () => {
    expect(referenceChain('<b@x>', '<a@x> <b@x>')).toEqual(['<a@x>', '<b@x>']);
    expect(referenceChain('<b@x>', undefined)).toEqual(['<b@x>']);
    expect(referenceChain(undefined, ['<a@x>', '<a@x>'])).toEqual(['<a@x>']);
    expect(referenceChain(undefined, 'garbage')).toEqual([]);
  });

  it('answers with In-Reply-To the message and References its chain then it, trimmed to the first and the newest', () => {
    expect(answerHeaders({ messageId: '<r@c>', references: ['<o@us>'] })).toEqual({ inReplyTo: '<r@c>', references: ['<o@us>', '<r@c>'] });
    const long = Array.from({ length: 30 }, (_, i) => `<m${i}@x>`);
    const { references } = answerHeaders({ messageId: '<last@x>', references: long });
    expect(references).toHaveLength(REFERENCES_KEPT);
    expect(references[0]).toBe('<m0@x>');
    expect(references.at(-1)).toBe('<last@x>');
    expect(references.at(-2)).toBe('<m29@x>');
  });

  it('writes "Re: " once', () => {
    expect(answerSubject('Invoice 7 is overdue')).toBe('Re: Invoice 7 is overdue');
    expect(answerSubject('RE: Invoice 7')).toBe('RE: Invoice 7');
    expect(answerSubject(null)).toBe('Re:');
  });

  it('puts a message in the thread it answers when known, else its chain\'s first, else its own', () => {
    expect(threadOf({ messageId: '<r@c>', references: ['<x@us>'] }, '<root@us>')).toBe('<root@us>');
    expect(threadOf({ messageId: '<r@c>', references: ['<x@us>', '<y@us>'] }, null)).toBe('<x@us>');
    expect(threadOf({ messageId: '<r@c>', references: [] }, null)).toBe('<r@c>');
  });
});
