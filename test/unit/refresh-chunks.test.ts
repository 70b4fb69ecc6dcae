import { describe, expect, it } from 'vitest';
import { CHUNK_ROWS, chunkByWork } from '../../core/intelligence/runner';

describe('the refresh chunks customers by work, not by count', () => {
  it('closes a chunk before it passes the budget, in order, and gives a customer heavier than the budget a chunk of its own', () => {
    const weights: Record<string, number> = { a: 400, b: 400, c: 300, d: 5_000, e: 3, f: 3 };
    const chunks = chunkByWork(Object.keys(weights), (id) => weights[id], 1_000);
    expect(chunks).toEqual([['a', 'b'], ['c'], ['d'], ['e', 'f']]);
  });

  it('puts many small customers together and few large ones apart', () => {
    const small = Array.from({ length: 1_000 }, (_, i) => i);
    expect(chunkByWork(small, () => 6, CHUNK_ROWS).map((c) => c.length)).toEqual([...Array(6).fill(166), 4]);
    expect(chunkByWork([1, 2, 3], () => 2_100, CHUNK_ROWS)).toEqual([[1], [2], [3]]);
    expect(chunkByWork([], () => 1, CHUNK_ROWS)).toEqual([]);
  });
});
