/**
 * The page kit both documents are drawn with (pdfkit): text in any script (fonts.ts, text-runs.ts),
 * the company header, single-line table rows that break across pages with their header repeated,
 * and a footer with the company's text and "Page N of M" on every page.
 */
import type * as fontkit from 'fontkit';
import type { DocumentDetailsWithLogo } from './details';
import { type Face, freshGlyphs, primaryFace } from './fonts';
import { isBoundedPng } from './logo-size';
import { forgetShapedLines, isSimple, type ShapedGlyph, type ShapedLine, shapeLine, type Weight } from './text-runs';

export const MARGIN = 48;
const FOOTER_SPACE = 36;
export const TEXT_SIZE = 9;
const ROW_HEIGHT = 14;
const INK = '#111827';
const MUTED = '#4B5563';
const RULE = '#D1D5DB';

/** Formats dates and amounts in the company's locale; dates are calendar days (no time zone). */
export interface Formats {
  date(iso: string): string;
  money(minor: number, currency: string): string;
}

const formatsByLocale = new Map<string, Formats>();

/** Building Intl formatters costs more than formatting with them: one set per locale for the process. */
export function formatsFor(locale: string): Formats {
  let formats = formatsByLocale.get(locale);
  if (!formats) formatsByLocale.set(locale, (formats = makeFormats(locale)));
  return formats;
}

function makeFormats(locale: string): Formats {
  const dates = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' });
  const money = new Map<string, Intl.NumberFormat>();
  return {
    date: (iso) => dates.format(new Date(`${iso}T00:00:00Z`)),
    money(minor, currency) {
      let format = money.get(currency);
      if (!format) {
        try {
          format = new Intl.NumberFormat(locale, { style: 'currency', currency });
        } catch {
          format = new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
        }
        money.set(currency, format);
      }
      return format.format(minor / 100);
    },
  };
}

export interface Page {
  doc: PDFKit.PDFDocument;
  /** The company's brand colours on paper (their shades readable on white, colours.ts): the title in the primary, section rules in the accent. */
  brand: { title: string; rule: string | null };
  left: number;
  right: number;
  width: number;
  /** The lowest y content may reach on a page (the footer is below it). */
  bottom: number;
}

export function startDocument(details: DocumentDetailsWithLogo, title: string): Page {
  // The PDF packages load with the first document, on a drawing thread: the server's own thread
  // imports this module only for file names, and needs none of them.
  const regular = primaryFace('regular').font;
  const bold = primaryFace('bold').font;
  freshGlyphs();
  forgetShapedLines();
  const PDFDocument = require('pdfkit') as typeof import('pdfkit');
  const doc = new PDFDocument({
    size: details.paper === 'Letter' ? 'LETTER' : 'A4',
    margin: MARGIN,
    bufferPages: true,
    // No standard font: pdfkit would read Helvetica's metrics for nothing.
    font: null as unknown as string,
    info: { Title: title, Author: details.company_name, Creator: 'ardesk' },
  });
  doc.registerFont('regular', regular as unknown as string);
  doc.registerFont('bold', bold as unknown as string);
  doc.font('regular').fontSize(TEXT_SIZE).fillColor(INK);
  const left = MARGIN;
  const right = doc.page.width - MARGIN;
  const { primary, accent } = details.brand_colours;
  const brand = { title: primary?.light.colour ?? INK, rule: accent?.light.colour ?? null };
  return { doc, brand, left, right, width: right - left, bottom: doc.page.height - MARGIN - FOOTER_SPACE };
}

/** Payment methods in the words the app's panel uses (renderer/src/desk/payments.ts). */
const METHOD_WORDS: Record<string, string> = { ACH: 'ACH', WIRE: 'Wire', CHECK: 'Check', CREDIT_CARD: 'Credit card', CASH: 'Cash', OTHER: 'Other', EFT: 'EFT' };

export function methodWords(method: string): string {
  return METHOD_WORDS[method.toUpperCase()] ?? method.replace(/_/g, ' ');
}

/** A file name any system accepts: letters of any script kept, everything else a dash. */
export function safeFilePart(text: string): string {
  return text.normalize('NFC').replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'document';
}

/** Advance widths per face and character, in ems, kept for the process (fontkit's getters are slow). */
const advances = new WeakMap<fontkit.Font, Map<number, number>>();

/** What the page kit reads of pdfkit's embedded font (pdfkit does not type it). */
interface EmbeddedFace {
  id: string;
  font: fontkit.Font;
  subset: { includeGlyph(glyphId: number): number };
  /** Per subset glyph: advance width in thousandths of the size, and the characters it stands for (the text layer). */
  widths: number[];
  unicode: number[][];
  scale: number;
  ascender: number;
  ref(): unknown;
}

function current(doc: PDFKit.PDFDocument): { face: EmbeddedFace; size: number } {
  // pdfkit keeps the current face and size on the document without typing them.
  const state = doc as unknown as { _font: EmbeddedFace; _fontSize: number };
  return { face: state._font, size: state._fontSize };
}

/** The weight of the document's current face (always one of DejaVu's two: fallbacks are picked per run). */
function weightOf(doc: PDFKit.PDFDocument): Weight {
  return current(doc).face.font === primaryFace('bold').font ? 'bold' : 'regular';
}

/** Per document: the characters no bundled face has (drawn as U+FFFD), reported with the file. */
const missingByDoc = new WeakMap<PDFKit.PDFDocument, Set<string>>();

function noteMissing(doc: PDFKit.PDFDocument, chars: string[]): void {
  if (!chars.length) return;
  let set = missingByDoc.get(doc);
  if (!set) missingByDoc.set(doc, (set = new Set()));
  for (const char of chars) set.add(char);
}

/**
 * A fallback face as embedded in this document: registered on first use and opened the way pdfkit
 * opens a font (which makes it the current one), then the current face put back.
 */
function embedded(doc: PDFKit.PDFDocument, face: Face): EmbeddedFace {
  const state = doc as unknown as { _font: EmbeddedFace; _registeredFonts: Record<string, unknown> };
  const before = state._font;
  if (!state._registeredFonts[face.key]) doc.registerFont(face.key, face.font as unknown as string);
  doc.font(face.key);
  const opened = state._font;
  state._font = before;
  return opened;
}

function widthInEms(font: fontkit.Font, text: string): number {
  let widths = advances.get(font);
  if (!widths) advances.set(font, (widths = new Map()));
  let ems = 0;
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    let advance = widths.get(code);
    if (advance === undefined) {
      advance = font.glyphForCodePoint(code).advanceWidth / font.unitsPerEm;
      widths.set(code, advance);
    }
    ems += advance;
  }
  return ems;
}

/**
 * The width of a line of text at the document's current face and size. Text DejaVu draws one glyph
 * per character is measured from cached advance widths; any other text (right-to-left, shaped, or
 * in a fallback face) from its shaped runs. Cells are drawn with exactly these advances.
 */
export function measure(doc: PDFKit.PDFDocument, text: string): number {
  const { face, size } = current(doc);
  const weight = weightOf(doc);
  return (isSimple(text, weight) ? widthInEms(face.font, text) : shapeLine(text, weight).width) * size;
}

/** The text cut with an ellipsis to fit `width` at the current font and size, and its width. */
function fitted(doc: PDFKit.PDFDocument, text: string, width: number): { text: string; width: number } {
  const whole = measure(doc, text);
  if (whole <= width) return { text, width: whole };
  // Cut by characters, never inside a surrogate pair; the longest cut that fits, by bisection.
  const chars = Array.from(text);
  let fits = 0;
  let fitsWidth = measure(doc, '…');
  let low = 1;
  let high = chars.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const w = measure(doc, `${chars.slice(0, mid).join('')}…`);
    if (w <= width) {
      fits = mid;
      fitsWidth = w;
      low = mid + 1;
    } else high = mid - 1;
  }
  return { text: `${chars.slice(0, fits).join('')}…`, width: fitsWidth };
}

/** Per document and face: a character's glyph in the document's font subset, as the 4-digit hex a text operator takes. */
const subsetCodes = new WeakMap<EmbeddedFace, Map<number, string>>();

/**
 * The glyphs of a line, looked up character by character in the font's own character map. pdfkit's
 * `text` shapes every new string with fontkit (and re-measures it, and writes it as several pieces
 * of page content); for a 5,000-row statement that was most of 2 s of drawing. Table cells are
 * mostly invoice numbers, dates, amounts and names in Latin, Greek or Cyrillic, whose precomposed
 * letters need no shaping (other text goes through `shapedOps`); kerning is left out, as in
 * `measure`, so a right-aligned amount ends exactly at its edge.
 */
function encodeLine(face: EmbeddedFace, text: string): string {
  let codes = subsetCodes.get(face);
  if (!codes) subsetCodes.set(face, (codes = new Map()));
  let hex = '';
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    let glyphHex = codes.get(code);
    if (glyphHex === undefined) {
      const glyph = face.font.glyphForCodePoint(code);
      const gid = face.subset.includeGlyph(glyph.id);
      face.widths[gid] ??= glyph.advanceWidth * face.scale;
      face.unicode[gid] ??= [code];
      glyphHex = gid.toString(16).padStart(4, '0');
      codes.set(code, glyphHex);
    }
    hex += glyphHex;
  }
  return hex;
}

const num = (n: number) => String(Math.round(n * 100) / 100);

/** Per document and face: a shaped glyph's code, by glyph and the characters it stands for. */
const shapedCodes = new WeakMap<EmbeddedFace, Map<string, string>>();

/**
 * A shaped glyph's code in the document's subset. One outline may stand for several characters
 * (Arabic س and ش share a base under their dots): the subset gets the outline once per character
 * it stands for, so the text layer says which letter each one was.
 */
function shapedCode(face: EmbeddedFace, { glyph, codePoints }: ShapedGlyph): string {
  let codes = shapedCodes.get(face);
  if (!codes) shapedCodes.set(face, (codes = new Map()));
  const key = `${glyph.id}:${codePoints.join(',')}`;
  let code = codes.get(key);
  if (code === undefined) {
    let gid = face.subset.includeGlyph(glyph.id);
    const mapped = face.unicode[gid];
    if (mapped && mapped.join(',') !== codePoints.join(',')) {
      const glyphs = (face.subset as unknown as { glyphs: number[] }).glyphs;
      gid = glyphs.push(glyph.id) - 1;
    }
    face.widths[gid] ??= glyph.advanceWidth * face.scale;
    face.unicode[gid] ??= codePoints;
    code = gid.toString(16).padStart(4, '0');
    codes.set(key, code);
  }
  return code;
}

/**
 * A shaped line's operators from `x` on the baseline, run by run, each in its own face; the current
 * face is set again at the end, for the next cell in the same text object. A glyph moved by the
 * shaper (a mark over its letter, Arabic or Thai) is placed on its own.
 */
function shapedOps(doc: PDFKit.PDFDocument, line: ShapedLine, x: number, baseline: number): string {
  const { face: currentFace, size } = current(doc);
  const page = doc.page as unknown as { fonts: Record<string, unknown> };
  let ops = '';
  for (const run of line.runs) {
    const face = embedded(doc, run.face);
    page.fonts[face.id] ??= face.ref();
    const scale = size / run.face.font.unitsPerEm;
    ops += `/${face.id} ${num(size)} Tf\n`;
    let hex = '';
    let from = x;
    const flush = () => {
      if (hex) ops += `1 0 0 1 ${num(from)} ${num(baseline)} Tm <${hex}> Tj\n`;
      hex = '';
    };
    for (const shaped of run.glyphs) {
      const { glyph, xAdvance, xOffset, yOffset } = shaped;
      const code = shapedCode(face, shaped);
      if (xOffset || yOffset || xAdvance !== glyph.advanceWidth) {
        flush();
        ops += `1 0 0 1 ${num(x + xOffset * scale)} ${num(baseline + yOffset * scale)} Tm <${code}> Tj\n`;
        x += xAdvance * scale;
        from = x;
      } else {
        if (!hex) from = x;
        hex += code;
        x += xAdvance * scale;
      }
    }
    flush();
  }
  return `${ops}/${currentFace.id} ${num(size)} Tf\n`;
}

/**
 * The text-positioning and showing operators for one cell (current face and size), or '' for
 * nothing to show. Several cells of a row go into one text object (`writeCells`).
 */
function cellOps(doc: PDFKit.PDFDocument, text: string, x: number, y: number, width: number, align: 'left' | 'right'): string {
  if (!text) return '';
  const shown = fitted(doc, text.normalize('NFC'), width);
  const at = align === 'right' ? x + width - shown.width : x;
  const { face, size } = current(doc);
  // The text sits with its top at y (pdfkit's default baseline), in the page's own upward coordinates.
  const baseline = doc.page.height - y - (face.ascender / 1000) * size;
  const weight = weightOf(doc);
  if (isSimple(shown.text, weight)) return `1 0 0 1 ${num(at)} ${num(baseline)} Tm <${encodeLine(face, shown.text)}> Tj\n`;
  const line = shapeLine(shown.text, weight);
  noteMissing(doc, line.missing);
  return shapedOps(doc, line, at, baseline);
}

/** Writes cells' operators as one text object in the current face, size and fill colour. */
function writeCells(doc: PDFKit.PDFDocument, ops: string): void {
  if (!ops) return;
  const { face, size } = current(doc);
  const page = doc.page as unknown as { fonts: Record<string, unknown>; height: number };
  page.fonts[face.id] ??= face.ref();
  // pdfkit's pages draw in a flipped (downward) space; text is positioned in the page's own.
  doc.addContent(`q\n1 0 0 -1 0 ${num(page.height)} cm\nBT\n/${face.id} ${num(size)} Tf\n${ops}ET\nQ`);
}

/** One line of text at (x, y), left or right aligned in `width`, never wrapping. */
export function cell(doc: PDFKit.PDFDocument, text: string, x: number, y: number, width: number, align: 'left' | 'right' = 'left'): void {
  writeCells(doc, cellOps(doc, text, x, y, width, align));
}

/** Where a line may break: after spaces, and around each CJK character (those scripts put no spaces between words). */
const BREAKABLE = /\s+|[\u2E80-\u9FFF\uAC00-\uD7AF\uF900-\uFAFF\uFF00-\uFFEF]|[\u{20000}-\u{3FFFF}]|[^\s\u2E80-\u9FFF\uAC00-\uD7AF\uF900-\uFAFF\uFF00-\uFFEF\u{20000}-\u{3FFFF}]+/gu;

/** The text cut into lines that fit `width` at the current face and size: at its line breaks, then between words, else between characters. */
export function wrap(doc: PDFKit.PDFDocument, text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraphText of text.normalize('NFC').split(/\r?\n/)) {
    let line = '';
    let lineWidth = 0;
    const push = (text: string) => {
      // A word longer than the line is cut where it must be.
      let rest = text.trimEnd();
      while (measure(doc, rest) > width && Array.from(rest).length > 1) {
        const chars = Array.from(rest);
        let n = chars.length - 1;
        while (n > 1 && measure(doc, chars.slice(0, n).join('')) > width) n--;
        lines.push(chars.slice(0, n).join(''));
        rest = chars.slice(n).join('');
      }
      lines.push(rest);
    };
    // Tokens are words or single CJK characters: a line's width is the sum of its tokens'.
    for (const token of paragraphText.match(BREAKABLE) ?? []) {
      const tokenWidth = measure(doc, token);
      if (!line.trim() || /^\s+$/.test(token) || lineWidth + tokenWidth <= width) {
        line += token;
        lineWidth += tokenWidth;
        continue;
      }
      push(line);
      line = token;
      lineWidth = tokenWidth;
    }
    push(line);
  }
  return lines;
}

/**
 * Wrapped text at (x, y) in the current face, size and colour, each line in visual order (so
 * right-to-left text reads right); returns the y below the last line. pdfkit's own `text` has no
 * font fallback and no bidi, so every line of free text goes through here.
 */
export function textBlock(doc: PDFKit.PDFDocument, text: string, x: number, y: number, width: number, align: 'left' | 'right' = 'left'): number {
  const lineHeight = doc.currentLineHeight(true);
  let ops = '';
  for (const line of wrap(doc, text, width)) {
    ops += cellOps(doc, line, x, y, width, align);
    y += lineHeight;
  }
  writeCells(doc, ops);
  return y;
}

function drawLogo(page: Page, details: DocumentDetailsWithLogo, y: number): number {
  if (!details.logoData || !details.logo) return 0;
  const box = { width: 150, height: 56 };
  // Only a bounded PNG is drawn (render.ts bounds every logo first, logo.ts): never an SVG or a
  // file as uploaded, which could stand for billions of shapes or pixels.
  if (details.logo.type !== 'image/png' || !isBoundedPng(details.logoData)) return 0;
  try {
    page.doc.image(details.logoData, page.left, y, { fit: [box.width, box.height] });
    return box.height;
  } catch {
    // A logo that passed the size and type checks but does not decode is left out, not fatal.
    return 0;
  }
}

/** The first page's head: logo and company on the left, the document's title and facts on the right. Returns the y below it. */
export function drawHead(page: Page, details: DocumentDetailsWithLogo, title: string, facts: Array<[string, string]>): number {
  const { doc, left, right, width } = page;
  let y = MARGIN;
  const logoHeight = drawLogo(page, details, y);
  let leftY = y + (logoHeight ? logoHeight + 8 : 0);
  doc.font('bold').fontSize(12).fillColor(INK);
  leftY = textBlock(doc, details.company_name, left, leftY, width * 0.5) + 2;
  doc.font('regular').fontSize(TEXT_SIZE).fillColor(MUTED);
  const lines = [...(details.address ? details.address.split(/\r?\n/) : []), ...(details.tax_id ? [`Tax ID: ${details.tax_id}`] : [])];
  for (const line of lines) leftY = textBlock(doc, line, left, leftY, width * 0.5);
  const factsX = left + width * 0.55;
  const factsWidth = right - factsX;
  doc.font('bold').fontSize(16).fillColor(page.brand.title);
  y = textBlock(doc, title, factsX, y, factsWidth, 'right') + 6;
  doc.fontSize(TEXT_SIZE);
  for (const [label, value] of facts) {
    doc.font('regular').fillColor(MUTED);
    cell(doc, label, factsX, y, factsWidth * 0.5);
    doc.font('bold').fillColor(INK);
    cell(doc, value, factsX + factsWidth * 0.5, y, factsWidth * 0.5, 'right');
    y += ROW_HEIGHT;
  }
  doc.font('regular').fillColor(INK);
  return Math.max(leftY, y) + 16;
}

/** A bold heading with a rule under it. Starts a new page when fewer than `keep` points remain. */
export function heading(page: Page, y: number, text: string, keep = 60): number {
  const { doc, left, right } = page;
  if (y + keep > page.bottom) y = newPage(page);
  doc.font('bold').fontSize(11).fillColor(INK);
  cell(doc, text, left, y, right - left);
  y += 16;
  doc.moveTo(left, y).lineTo(right, y).lineWidth(page.brand.rule ? 1.5 : 0.5).strokeColor(page.brand.rule ?? RULE).stroke();
  doc.font('regular').fontSize(TEXT_SIZE);
  return y + 6;
}

/** Paragraphs of free text (payment instructions, notes), wrapped to the page width. */
export function paragraph(page: Page, y: number, text: string, color = INK): number {
  const { doc, left, width } = page;
  doc.font('regular').fontSize(TEXT_SIZE).fillColor(color);
  const height = wrap(doc, text, width).length * doc.currentLineHeight(true);
  if (y + height > page.bottom) y = newPage(page);
  y = textBlock(doc, text, left, y, width);
  doc.fillColor(INK);
  return y + 6;
}

const runningTitle = new WeakMap<PDFKit.PDFDocument, string>();

/** The one-line title repeated at the top of every page after the first. */
export function setRunningTitle(page: Page, text: string): void {
  runningTitle.set(page.doc, text);
}

export function newPage(page: Page): number {
  const { doc, left, width } = page;
  doc.addPage();
  const title = runningTitle.get(doc);
  if (!title) return MARGIN;
  doc.font('regular').fontSize(8).fillColor(MUTED);
  cell(doc, title, left, MARGIN, width);
  doc.fontSize(TEXT_SIZE).fillColor(INK);
  return MARGIN + 20;
}

export interface Column {
  label: string;
  /** Share of the page width. */
  share: number;
  align?: 'left' | 'right';
}

export interface Row {
  cells: string[];
  bold?: boolean;
}

function drawTableHeader(page: Page, columns: Column[], y: number): number {
  const { doc, left, right, width } = page;
  doc.rect(left, y - 2, width, ROW_HEIGHT + 2).fill('#F3F4F6');
  doc.font('bold').fontSize(8).fillColor(INK);
  let x = left;
  let ops = '';
  for (const column of columns) {
    const w = column.share * width;
    ops += cellOps(doc, column.label, x + 3, y + 1, w - 6, column.align ?? 'left');
    x += w;
  }
  writeCells(doc, ops);
  doc.font('regular').fontSize(TEXT_SIZE);
  y += ROW_HEIGHT + 2;
  doc.moveTo(left, y - 2).lineTo(right, y - 2).lineWidth(0.5).strokeColor(RULE).stroke();
  return y;
}

/**
 * Rows of single-line cells. A row that would run into the footer goes to a new page, which
 * starts with the column header again, so every page of a long table can be read on its own.
 */
export function table(page: Page, y: number, columns: Column[], rows: Row[]): number {
  const { doc, left, width } = page;
  if (y + 2 * ROW_HEIGHT > page.bottom) y = newPage(page);
  y = drawTableHeader(page, columns, y);
  for (const row of rows) {
    if (y + ROW_HEIGHT > page.bottom) y = drawTableHeader(page, columns, newPage(page));
    doc.font(row.bold ? 'bold' : 'regular');
    let x = left;
    let ops = '';
    for (let i = 0; i < columns.length; i++) {
      const w = columns[i].share * width;
      ops += cellOps(doc, row.cells[i] ?? '', x + 3, y, w - 6, columns[i].align ?? 'left');
      x += w;
    }
    writeCells(doc, ops);
    y += ROW_HEIGHT;
  }
  doc.font('regular');
  return y + 8;
}

/** Label/value lines right-aligned under a table (subtotals, total due). */
export function totals(page: Page, y: number, lines: Array<{ label: string; value: string; bold?: boolean }>): number {
  const { doc, left, width } = page;
  const needed = lines.length * ROW_HEIGHT;
  if (y + needed > page.bottom) y = newPage(page);
  const x = left + width * 0.5;
  for (const line of lines) {
    doc.font(line.bold ? 'bold' : 'regular').fontSize(line.bold ? 11 : TEXT_SIZE).fillColor(INK);
    cell(doc, line.label, x, y, width * 0.3);
    cell(doc, line.value, x + width * 0.3, y, width * 0.2 - 3, 'right');
    y += line.bold ? ROW_HEIGHT + 4 : ROW_HEIGHT;
  }
  doc.font('regular').fontSize(TEXT_SIZE);
  return y + 6;
}

/** A drawn document: the file, and the characters it could not draw (shown as U+FFFD), for the reader to be told. */
export interface DrawnDocument {
  pdf: Buffer;
  missing: string[];
}

/** Writes the footer on every page and returns the finished file. */
export function finish(page: Page, details: DocumentDetailsWithLogo): Promise<DrawnDocument> {
  const { doc, left, width } = page;
  const range = doc.bufferedPageRange();
  for (let i = 0; i < range.count; i++) {
    doc.switchToPage(range.start + i);
    // Text below the bottom margin would make pdfkit start a page: the footer sits in the margin.
    const margin = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    const y = doc.page.height - MARGIN - 12;
    doc.font('regular').fontSize(8).fillColor(MUTED);
    if (details.footer) cell(doc, details.footer.replace(/\s*\r?\n\s*/g, ' · '), left, y, width * 0.8);
    cell(doc, `Page ${i + 1} of ${range.count}`, left + width * 0.8, y, width * 0.2, 'right');
    doc.page.margins.bottom = margin;
  }
  runningTitle.delete(doc);
  const missing = [...(missingByDoc.get(doc) ?? [])];
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve({ pdf: Buffer.concat(chunks), missing }));
    doc.on('error', reject);
    doc.end();
  });
}
