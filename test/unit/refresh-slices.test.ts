import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INTERRUPTED } from '../../core/jobs/queue';
import { interruptionsInARow } from '../../core/intelligence/jobs';
import { SLICE_MS, writeInSlices } from '../../core/intelligence/runner';
import { type DesiredInsight, type Existing, planInsights } from '../../core/intelligence/writer';
import { addCompany } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';

/** Issue 37: a large customer's refresh is planned outside any transaction and written in slices. */
describe('planInsights', () => {
  const signal = (invoiceId: string, title: string): DesiredInsight => ({
    targetType: 'invoice',
    targetId: invoiceId,
    customerId: 'c1',
    invoiceId,
    insightType: 'invoice_signal',
    payload: { entity: { type: 'invoice', id: invoiceId, number: invoiceId }, signal: { type: 'overdue', severity: 'low', title, description: title, detected_at: '2026-11-20' } },
    evidence: [],
  });
  const stored = (id: string, d: DesiredInsight): Existing => {
    const [{ steps }] = [planInsights('co', [], [d])];
    return { id, target_type: d.targetType, target_id: d.targetId, insight_type: d.insightType, payload_json: steps[0].open!.payload_json, evidence: steps[0].open!.evidence };
  };

  it('leaves an unchanged insight alone, closes and opens a changed one in one step, closes one no longer produced, opens a new one', () => {
    const same = signal('i1', 'Overdue');
    const before = [stored('old-1', same), stored('old-2', signal('i2', 'Overdue')), stored('old-3', signal('i3', 'Overdue'))];
    const { steps, unchanged } = planInsights('co', before, [same, signal('i2', 'Very overdue'), signal('i4', 'Overdue')]);
    expect(unchanged).toBe(1);
    expect(steps.map((s) => [s.close, s.open?.target_id ?? null])).toEqual([
      ['old-2', 'i2'],
      [null, 'i4'],
      ['old-3', null],
    ]);
    expect(JSON.parse(steps[0].open!.payload_json).signal.title).toBe('Very overdue');
  });
});

describe('interruptionsInARow', () => {
  it('counts the tries in a row cut short by the end of their process', () => {
    expect(interruptionsInARow({ last_error: null, result: null })).toBe(0);
    expect(interruptionsInARow({ last_error: 'SMTP refused', result: JSON.stringify({ interruptions: 1 }) })).toBe(0);
    expect(interruptionsInARow({ last_error: INTERRUPTED, result: null })).toBe(1);
    expect(interruptionsInARow({ last_error: INTERRUPTED, result: JSON.stringify({ progress: { done: 1, total: 9 } }) })).toBe(1);
    expect(interruptionsInARow({ last_error: INTERRUPTED, result: JSON.stringify({ progress: { done: 1, total: 9 }, interruptions: 1 }) })).toBe(2);
  });
});

describe('writeInSlices', () => {
  let engine: TestEngine;
  beforeEach(async () => {
    engine = await testEngine();
  });
  afterEach(async () => {
    await engine.dispose();
  });

  it('writes every item exactly once, in transactions of about SLICE_MS, calling between after each', async () => {
    const company = await addCompany(engine, 'Sliced');
    const items = Array.from({ length: 400 }, (_, i) => `item-${i}`);
    const transactions: number[] = [];
    let between = 0;
    await writeInSlices(
      engine,
      company,
      items,
      async (tx, slice) => {
        // Slow work: each slice of items takes about 4 ms, so a transaction holds about ten of them.
        const until = performance.now() + 4;
        while (performance.now() < until);
        for (const item of slice) await tx.record('test_item', item, 'insert', {});
        if (transactions.length === between) transactions.push(0);
        transactions[transactions.length - 1] += slice.length;
      },
      async () => {
        between += 1;
      },
    );
    const written = engine.database.sqlite.prepare(`SELECT entity_id FROM changes WHERE entity = 'test_item' ORDER BY seq`).pluck().all();
    expect(written).toEqual(items);
    expect(between).toBe(transactions.length);
    // 16 slices of 25 at about 4 ms each: several transactions, none holding all.
    expect(transactions.length).toBeGreaterThan(1);
    expect(Math.max(...transactions)).toBeLessThan(items.length);
    expect(SLICE_MS).toBeLessThanOrEqual(50);
  });

  it('writes nothing and calls nothing for no items', async () => {
    const company = await addCompany(engine, 'Empty');
    let calls = 0;
    await writeInSlices(engine, company, [], async () => void calls++, async () => void calls++);
    expect(calls).toBe(0);
  });
});
