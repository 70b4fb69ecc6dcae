import { describe, expect, it } from 'vitest';
import { describeInsight, evidenceLine, feedOrder, inWords } from '../../renderer/src/insights/describe';
import { buildMapping, fieldsFor, guessColumns } from '../../renderer/src/settings/import-mapping';
import { SAMPLE_PAYLOADS } from '../support/actions-fixtures';

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

  it('writes dates as dates and nested values as words', () => {
    expect(inWords('2026-11-30')).toBe('Nov 30, 2026');
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

  it('guesses columns by name and builds the mapping the API takes, leaving out empty sections', () => {
    const columns = guessColumns('ar-rows', ['Name', 'Invoice Number', 'invoice_date', 'Total Amount', 'Notes about it']);
    expect(columns).toEqual({ 'customers.name': 'Name', 'invoices.invoice_number': 'Invoice Number', 'invoices.invoice_date': 'invoice_date', 'invoices.total_amount': 'Total Amount' });
    expect(buildMapping({ entity: 'ar-rows', columns, date: 'M/D/YYYY', decimal: ',' })).toEqual({
      entity: 'ar-rows',
      formats: { date: 'M/D/YYYY', decimal: ',' },
      customers: { name: 'Name' },
      invoices: { invoice_number: 'Invoice Number', invoice_date: 'invoice_date', total_amount: 'Total Amount' },
    });
  });
});
