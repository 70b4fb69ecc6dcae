/**
 * Reading PDFs back the way a customer's viewer would: Debian's poppler-utils (pdftotext,
 * pdftoppm; .ci/run installs them). Copies and page images go to test-output/documents/ so a
 * person can look at what the tests saw.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const DOCUMENTS_OUTPUT = resolve(__dirname, '../../test-output/documents');

/** The text of each page (pdftotext -layout keeps a table row on one line). */
export function pdfPages(pdf: Uint8Array): string[] {
  const text = execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', '-', '-'], { input: pdf, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const pages = text.split('\f');
  if (pages.at(-1)?.trim() === '') pages.pop();
  return pages;
}

export function pdfText(pdf: Uint8Array): string {
  return pdfPages(pdf).join('\n');
}

/** Keeps the PDF in test-output/documents and, with `pngPages`, its first pages as PNG images. */
export function keepPdf(name: string, pdf: Uint8Array, pngPages = 0): string {
  mkdirSync(DOCUMENTS_OUTPUT, { recursive: true });
  const file = join(DOCUMENTS_OUTPUT, `${name}.pdf`);
  writeFileSync(file, pdf);
  if (pngPages > 0) execFileSync('pdftoppm', ['-png', '-r', '70', '-f', '1', '-l', String(pngPages), file, join(DOCUMENTS_OUTPUT, name)]);
  return file;
}
