/**
 * A line of text as the page draws it: cut into runs by the face that has each character (see
 * fonts.ts), put in visual order by the Unicode bidi algorithm (bidi-js), and each run shaped by
 * fontkit's layout engine (Arabic joining, Thai and Hebrew marks, ligatures) in its direction.
 * A character no face has is drawn as U+FFFD and reported, never left as an empty box.
 */
import type * as fontkit from 'fontkit';
import { type Face, faceFor, primaryFace } from './fonts';

export type Weight = 'regular' | 'bold';

export interface ShapedGlyph {
  glyph: fontkit.Glyph;
  /** The characters it stands for in the text layer. */
  codePoints: number[];
  /** In the face's units (divide by unitsPerEm for ems). */
  xAdvance: number;
  xOffset: number;
  yOffset: number;
}

export interface ShapedRun {
  face: Face;
  /** In visual order, left to right. */
  glyphs: ShapedGlyph[];
  /** Width in ems. */
  width: number;
}

export interface ShapedLine {
  runs: ShapedRun[];
  width: number;
  /** Characters no face has, in the order met (each once). */
  missing: string[];
}

/** Characters that need more than DejaVu's character map: right-to-left, or shaped, scripts. */
const COMPLEX = /[\u0590-\u08FF\u0E00-\u0E7F\uFB1D-\uFDFF\uFE70-\uFEFF\u200C-\u200F\u202A-\u202E\u2066-\u2069]|[\u{10800}-\u{10FFF}\u{1E800}-\u{1EFFF}]/u;
const RTL = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF\u200F\u202B\u202E\u2067]|[\u{10800}-\u{10FFF}\u{1E800}-\u{1EFFF}]/u;
/** Drawn by whichever face the neighbouring letter is in: marks, joiners, variation selectors. */
const CLINGS = /[\p{M}\u200C\u200D\uFE00-\uFE0F\u{E0020}-\u{E007F}\u{1F3FB}-\u{1F3FF}]/u;
/** Never drawn and never missing: bidi controls and other invisible format characters. */
const INVISIBLE = /[\p{Cf}\p{Cc}]/u;

const REPLACEMENT = 0xfffd;

/** True when DejaVu draws every character one glyph each, left to right (the page's fast path). */
export function isSimple(text: string, weight: Weight): boolean {
  // Printable ASCII (most invoice numbers, dates and amounts): DejaVu has every glyph.
  if (/^[\x20-\x7E]*$/.test(text)) return true;
  if (COMPLEX.test(text)) return false;
  const primary = primaryFace(weight);
  for (const char of text) {
    if (faceFor(char.codePointAt(0) as number, weight) !== primary) return false;
  }
  return true;
}

type BidiApi = ReturnType<typeof import('bidi-js').default>;
let bidi: BidiApi | null = null;

/** Embedding level per UTF-16 index: all 0 without a right-to-left character (no bidi work then). */
function levelsOf(text: string): Uint8Array {
  if (!RTL.test(text)) return new Uint8Array(text.length);
  // bidi-js's CommonJS build exports the factory itself; its types describe the ES module's default.
  bidi ??= (require('bidi-js') as typeof import('bidi-js').default)();
  return bidi.getEmbeddingLevels(text).levels;
}

interface LogicalRun {
  face: Face;
  level: number;
  text: string;
}

/** Splits the text into runs of one face and one bidi level, in logical order. */
export function logicalRuns(text: string, weight: Weight): { runs: LogicalRun[]; missing: string[] } {
  const levels = levelsOf(text);
  const runs: LogicalRun[] = [];
  const missing: string[] = [];
  let index = 0;
  for (const char of text) {
    const level = levels[index];
    index += char.length;
    const code = char.codePointAt(0) as number;
    const last = runs.at(-1);
    if (INVISIBLE.test(char) && !CLINGS.test(char)) continue;
    if (last && CLINGS.test(char)) {
      if (last.face.font.hasGlyphForCodePoint(code)) last.text += char;
      continue;
    }
    // A space or punctuation stays in the face of the letters around it when that face has it.
    const stays = last && last.face.text && last.level === level && !/\p{L}|\p{N}|\p{So}/u.test(char) && last.face.font.hasGlyphForCodePoint(code);
    let face = stays ? last.face : faceFor(code, weight);
    let drawn = char;
    if (!face) {
      if (!missing.includes(char)) missing.push(char);
      face = primaryFace(weight);
      drawn = String.fromCodePoint(REPLACEMENT);
    }
    if (last && last.face === face && last.level === level) last.text += drawn;
    else runs.push({ face, level, text: drawn });
  }
  return { runs, missing };
}

/** UAX #9 rule L2 on runs: from the highest level down to the lowest odd one, reverse each stretch at or above it. */
export function visualOrder<T extends { level: number }>(runs: T[]): T[] {
  const out = [...runs];
  if (out.length < 2) return out;
  const max = Math.max(...out.map((r) => r.level));
  const lowestOdd = Math.min(...out.map((r) => (r.level % 2 ? r.level : r.level + 1)));
  for (let level = max; level >= lowestOdd; level--) {
    for (let i = 0; i < out.length; i++) {
      if (out[i].level < level) continue;
      let j = i;
      while (j + 1 < out.length && out[j + 1].level >= level) j++;
      out.splice(i, j - i + 1, ...out.slice(i, j + 1).reverse());
      i = j;
    }
  }
  return out;
}

type GlyphMaker = (id: number, codePoints?: number[]) => fontkit.Glyph;

/**
 * fontkit's layout with glyphs of its own. fontkit caches one glyph object per glyph id with the
 * characters it was first made for; shaping maps several characters to one outline (Arabic س and
 * ش share a base under their dots), so a cached glyph would tell the text layer the wrong letter.
 */
function layoutWithOwnGlyphs(font: fontkit.Font, text: string, direction: 'ltr' | 'rtl'): fontkit.GlyphRun {
  const f = font as unknown as { _glyphs: Record<number, fontkit.Glyph | undefined>; getGlyph: GlyphMaker };
  const shared = f._glyphs;
  const make = Object.getPrototypeOf(font).getGlyph as GlyphMaker;
  f.getGlyph = (id, codePoints = []) => {
    const cached = shared[id];
    // The cached glyph when it stands for the same characters (it keeps its decoded metrics).
    if (!cached || cached.codePoints.join(',') === codePoints.join(',')) return make.call(font, id, codePoints);
    f._glyphs = {};
    try {
      return make.call(font, id, codePoints);
    } finally {
      f._glyphs = shared;
    }
  };
  try {
    return font.layout(text, undefined, undefined, undefined, direction);
  } finally {
    delete (f as Partial<typeof f>).getGlyph;
  }
}

function shapeRun(run: LogicalRun): ShapedRun {
  const font = run.face.font;
  const layout = layoutWithOwnGlyphs(font, run.text, run.level % 2 ? 'rtl' : 'ltr');
  const glyphs: ShapedGlyph[] = layout.glyphs.map((glyph, i) => ({ glyph, codePoints: [...glyph.codePoints], xAdvance: layout.positions[i].xAdvance, xOffset: layout.positions[i].xOffset, yOffset: layout.positions[i].yOffset }));
  // A character split into a mark and a spacing glyph (Thai sara am: nikhahit over the consonant,
  // then sara aa) is told by the spacing glyph, or a text reader sees a gap with no letter in it.
  for (let i = 1; i < glyphs.length; i++) {
    const mark = glyphs[i - 1];
    if (!glyphs[i].codePoints.length && glyphs[i].xAdvance > 0 && mark.xAdvance === 0 && mark.codePoints.length) {
      glyphs[i].codePoints = mark.codePoints;
      mark.codePoints = [];
    }
  }
  return { face: run.face, glyphs, width: glyphs.reduce((sum, g) => sum + g.xAdvance, 0) / font.unitsPerEm };
}

/** Lines shaped for the document being drawn: a cell is measured, maybe cut, then drawn. */
const shapedLines = new Map<string, ShapedLine>();
const SHAPED_LINES_KEPT = 2000;

/** Forgets the lines shaped so far (a new document starts with fresh glyphs, fonts.ts). */
export function forgetShapedLines(): void {
  shapedLines.clear();
}

/** The line shaped and in visual order, ready to place left to right. */
export function shapeLine(text: string, weight: Weight): ShapedLine {
  const key = `${weight}\u0000${text}`;
  let line = shapedLines.get(key);
  if (line) return line;
  const { runs, missing } = logicalRuns(text.normalize('NFC'), weight);
  const shaped = visualOrder(runs).map(shapeRun);
  line = { runs: shaped, width: shaped.reduce((sum, r) => sum + r.width, 0), missing };
  if (shapedLines.size >= SHAPED_LINES_KEPT) shapedLines.clear();
  shapedLines.set(key, line);
  return line;
}
