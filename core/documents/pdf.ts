/**
 * The page kit both documents are drawn with (pdfkit): the embedded DejaVu Sans font, the company
 * header, single-line table rows that break across pages with their header repeated, and a footer
 * with the company's text and "Page N of M" on every page.
 */
import { readFileSync } from 'node:fs';
import type * as fontkit from 'fontkit';
import type { DocumentDetailsWithLogo } from './details';

/**
 * DejaVu Sans (dejavu-fonts-ttf, Bitstream Vera licence) covers Latin, Greek and Cyrillic, so a
 * customer's name prints in its own script. Resolved through the package, which the Electron
 * bundle keeps external, so it is found the same way under `ardesk serve` and the desktop.
 */
const FONT_FILES = { regular: 'dejavu-fonts-ttf/ttf/DejaVuSans.ttf', bold: 'dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf' } as const;
type Fonts = { regular: fontkit.Font; bold: fontkit.Font };
let fonts: Fonts | null = null;

/**
 * The two faces parsed once per process and shared by every document (pdfkit takes a parsed
 * fontkit font as a source): parsing DejaVu costs more than drawing a whole statement page, and
 * the shared font keeps its glyph layouts warm. Each document still embeds its own subset.
 */
function fontData(): Fonts {
  // The PDF packages load with the first document, on a drawing thread: the server's own thread
  // imports this module only for file names, and needs none of them.
  const { create } = require('fontkit') as typeof fontkit;
  fonts ??= {
    regular: create(readFileSync(require.resolve(FONT_FILES.regular))) as fontkit.Font,
    bold: create(readFileSync(require.resolve(FONT_FILES.bold))) as fontkit.Font,
  };
  // fontkit keeps the glyph objects it made, with the characters they were made for; one made
  // without them (while another document's subset was written) would leave its character out of
  // the next document's text layer. Each document starts from fresh glyphs.
  for (const face of [fonts.regular, fonts.bold]) (face as unknown as { _glyphs: Record<number, unknown> })._glyphs = {};
  return fonts;
}

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
  left: number;
  right: number;
  width: number;
  /** The lowest y content may reach on a page (the footer is below it). */
  bottom: number;
}

export function startDocument(details: DocumentDetailsWithLogo, title: string): Page {
  const { regular, bold } = fontData();
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
  return { doc, left, right, width: right - left, bottom: doc.page.height - MARGIN - FOOTER_SPACE };
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
 * The width of a line of text at the document's current face and size, from the glyphs' advance
 * widths. Cells are written with exactly these advances (see `cellOps`), so the measure is exact.
 */
export function measure(doc: PDFKit.PDFDocument, text: string): number {
  const { face, size } = current(doc);
  return widthInEms(face.font, text) * size;
}

/** The text cut with an ellipsis to fit `width` at the current font and size, and its width. */
function fitted(doc: PDFKit.PDFDocument, text: string, width: number): { text: string; width: number } {
  const whole = measure(doc, text);
  if (whole <= width) return { text, width: whole };
  let cut = text;
  let cutWidth = whole;
  while (cut.length > 1 && (cutWidth = measure(doc, `${cut}…`)) > width) cut = cut.slice(0, -1);
  return { text: `${cut}…`, width: cutWidth };
}

/** Per document and face: a character's glyph in the document's font subset, as the 4-digit hex a text operator takes. */
const subsetCodes = new WeakMap<EmbeddedFace, Map<number, string>>();

/**
 * The glyphs of a line, looked up character by character in the font's own character map. pdfkit's
 * `text` shapes every new string with fontkit (and re-measures it, and writes it as several pieces
 * of page content); for a 5,000-row statement that was most of 2 s of drawing. Table cells are
 * invoice numbers, dates, amounts and names in Latin, Greek or Cyrillic, whose precomposed letters
 * need no shaping; kerning is left out, as in `measure`, so a right-aligned amount ends exactly at
 * its edge.
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
  return `1 0 0 1 ${num(at)} ${num(baseline)} Tm <${encodeLine(face, shown.text)}> Tj\n`;
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

function drawLogo(page: Page, details: DocumentDetailsWithLogo, y: number): number {
  if (!details.logoData || !details.logo) return 0;
  const box = { width: 150, height: 56 };
  try {
    if (details.logo.type === 'image/svg+xml') {
      (require('svg-to-pdfkit') as typeof import('svg-to-pdfkit'))(page.doc, details.logoData.toString('utf8'), page.left, y, { ...box, preserveAspectRatio: 'xMinYMin meet' });
    } else {
      page.doc.image(details.logoData, page.left, y, { fit: [box.width, box.height] });
    }
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
  doc.text(details.company_name, left, leftY, { width: width * 0.5 });
  leftY = doc.y + 2;
  doc.font('regular').fontSize(TEXT_SIZE).fillColor(MUTED);
  const lines = [...(details.address ? details.address.split(/\r?\n/) : []), ...(details.tax_id ? [`Tax ID: ${details.tax_id}`] : [])];
  for (const line of lines) {
    doc.text(line, left, leftY, { width: width * 0.5 });
    leftY = doc.y;
  }
  const factsX = left + width * 0.55;
  const factsWidth = right - factsX;
  doc.font('bold').fontSize(16).fillColor(INK);
  doc.text(title, factsX, y, { width: factsWidth, align: 'right' });
  y = doc.y + 6;
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
  doc.text(text, left, y, { lineBreak: false });
  y += 16;
  doc.moveTo(left, y).lineTo(right, y).lineWidth(0.5).strokeColor(RULE).stroke();
  doc.font('regular').fontSize(TEXT_SIZE);
  return y + 6;
}

/** Paragraphs of free text (payment instructions, notes), wrapped to the page width. */
export function paragraph(page: Page, y: number, text: string, color = INK): number {
  const { doc, left, width } = page;
  doc.font('regular').fontSize(TEXT_SIZE).fillColor(color);
  const height = doc.heightOfString(text, { width });
  if (y + height > page.bottom) y = newPage(page);
  doc.text(text, left, y, { width });
  doc.fillColor(INK);
  return doc.y + 6;
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

/** Writes the footer on every page and returns the finished file. */
export function finish(page: Page, details: DocumentDetailsWithLogo): Promise<Buffer> {
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
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc.end();
  });
}
