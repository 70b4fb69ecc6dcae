import { describe, expect, it } from 'vitest';
import { CHUNK, chunks } from '../../core/chunks';

describe('chunks', () => {
  it('cuts a list into consecutive pieces of at most the size, in order', () => {
    const list = Array.from({ length: 1_001 }, (_, i) => i);
    const pieces = chunks(list);
    expect(pieces.map((p) => p.length)).toEqual([CHUNK, CHUNK, 1]);
    expect(pieces.flat()).toEqual(list);
    expect(chunks(['a', 'b', 'c'], 2)).toEqual([['a', 'b'], ['c']]);
  });

  it('gives no piece for an empty list, and refuses a size below 1', () => {
    expect(chunks([])).toEqual([]);
    expect(() => chunks([1], 0)).toThrow(RangeError);
  });
});
