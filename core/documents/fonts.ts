/**
 * The faces the documents draw with, and which face draws each character. DejaVu Sans first
 * (Latin, Greek, Cyrillic, most symbols); then Noto families from @fontsource for the scripts it
 * lacks: Arabic, Hebrew, Thai, CJK (Chinese, Japanese kana and kanji, Korean hangul) and emoji
 * (monochrome). @fontsource ships each family cut into slices by Unicode range (its
 * unicode.json); a slice is read only when a string needs one of its characters, so a ledger
 * in Latin never loads a CJK byte, and one Chinese name loads one or two slices of ~150 KB, not
 * a 10 MB font. Slices are read as WOFF: fontkit cannot subset WOFF2 (its glyphs come out empty).
 */
import { readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import type * as fontkit from 'fontkit';

export interface Face {
  /** The name the face is registered under in each document. */
  key: string;
  font: fontkit.Font;
  /** A face for words, whose spaces and punctuation suit the letters beside them (not the emoji face). */
  text: boolean;
}

/** DejaVu Sans (dejavu-fonts-ttf, Bitstream Vera licence), resolved through its package. */
const PRIMARY_FILES = { regular: 'dejavu-fonts-ttf/ttf/DejaVuSans.ttf', bold: 'dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf' } as const;

interface Family {
  pkg: string;
  /** The slice names used (unicode.json keys); `null` for every numbered slice ("[0]".."[119]"). */
  slices: string[] | null;
  /** Characters of these scripts try this family before DejaVu (its Arabic and Hebrew are not shaped as well). */
  first?: RegExp;
  /** Pictures, not words: a space beside an emoji is DejaVu's, not the emoji face's (as wide as an emoji). */
  pictures?: boolean;
}

/** In the order they are tried. Each has 400 and 700 weights (OFL licence, in each package). */
const FAMILIES: Family[] = [
  { pkg: 'noto-sans-arabic', slices: ['arabic'], first: /\p{Script=Arabic}/u },
  { pkg: 'noto-sans-hebrew', slices: ['hebrew'], first: /\p{Script=Hebrew}/u },
  { pkg: 'noto-sans-thai', slices: ['thai'] },
  { pkg: 'noto-sans-sc', slices: null },
  { pkg: 'noto-emoji', slices: null, pictures: true },
  // Arrows, dingbats, box drawing and mathematical letters DejaVu lacks.
  { pkg: 'noto-sans-arabic', slices: ['symbols', 'math'] },
];

interface Slice {
  family: Family;
  name: string;
  ranges: Array<[number, number]>;
}

let slices: Slice[] | null = null;

/** Every slice with its ranges, from the packages' unicode.json (a few KB each; parsed once). */
function sliceIndex(): Slice[] {
  if (slices) return slices;
  slices = [];
  for (const family of FAMILIES) {
    const ranges = JSON.parse(readFileSync(require.resolve(`@fontsource/${family.pkg}/unicode.json`), 'utf8')) as Record<string, string>;
    for (const [name, list] of Object.entries(ranges)) {
      const wanted = family.slices ? family.slices.includes(name) : /^\[\d+\]$/.test(name);
      if (!wanted) continue;
      slices.push({ family, name, ranges: list.split(',').map(parseRange) });
    }
  }
  return slices;
}

function parseRange(text: string): [number, number] {
  const [start, end = start] = text.trim().replace(/^U\+/i, '').split('-');
  return [parseInt(start, 16), parseInt(end, 16)];
}

const inSlice = (slice: Slice, code: number) => slice.ranges.some(([a, b]) => code >= a && code <= b);

type Weight = 'regular' | 'bold';
const loaded = new Map<string, Face>();

/**
 * A WOFF file as the TrueType file it wraps. fontkit reads WOFF tables by inflating them on every
 * access (in JavaScript): a glyph outline read for a subset inflated the whole glyf table again,
 * most of a document's drawing time. Inflated once here, with zlib.
 */
export function woffToSfnt(woff: Buffer): Buffer {
  if (woff.readUInt32BE(0) !== 0x774f4646) return woff; // not 'wOFF'
  const numTables = woff.readUInt16BE(12);
  const tables = Array.from({ length: numTables }, (_, i) => {
    const at = 44 + i * 20;
    const [offset, compLength, origLength] = [woff.readUInt32BE(at + 4), woff.readUInt32BE(at + 8), woff.readUInt32BE(at + 12)];
    const stored = woff.subarray(offset, offset + compLength);
    const data = compLength < origLength ? inflateSync(stored, { maxOutputLength: origLength }) : stored;
    if (data.length !== origLength) throw new Error('A bundled font does not read as WOFF');
    return { tag: woff.readUInt32BE(at), checksum: woff.readUInt32BE(at + 16), data };
  });
  let entrySelector = 0;
  while (2 ** (entrySelector + 1) <= numTables) entrySelector++;
  const head = Buffer.alloc(12 + 16 * numTables);
  head.writeUInt32BE(woff.readUInt32BE(4), 0); // the flavour: TrueType or CFF
  head.writeUInt16BE(numTables, 4);
  head.writeUInt16BE(16 * 2 ** entrySelector, 6);
  head.writeUInt16BE(entrySelector, 8);
  head.writeUInt16BE(16 * numTables - 16 * 2 ** entrySelector, 10);
  const parts: Buffer[] = [head];
  let offset = head.length;
  tables.forEach((table, i) => {
    head.writeUInt32BE(table.tag, 12 + i * 16);
    head.writeUInt32BE(table.checksum, 16 + i * 16);
    head.writeUInt32BE(offset, 20 + i * 16);
    head.writeUInt32BE(table.data.length, 24 + i * 16);
    const padded = Buffer.alloc((table.data.length + 3) & ~3);
    table.data.copy(padded);
    parts.push(padded);
    offset += padded.length;
  });
  return Buffer.concat(parts);
}

function load(key: string, path: string, text = true): Face {
  let face = loaded.get(key);
  if (!face) {
    const { create } = require('fontkit') as typeof fontkit;
    face = { key, font: create(woffToSfnt(readFileSync(require.resolve(path)))) as fontkit.Font, text };
    loaded.set(key, face);
  }
  return face;
}

/** DejaVu Sans in the weight asked for; parsed once per process and shared by every document. */
export function primaryFace(weight: Weight): Face {
  return load(weight, PRIMARY_FILES[weight]);
}

function sliceFace(slice: Slice, weight: Weight): Face {
  const stem = slice.name.replace(/[[\]]/g, '');
  const w = weight === 'bold' ? 700 : 400;
  return load(`${slice.family.pkg}-${stem}-${w}`, `@fontsource/${slice.family.pkg}/files/${slice.family.pkg}-${stem}-${w}-normal.woff`, !slice.family.pictures);
}

/** Per weight and character: the face that draws it, or null when none does. */
const chosen: Record<Weight, Map<number, Face | null>> = { regular: new Map(), bold: new Map() };

/** The face that draws `code`: DejaVu, else the first family's slice whose font has the glyph. */
export function faceFor(code: number, weight: Weight): Face | null {
  const cache = chosen[weight];
  let face = cache.get(code);
  if (face !== undefined) return face;
  const primary = primaryFace(weight);
  const char = String.fromCodePoint(code);
  const candidates = sliceIndex().filter((s) => inSlice(s, code));
  const preferred = candidates.filter((s) => s.family.first?.test(char));
  face = null;
  for (const slice of preferred) {
    const f = sliceFace(slice, weight);
    if (f.font.hasGlyphForCodePoint(code)) {
      face = f;
      break;
    }
  }
  if (!face && primary.font.hasGlyphForCodePoint(code)) face = primary;
  if (!face) {
    for (const slice of candidates) {
      if (preferred.includes(slice)) continue;
      const f = sliceFace(slice, weight);
      if (f.font.hasGlyphForCodePoint(code)) {
        face = f;
        break;
      }
    }
  }
  cache.set(code, face);
  return face;
}

/**
 * Starts a document's use of the loaded faces. fontkit keeps the glyph objects it made, with the
 * characters they were made for; one made without them (while another document's subset was
 * written) would leave its character out of the next document's text layer. Each document
 * starts from fresh glyphs.
 */
export function freshGlyphs(): void {
  for (const face of loaded.values()) (face.font as unknown as { _glyphs: Record<number, unknown> })._glyphs = {};
}

/** How many faces this process has read (a test shows CJK slices load only when needed). */
export function loadedFaceKeys(): string[] {
  return [...loaded.keys()];
}

/** The characters as code points ("U+9C2F"), ASCII for a header and unambiguous in a log. */
export function codePointsOf(chars: string[]): string[] {
  return chars.map((char) => `U+${(char.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`);
}

/**
 * What a PDF response says when some characters could not be drawn (they show as U+FFFD):
 * `X-Ardesk-Missing-Characters` lists them for the app, which names them to the collector, and an
 * HTTP Warning says it in words for any other client. Nothing when every character printed.
 */
export function missingCharacterHeaders(missing: string[]): Record<string, string> {
  if (!missing.length) return {};
  const codes = codePointsOf(missing);
  const count = missing.length === 1 ? '1 character' : `${missing.length} characters`;
  return {
    'x-ardesk-missing-characters': codes.join(' '),
    warning: `299 ardesk "${count} could not be printed and show as a replacement mark: ${codes.join(', ')}"`,
  };
}
