import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { amountIn, amountsIn, dateOrderOf, datesIn, ownWords, type ReadingKind, readReply } from '../../core/replies/reading';

interface Case {
  id: string;
  file: string;
  said: string;
  /** The writer's country (ISO 3166), when the reply says where it comes from: how it writes 12/4. */
  country: string | null;
  subject: string;
  body: string;
  kind: ReadingKind;
  date: string | null;
  /** Minor units; undefined when the corpus does not say. */
  amount: number | undefined;
}

const DIR = resolve(import.meta.dirname, '../fixtures/replies');

/** The corpus (test/fixtures/replies/README.md): "=== id", header lines, "---", the body. */
function corpus(): Case[] {
  const cases: Case[] = [];
  for (const file of readdirSync(DIR).filter((f) => f.endsWith('.txt')).sort()) {
    for (const block of readFileSync(resolve(DIR, file), 'utf8').split(/^=== /m).slice(1)) {
      const [head, ...rest] = block.split(/^---$/m);
      const lines = head.split('\n');
      const field = (name: string) => lines.find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2).trim() ?? '';
      const [kind, date, amount] = field('expect').split(/\s+/);
      cases.push({
        id: lines[0].trim(),
        file,
        said: field('said'),
        country: field('country') || null,
        subject: field('subject'),
        body: rest.join('---').replace(/^\n/, '').trimEnd(),
        kind: kind as ReadingKind,
        date: kind === 'promise' && date !== '-' ? date : null,
        amount: amount === undefined ? undefined : Math.round(Number(amount) * 100),
      });
    }
  }
  return cases;
}

/**
 * Written after the reader had been tuned on the other files, and run once as written: the first
 * (its one false promise then narrowed a rule, so it no longer is held out), the second (written
 * after the hedge and deferral rules; its misses then taught the rules of parts, carrying verbs
 * and numeric dates, so it no longer is held out either), and the third, written after those and
 * never used to tune anything.
 */
const HELD_OUT = ['held-out.txt', 'held-out-2.txt', 'held-out-3.txt'];

interface Score {
  replies: number;
  expected: number;
  predicted: number;
  correct: number;
  kindRight: number;
  precision: number;
  recall: number;
  misread: string[];
}

/** A promise is read right when the corpus expects one with the same date (and amount, where it names one). */
function score(cases: Case[]): Score {
  let predicted = 0;
  let correct = 0;
  let expected = 0;
  let kindRight = 0;
  const misread: string[] = [];
  const show = (k: string, d: string | null, a: number | null | undefined) => `${k}${k === 'promise' ? ` ${d ?? '-'}${a ? ` ${(a / 100).toFixed(2)}` : ''}` : ''}`;
  for (const c of cases) {
    const r = readReply(c.subject, c.body, c.said, dateOrderOf(c.country));
    const isPromise = c.kind === 'promise';
    const rightPromise = r.kind === 'promise' && isPromise && r.date === c.date && (c.amount === undefined || r.amount === c.amount);
    if (isPromise) expected += 1;
    if (r.kind === 'promise') predicted += 1;
    if (rightPromise) correct += 1;
    if (r.kind === c.kind && (!isPromise || rightPromise)) kindRight += 1;
    else misread.push(`${c.file} ${c.id}: expected ${show(c.kind, c.date, c.amount)}, read ${show(r.kind, r.date, r.amount)} from "${r.sentence ?? ''}"`);
  }
  return { replies: cases.length, expected, predicted, correct, kindRight, precision: predicted ? correct / predicted : 1, recall: expected ? correct / expected : 1, misread };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const report = (s: Score) =>
  `${s.replies} replies, ${s.expected} promises expected, ${s.predicted} read as promises, ${s.correct} right: promise precision ${pct(s.precision)}, recall ${pct(s.recall)}; every kind right in ${s.kindRight}/${s.replies}`;

describe('the reply corpus', () => {
  const cases = corpus();

  it('holds at least 60 replies, each with a known expected reading', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
    expect(new Set(cases.map((c) => c.id)).size).toBe(cases.length);
    for (const c of cases) {
      expect(['promise', 'dispute', 'needs_answer', 'none'], c.id).toContain(c.kind);
      expect(c.said, c.id).toMatch(/^\d{4}-\d{2}-\d{2}T/);
      expect(c.body.length, c.id).toBeGreaterThan(0);
    }
  });

  it('reads promises with at least 95% precision, and prints every misreading', () => {
    const all = score(cases);
    const files = [...new Set(cases.map((c) => c.file))];
    console.log(
      [
        `reply corpus: ${report(all)}`,
        ...files.map((file) => `  ${file}${HELD_OUT.includes(file) ? ' (held out: written before the reader read it)' : ''}: ${report(score(cases.filter((c) => c.file === file)))}`),
        ...all.misread.map((m) => `  misread: ${m}`),
      ].join('\n'),
    );
    expect(all.precision).toBeGreaterThanOrEqual(0.95);
  });

  it('the reply from issue 36 is a proposed dispute, not a promise for October 1 next year', () => {
    const r = readReply('RE: Invoice INV-10333 is past due', 'I think I was charged twice for the October service, can you check before I pay?', '2026-11-24T10:00:00Z');
    expect(r).toEqual({ kind: 'dispute', date: null, amount: null, sentence: 'I think I was charged twice for the October service, can you check before I pay?' });
  });
});

describe('the rules under the reading', () => {
  it('keeps only the customer’s own words: no quotes, forwards or signatures', () => {
    expect(ownWords('We will pay Friday.\n\nOn Tue, Nov 24, 2026 at 9:00 AM AR <ar@x.test> wrote:\n> pay by Dec 1')).toBe('We will pay Friday.');
    expect(ownWords('> quoted line\nmy answer\n> more')).toBe('my answer');
    expect(ownWords('Paying Monday.\n--\nJanet | closed Dec 24')).toBe('Paying Monday.');
    expect(ownWords('See below\n---------- Forwarded message ---------\nFrom: x\nwe will pay on Dec 3')).toBe('See below');
  });

  it('places dates relative to the day said, and a bare month names no day', () => {
    const today = '2026-11-24';
    expect(datesIn('the October service', today)).toEqual([]);
    expect(datesIn('on the 5th', today)).toEqual(['2026-12-05']);
    expect(datesIn('on the 30th', today)).toEqual(['2026-11-30']);
    expect(datesIn('we make the payment on 5.12.', today)).toEqual(['2026-12-05']);
    expect(datesIn('latest by 15/12/2026', today)).toEqual(['2026-12-15']);
    expect(datesIn('by EOM', today)).toEqual(['2026-11-30']);
    expect(datesIn('within 10 days', today)).toEqual(['2026-12-04']);
    expect(datesIn('on January 8', '2026-12-18')).toEqual(['2027-01-08']);
  });

  it('reads amounts in US and European notation, in minor units', () => {
    expect(amountIn('we will pay $1,250.00 on Friday')).toBe(125_000);
    expect(amountIn('transfer 1.500,00 EUR this week')).toBe(150_000);
    expect(amountIn('£300 by Monday')).toBe(30_000);
    expect(amountIn('USD 980')).toBe(98_000);
    expect(amountIn('invoice 10331 on the 5th')).toBeNull();
  });

  it('a date further than 120 days out is no promise, and neither is a refusal, a condition or a question', () => {
    expect(readReply(null, 'We will pay on Oct 1.', '2026-11-24T10:00:00Z').kind).toBe('none');
    expect(readReply(null, 'We will pay on Dec 1.', '2026-11-24T10:00:00Z')).toMatchObject({ kind: 'promise', date: '2026-12-01' });
    expect(readReply(null, 'We cannot pay until Dec 15.', '2026-11-24T10:00:00Z').kind).toBe('none');
    expect(readReply(null, 'We will pay on Dec 4 if you waive the late fee.', '2026-11-24T10:00:00Z').kind).not.toBe('promise');
    expect(readReply(null, 'Can we pay on Dec 4?', '2026-11-24T10:00:00Z').kind).toBe('needs_answer');
  });
});

describe('commitment language, by principle', () => {
  const said = '2026-11-24T10:00:00Z';
  it('a hedge (hope, try, think, may, should be able to) is no commitment', () => {
    for (const body of ['We hope to pay on Dec 4.', 'We will do our best to pay on Dec 4.', 'I believe the transfer is scheduled for Dec 4.', 'We should be able to pay on Dec 4.', 'Payment might go out Dec 4.', 'Probably we pay on Dec 4.']) {
      expect(readReply(null, body, said).kind, body).not.toBe('promise');
    }
    // Without the hedge the same words commit.
    expect(readReply(null, 'We will pay on Dec 4.', said)).toMatchObject({ kind: 'promise', date: '2026-12-04' });
  });

  it('a commitment to ask, check or confirm something about the payment promises an answer, not the money', () => {
    for (const body of ['I will ask finance to release the payment on Dec 4.', 'I will confirm the transfer date by Friday.', 'Let me check when the payment goes out; I will let you know by Dec 4.', 'We will follow up with AP on the payment by Dec 4.']) {
      expect(readReply(null, body, said).kind, body).not.toBe('promise');
    }
    // A check (the payment) going out is still a promise.
    expect(readReply(null, 'The check goes out on Dec 4.', said)).toMatchObject({ kind: 'promise', date: '2026-12-04' });
    // A confirmation made (not promised) states the schedule, and a check with an article is the money.
    expect(readReply(null, 'Confirming that INV-10314 is scheduled in our ACH run on Friday, November 27.', said)).toMatchObject({ kind: 'promise', date: '2026-11-27' });
    expect(readReply(null, 'Sending a check for $750 toward the payment plan today.', said)).toMatchObject({ kind: 'promise', date: '2026-11-24', amount: 75_000 });
  });
});

describe('numbers, parts and errands, by principle', () => {
  const said = '2026-11-24T10:00:00Z';
  const today = '2026-11-24';

  it('reads a numeric date in the writer’s order: month first in the US (and when unknown), day first elsewhere, not at all where both are usual', () => {
    expect([dateOrderOf('US'), dateOrderOf('pr'), dateOrderOf(null), dateOrderOf('United Kingdom')]).toEqual(['month', 'month', 'month', 'month']);
    expect([dateOrderOf('GB'), dateOrderOf('de'), dateOrderOf('CA'), dateOrderOf('PH')]).toEqual(['day', 'day', 'either', 'either']);
    expect(datesIn('the check will be cut on 12/4', today, 'month')).toEqual(['2026-12-04']);
    expect(datesIn('the check will be cut on 12/4', today, 'day')).toEqual(['2027-04-12']);
    expect(datesIn('the check will be cut on 12/4', today, 'either')).toEqual([]);
    // One reading only: the order does not matter.
    expect(['month', 'day', 'either'].map((o) => datesIn('we pay on 15/12', today, o as 'month'))).toEqual([['2026-12-15'], ['2026-12-15'], ['2026-12-15']]);
    expect(datesIn('payment on 12/15/2026', today, 'day')).toEqual(['2026-12-15']);
    // A share is no date.
    expect(datesIn('we will pay 1/2 now', today)).toEqual(['2026-11-24']);
    expect(datesIn('1/3 of the balance', today)).toEqual([]);
    expect(readReply(null, 'We will pay on 4/12.', said, 'day')).toMatchObject({ kind: 'promise', date: '2026-12-04' });
    // April 12 is beyond the horizon: no promise at all.
    expect(readReply(null, 'We will pay on 4/12.', said, 'month').kind).toBe('none');
  });

  it('a payment in parts is kept when its last part is paid: the latest date, the sum when each part names its amount', () => {
    expect(readReply(null, 'We’ll send 1,000 USD now and the rest on December 15.', said)).toMatchObject({ kind: 'promise', date: '2026-12-15', amount: null });
    expect(readReply(null, 'We will pay $500 on Dec 1 and $700 on Dec 15.', said)).toMatchObject({ kind: 'promise', date: '2026-12-15', amount: 120_000 });
    expect(readReply(null, 'We will pay half on Dec 1 and the other half on Dec 15.', said)).toMatchObject({ kind: 'promise', date: '2026-12-15', amount: null });
    // One payment with two dates named is not in parts: its first date.
    expect(readReply(null, 'We will pay $900 on Dec 1, before the holidays start on Dec 20.', said)).toMatchObject({ kind: 'promise', date: '2026-12-01', amount: 90_000 });
    expect(amountsIn('$1,000 USD now and 250,50 € later')).toEqual([100_000, 25_050]);
  });

  it('sending, making or getting is paying only with the money as its object', () => {
    for (const body of [
      'I will send the signed W-9 tomorrow.',
      'The invoice will be sent to our AP team tomorrow.',
      'We will check and get back to you by Friday.',
      'I will get this to the right person on Monday.',
      'We will make a decision on the renewal by Dec 10.',
      'I am going to send you the remittance advice tomorrow.',
      'We are sending the signed contract today.',
      'I was told that the audit is scheduled for Dec 5.',
    ]) {
      expect(readReply(null, body, said).kind, body).not.toBe('promise');
    }
    expect(readReply(null, 'Sending a check for $750 toward the balance.', said)).toMatchObject({ kind: 'promise', date: null, amount: 75_000 });
    expect(readReply(null, 'Remittance will follow next week.', said)).toMatchObject({ kind: 'promise', date: '2026-12-04' });
    expect(readReply(null, 'the amount of 2.340,00 EUR will be transferred tomorrow.', said)).toMatchObject({ kind: 'promise', date: '2026-11-25', amount: 234_000 });
    expect(readReply(null, 'We will send it Friday.', said)).toMatchObject({ kind: 'promise', date: '2026-11-27' });
  });

  it('what the writer pays after someone pays them waits on that someone: no promise', () => {
    expect(readReply(null, 'Our customer will pay us on the 15th and we will pay you right after.', said).kind).toBe('none');
    expect(readReply(null, 'We will pay you on the 15th.', said)).toMatchObject({ kind: 'promise', date: '2026-12-15' });
  });
});

describe('reading within bounds', () => {
  it('reads only the opening of a very long reply: a promise far down is not found, and the text is not read whole', () => {
    const filler = 'The weather has been lovely here and the team says hello. '.repeat(400);
    expect(readReply(null, `${filler}\n\nWe will pay on Dec 4.`, '2026-11-24T10:00:00Z').kind).toBe('none');
    expect(readReply(null, `We will pay on Dec 4.\n\n${filler}`, '2026-11-24T10:00:00Z')).toMatchObject({ kind: 'promise', date: '2026-12-04' });
    // One endless sentence is read in part, and its sentence kept short.
    const endless = `We will pay on Dec 4 ${'and more '.repeat(3_000)}`;
    const r = readReply(null, endless, '2026-11-24T10:00:00Z');
    expect(r).toMatchObject({ kind: 'promise', date: '2026-12-04' });
    expect(r.sentence!.length).toBeLessThanOrEqual(500);
  });
});
