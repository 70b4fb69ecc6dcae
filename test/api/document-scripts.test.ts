/**
 * Every script a ledger holds prints (core/documents/fonts.ts, text-runs.ts): names and lines in
 * Arabic, Hebrew, Chinese, Japanese, Thai and emoji come back from the PDF's text layer
 * (pdftotext) in reading order, with no replacement marks; a character no bundled font has is
 * drawn as U+FFFD and the response says so.
 */
import { describe, expect, it } from 'vitest';
import { renderInvoice } from '../../core/documents/draw-invoice';
import { loadedFaceKeys, missingCharacterHeaders, woffToSfnt } from '../../core/documents/fonts';
import { logicalRuns, visualOrder } from '../../core/documents/text-runs';
import { call, useApiWorkspace } from '../support/api';
import { missingCharactersNote } from '../../renderer/src/documents/missing';
import { ledger } from '../support/ledger-fixtures';
import { keepPdf, pdfText } from '../support/pdf';

const NAMES = {
  arabic: 'شركة النور للتجارة',
  hebrew: 'חברת אור השחר',
  chinese: '王小明贸易有限公司',
  japanese: '株式会社さくら商事',
  thai: 'บริษัท ไทยเทรด จำกัด',
  emoji: '🍕 Pizza Palace 🚀',
};

/** pdftotext marks right-to-left stretches with embedding controls; the words are what a reader sees. */
const readable = (text: string) => text.replace(/[\u202A-\u202E\u2066-\u2069]/g, '');

describe('fonts load when a string needs them', () => {
  it('loads no fallback font for a document in Latin letters', async () => {
    const details = { company_name: 'Acme', legal_name: null, address: null, tax_id: null, payment_instructions: null, portal_link: null, footer: null, brand_primary: null, brand_accent: null, brand_colours: { primary: null, accent: null }, locale: 'en-US', paper: 'A4' as const, logo: null, updated_at: null, logoData: null };
    const drawn = await renderInvoice(
      { invoice_number: 'INV-1', invoice_date: '2026-10-01', due_date: '2026-10-31', currency: 'EUR', total_amount: 100, paid_amount: 0, balance: 100, closing_reason: null, closed_date: null, payment_link: null, customer_name: 'Ωμέγα Трейд Ltd', location: null, payments: [] },
      details,
      '2026-11-23',
    );
    expect(drawn.missing).toEqual([]);
    expect(loadedFaceKeys().sort()).toEqual(['bold', 'regular']);
  });
});

describe('text runs (pure)', () => {
  it('picks a face per character: DejaVu for Latin, Noto for Arabic, CJK and emoji, and keeps spaces beside emoji in DejaVu', () => {
    const faces = (text: string) => logicalRuns(text, 'regular').runs.map((r) => [r.text, r.face.key.replace(/-\d+$/, '').replace(/-\d+-/, '-N-')]);
    expect(faces('Acme شركة')).toEqual([
      ['Acme ', 'regular'],
      ['شركة', 'noto-sans-arabic-arabic'],
    ]);
    expect(faces('株式会社')[0][1]).toMatch(/^noto-sans-sc/);
    expect(faces('🍕 Pizza').map(([, face]) => face)).toEqual(['noto-emoji-N-', 'regular'].map((f) => (f === 'noto-emoji-N-' ? expect.stringMatching(/^noto-emoji/) : f)));
    expect(faces('🍕 Pizza')[1][0]).toBe(' Pizza');
  });

  it('orders runs by the bidi levels (UAX #9 L2): right-to-left words reversed, numbers inside them kept left to right', () => {
    const runs = (levels: number[]) => visualOrder(levels.map((level, i) => ({ level, id: i }))).map((r) => r.id);
    expect(runs([0, 0, 0])).toEqual([0, 1, 2]);
    expect(runs([1, 1, 1])).toEqual([2, 1, 0]);
    expect(runs([0, 1, 1, 0])).toEqual([0, 2, 1, 3]);
    expect(runs([1, 2, 2, 1])).toEqual([3, 1, 2, 0]);
    const { runs: logical } = logicalRuns('ادفع 1234 الآن', 'regular');
    expect(logical.map((r) => [r.text.trim(), r.level])).toEqual([
      ['ادفع', 1],
      ['1234', 2],
      ['', 1],
      ['الآن', 1],
    ]);
  });

  it('reports characters no face has, once each, and draws them as U+FFFD', () => {
    const { runs, missing } = logicalRuns('A𠮷B𠮷\u{10FFFD}', 'regular');
    expect(missing).toEqual(['𠮷', '\u{10FFFD}']);
    expect(runs.map((r) => r.text).join('')).toBe('A\uFFFDB\uFFFD\uFFFD');
    expect(missingCharacterHeaders(missing)).toEqual({
      'x-ardesk-missing-characters': 'U+20BB7 U+10FFFD',
      warning: '299 ardesk "2 characters could not be printed and show as a replacement mark: U+20BB7, U+10FFFD"',
    });
    expect(missingCharacterHeaders([])).toEqual({});
  });

  it("tells the collector in the app which characters a PDF could not print, from the response's header", () => {
    expect(missingCharactersNote('U+20BB7 U+10FFFD')).toBe('2 characters could not be printed and show as � in the PDF: “𠮷”, “\u{10FFFD}”. Check the names and addresses before sending it.');
    expect(missingCharactersNote('U+9C2F')).toBe('One character could not be printed and shows as � in the PDF: “鰯”. Check the names and addresses before sending it.');
    expect(missingCharactersNote(null)).toBeNull();
    expect(missingCharactersNote('garbage')).toBeNull();
  });

  it('unwraps a WOFF font to the TrueType file it holds (a non-WOFF file is left as it is)', () => {
    const ttf = Buffer.from([0, 1, 0, 0, 1, 2, 3]);
    expect(woffToSfnt(ttf)).toBe(ttf);
  });
});

describe('documents in every script', () => {
  const w = useApiWorkspace();
  const pdf = async (path: string) => {
    const res = await w.app.request(path, { headers: { authorization: `Token ${w.tokens.demo}` } });
    expect(res.status).toBe(200);
    return { missing: res.headers.get('x-ardesk-missing-characters'), warning: res.headers.get('warning'), bytes: new Uint8Array(await res.arrayBuffer()) };
  };

  it('prints an invoice per script: the bill-to name and the payment words read back in order, with no replacement marks and no warning', async () => {
    const l = ledger(w.engine, w.company);
    await call(w.app, 'PATCH', `${w.base}/document-details`, { token: w.tokens.demo, body: { payment_instructions: `ادفع إلى الحساب قبل نهاية الشهر\n请在月底前付款\nโปรดชำระเงิน` } });
    for (const [script, name] of Object.entries(NAMES)) {
      const customer = await l.customer({ name });
      const invoice = await l.invoice({ customer, number: `INV-${script}`, total: 100 });
      const res = await pdf(`${w.base}/invoices/${invoice}/document.pdf`);
      expect(res.missing, script).toBeNull();
      expect(res.warning, script).toBeNull();
      const text = readable(pdfText(res.bytes));
      keepPdf(`scripts-invoice-${script}`, res.bytes, script === 'arabic' ? 1 : 0);
      expect(text, script).not.toContain('\uFFFD');
      expect(text.split('\n').some((line) => line.trim() === name), `${script}: the bill-to name on a line of its own`).toBe(true);
      expect(text).toContain('ادفع إلى الحساب قبل نهاية الشهر');
      expect(text).toContain('请在月底前付款');
      expect(text).toContain('โปรดชำระเงิน');
    }
  });

  it('prints a statement whose name and invoice lines are in every script, each line read back in order', async () => {
    const l = ledger(w.engine, w.company);
    const customer = await l.customer({ name: NAMES.arabic, locations: [{ name: NAMES.hebrew, address_line1: NAMES.japanese, city: NAMES.thai, country: NAMES.chinese }] });
    const numbers = ['فاتورة', 'חשבונית', '发票', '請求書', 'ใบแจ้งหนี้', '🧾'];
    for (const number of numbers) await l.invoice({ customer, number, total: 50, dueDate: '2026-10-01' });
    const res = await pdf(`${w.base}/customers/${customer}/statement.pdf`);
    expect(res.missing).toBeNull();
    keepPdf('scripts-statement', res.bytes, 1);
    const text = readable(pdfText(res.bytes));
    expect(text).not.toContain('\uFFFD');
    expect(text).toContain(NAMES.arabic);
    for (const number of numbers) expect(text.split('\n').some((line) => line.trim().startsWith(number) && line.includes('$50.00')), number).toBe(true);
  });

  it('says which characters could not be printed: a warning header, the character drawn as U+FFFD', async () => {
    const l = ledger(w.engine, w.company);
    const customer = await l.customer({ name: 'Yoshida 𠮷野家 \u{10FFFD}' });
    const invoice = await l.invoice({ customer, number: 'INV-MISSING', total: 10 });
    const res = await pdf(`${w.base}/invoices/${invoice}/document.pdf`);
    expect(res.missing).toBe('U+20BB7 U+10FFFD');
    expect(res.warning).toContain('2 characters could not be printed');
    const text = pdfText(res.bytes);
    expect(text).toContain('Yoshida \uFFFD野家 \uFFFD');
    const statement = await pdf(`${w.base}/customers/${customer}/statement.pdf`);
    expect(statement.missing).toBe('U+20BB7 U+10FFFD');
  });
});
