/**
 * How the matching reads references, names and accounts, pure. Invoice numbers are compared by a
 * key that ignores what customers change when they type one: case, the letters and separators
 * before the number, leading zeros and separators inside it ("inv-010231", "INV10231" and
 * "10231" are all INV-10231). The database indexes the same key (migration 0370).
 */

const LEADING = new Set('ABCDEFGHIJKLMNOPQRSTUVWXYZ #:._/-');
const INNER = /[-\s/._]/g;

/** The matching key of an invoice number, exactly as INVOICE_NUMBER_KEY computes it in SQL ('' when it has no number part). */
export function invoiceNumberKey(number: string): string {
  // SQLite's upper() changes ASCII letters only.
  const upper = number.replace(/[a-z]/g, (c) => c.toUpperCase());
  let i = 0;
  while (i < upper.length && LEADING.has(upper[i])) i++;
  while (i < upper.length && upper[i] === '0') i++;
  // SQL's replace() only drops the exact characters '-', ' ', '/', '.', '_': keep to those.
  return upper.slice(i).replace(/[-/._ ]/g, '');
}

/** Keys shorter than this are too common in free text (days, quantities) to be read as invoice numbers. */
const MIN_KEY_LENGTH = 3;
const MAX_KEY_LENGTH = 30;
/** A remittance text names a handful of invoices; past this many keys the rest is noise. */
export const MAX_KEYS_PER_TEXT = 24;

/**
 * Every invoice-number key a remittance text may mean: each word with a digit in it, whole
 * ("INV-2024-0042") and in its parts ("10231/10232"), in order of appearance, without repeats.
 */
export function referenceKeys(text: string): string[] {
  const keys: string[] = [];
  const seen = new Set<string>();
  const add = (candidate: string) => {
    if (!/\d/.test(candidate)) return;
    const key = invoiceNumberKey(candidate);
    if (key.length < MIN_KEY_LENGTH || key.length > MAX_KEY_LENGTH || !/\d/.test(key) || seen.has(key)) return;
    seen.add(key);
    keys.push(key);
  };
  for (const match of text.matchAll(/[A-Za-z0-9]+(?:[-/._#][A-Za-z0-9]+)*/g)) {
    if (keys.length >= MAX_KEYS_PER_TEXT) break;
    const word = match[0];
    add(word);
    const parts = word.split(/[-/._#]/);
    if (parts.length > 1) for (const part of parts) add(part);
    // "INV10231" glued to its prefix: the digits alone too.
    const digits = /\d+$/.exec(word)?.[0];
    if (digits && digits !== word) add(digits);
  }
  return keys.slice(0, MAX_KEYS_PER_TEXT);
}

/** Whether an invoice's number is written in the text as it is (case and separators aside): a stronger sign than a key. */
export function numberWrittenIn(number: string, text: string): boolean {
  const compact = number.toUpperCase().replace(INNER, '');
  return compact.length > 0 && text.toUpperCase().replace(INNER, '').includes(compact);
}

/** An IBAN or account number as compared: upper case, no spaces or separators. */
export function normalizeAccount(account: string | null): string | null {
  if (!account) return null;
  const compact = account.toUpperCase().replace(/[^A-Z0-9]/g, '');
  return compact.length >= 4 ? compact : null;
}

/** Words of a company's name that say nothing about which company it is. */
const NOISE_WORDS = new Set([
  'inc', 'incorporated', 'llc', 'ltd', 'limited', 'co', 'corp', 'corporation', 'company', 'gmbh', 'ag', 'sa', 'sarl', 'bv', 'nv', 'plc', 'pty', 'srl', 'spa', 'kg', 'oy', 'ab', 'as',
  'the', 'and', 'of', 'und', 'et', 'group', 'holdings',
]);

/** The words of a payer's or customer's name that identify it: lower case, accents dropped, legal forms left out. */
export function nameTokens(name: string): string[] {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1 && !NOISE_WORDS.has(w));
}

/** Name words repeat across thousands of customers and payers: their letter pairs are worked out once. */
const BIGRAM_CACHE_LIMIT = 100_000;
const bigramCache = new Map<string, Set<string>>();

function bigrams(word: string): Set<string> {
  let grams = bigramCache.get(word);
  if (grams) return grams;
  grams = new Set<string>();
  for (let i = 0; i < word.length - 1; i++) grams.add(word.slice(i, i + 2));
  if (bigramCache.size >= BIGRAM_CACHE_LIMIT) bigramCache.clear();
  bigramCache.set(word, grams);
  return grams;
}

/** Dice similarity of two words by their letter pairs (0..1): tolerant of a typo or an abbreviation's end. */
function wordSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length < 2 || b.length < 2) return 0;
  const x = bigrams(a);
  const y = bigrams(b);
  let common = 0;
  for (const g of x) if (y.has(g)) common++;
  return (2 * common) / (x.size + y.size);
}

/**
 * How alike a payer's name is to a customer's (0..1): each word of the shorter name paired with its
 * closest word in the other, averaged. "HAMILTON SUPPLY CO" and "Hamilton Supply, Inc." are 1;
 * "J SMITH" and "Smith Bakery" about half.
 */
export function nameSimilarity(payer: string[], customer: string[]): number {
  if (!payer.length || !customer.length) return 0;
  const [short, long] = payer.length <= customer.length ? [payer, customer] : [customer, payer];
  let sum = 0;
  for (const w of short) sum += Math.max(...long.map((v) => wordSimilarity(w, v)));
  // Words of the longer name left unpaired lower the score a little, so "Smith" is not "Smith Bakery".
  return (sum / short.length) * (0.85 + (0.15 * short.length) / long.length);
}
