import { describe, expect, it } from 'vitest';
import { attachedInvoiceIds, storedAttach } from '../../core/sequences/attachments';
import { historyBlockedChanges, STEP_DEFAULTS } from '../../core/sequences/rules';
import { attachWords } from '../../renderer/src/sequences/words';

describe("a sequence step's documents (issue 26)", () => {
  it('reads the stored list as known kinds in the options order, anything else as none', () => {
    expect(storedAttach('["statement","invoice_pdf","statement"]')).toEqual(['invoice_pdf', 'statement']);
    expect(storedAttach('["fax","statement"]')).toEqual(['statement']);
    expect(storedAttach('{"attach":true}')).toEqual([]);
    expect(storedAttach('not json')).toEqual([]);
  });

  it('attaches every invoice a due-date email lists, else the one it is about, else none', () => {
    expect(attachedInvoiceIds([{ id: 'a' }, { id: 'b' }], { id: 'a' })).toEqual(['a', 'b']);
    expect(attachedInvoiceIds(undefined, { id: 'c' })).toEqual(['c']);
    expect(attachedInvoiceIds([], { id: 'c' })).toEqual(['c']);
    expect(attachedInvoiceIds(undefined, null)).toEqual([]);
  });

  it('a step that has run keeps its documents, compared by content', () => {
    const current = { ...STEP_DEFAULTS, attach: ['invoice_pdf' as const] };
    expect(historyBlockedChanges(current, { attach: ['invoice_pdf'], is_active: false })).toEqual([]);
    expect(historyBlockedChanges(current, { attach: ['invoice_pdf', 'statement'] })).toEqual(['attach']);
    expect(historyBlockedChanges(current, { attach: [] })).toEqual(['attach']);
  });

  it('words what a step attaches in its list row', () => {
    expect(attachWords(['invoice_pdf'])).toBe('With the invoice PDF attached');
    expect(attachWords(['invoice_pdf', 'statement'])).toBe('With the invoice PDF and a statement of account attached');
    expect(attachWords([])).toBe('');
  });
});
