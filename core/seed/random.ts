/**
 * Seeded randomness for the data generator: the same seed gives the same numbers on every
 * machine (no Math.random, no wall clock), so a seeded database is reproducible row for row.
 */

/** splitmix32: spreads a small seed over 32 bits, so seeds 1 and 2 give unrelated streams. */
function splitmix32(state: number): () => number {
  let s = state >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

export interface Rng {
  /** Uniform 32-bit unsigned integer. */
  uint32(): number;
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max], both included. */
  int(min: number, max: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Standard normal (Box-Muller). */
  normal(): number;
  /** Picks an index by weight. */
  weighted(weights: readonly number[]): number;
}

/** sfc32 (small fast counter): 128-bit state, passes PractRand, a few ns per number. */
export function createRng(seed: number, stream = 0): Rng {
  const init = splitmix32((seed ^ Math.imul(stream + 1, 0x27d4eb2d)) >>> 0);
  let a = init();
  let b = init();
  let c = init();
  let d = init();
  const uint32 = () => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t;
  };
  for (let i = 0; i < 12; i++) uint32();
  const next = () => uint32() / 4294967296;
  return {
    uint32,
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)],
    normal: () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next()),
    weighted(weights) {
      let total = 0;
      for (const w of weights) total += w;
      let x = next() * total;
      for (let i = 0; i < weights.length; i++) {
        x -= weights[i];
        if (x < 0) return i;
      }
      return weights.length - 1;
    },
  };
}

const HEX4 = Array.from({ length: 65536 }, (_, i) => i.toString(16).padStart(4, '0'));

/** A deterministic id source that can be resumed elsewhere (a worker thread) and skipped past. */
export interface IdFactory {
  (): string;
  /** Ids drawn (or skipped) so far. */
  readonly drawn: number;
  /** Moves past `n` ids drawn by another factory started at this one's position. */
  skip(n: number): void;
}

/**
 * Deterministic UUIDv7-shaped ids: the 48-bit timestamp starts at `baseMs` and advances one
 * millisecond per 4,096 ids, the 12-bit rand_a is the counter within that millisecond (RFC 9562
 * method 1), and rand_b comes from the seeded stream. Ids therefore sort in creation order, like
 * the engine's own v7 ids, and every insert appends to the primary-key index. `start` resumes the
 * sequence at that position: idFactory(s, b, n) gives the ids idFactory(s, b) gives after its n-th.
 */
export function idFactory(seed: number, baseMs: number, start = 0): IdFactory {
  const rng = createRng(seed, 0x1d5);
  let counter = 0;
  const next = () => {
    const ms = baseMs + Math.floor(counter / 4096);
    const randA = counter % 4096;
    counter++;
    const high = Math.floor(ms / 65536);
    const low = ms % 65536;
    const r1 = rng.uint32();
    const r2 = rng.uint32();
    return (
      HEX4[Math.floor(high / 65536) % 65536] +
      HEX4[high % 65536] +
      '-' +
      HEX4[low] +
      '-' +
      HEX4[0x7000 | randA] +
      '-' +
      HEX4[0x8000 | (r1 & 0x3fff)] +
      '-' +
      HEX4[r1 >>> 16] +
      HEX4[r2 >>> 16] +
      HEX4[r2 & 0xffff]
    );
  };
  const skip = (n: number) => {
    for (let i = 0; i < n; i++) {
      rng.uint32();
      rng.uint32();
    }
    counter += n;
  };
  skip(start);
  return Object.defineProperties(next, { drawn: { get: () => counter }, skip: { value: skip } }) as IdFactory;
}
