import { deflateSync } from 'node:zlib';
import { beforeEach, describe, expect, it } from 'vitest';
import { canonicalLocale, logoProblem, sniffLogo } from '../../core/documents/details';
import { statementTotals } from '../../core/documents/draw-statement';
import { call, useApiWorkspace } from '../support/api';
import { ledger, type Ledger } from '../support/ledger-fixtures';
import { keepPdf, pdfPages, pdfText } from '../support/pdf';

/** A real 2x2 PNG (signature, IHDR, IDAT, IEND with their CRCs). */
function tinyPng(): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const out = Buffer.alloc(8 + data.length + 4);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(2, 0);
  ihdr.writeUInt32BE(2, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const raw = Buffer.from([0, 37, 99, 235, 37, 99, 235, 0, 37, 99, 235, 37, 99, 235]);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

const SVG = '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><rect width="120" height="40" fill="#1d4ed8"/><text x="10" y="26" fill="#fff">ACME</text></svg>';

describe('document rules (pure)', () => {
  it('knows a logo by its content, not its name, and refuses empty, oversized or non-image files', () => {
    expect(sniffLogo(tinyPng())).toBe('image/png');
    expect(sniffLogo(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]))).toBe('image/jpeg');
    expect(sniffLogo(Buffer.from(SVG))).toBe('image/svg+xml');
    expect(sniffLogo(Buffer.from('\uFEFF<svg viewBox="0 0 1 1"></svg>'))).toBe('image/svg+xml');
    expect(sniffLogo(Buffer.from('%PDF-1.7 not an image'))).toBeNull();
    expect(sniffLogo(Buffer.from('<html><svg></svg></html>'))).toBeNull();
    expect(logoProblem(Buffer.alloc(0))).toBe('The logo file is empty');
    expect(logoProblem(Buffer.from('hello'))).toBe('The logo must be a PNG, JPEG or SVG image');
    const big = Buffer.concat([tinyPng(), Buffer.alloc(1024 * 1024)]);
    expect(logoProblem(big)).toBe('The logo is 1.0 MB; use an image of at most 1 MB');
    expect(logoProblem(tinyPng())).toBeNull();
  });

  it('accepts locales Intl knows, in canonical form', () => {
    expect(canonicalLocale('en-gb')).toBe('en-GB');
    expect(canonicalLocale(' de-DE ')).toBe('de-DE');
    expect(canonicalLocale('not a locale')).toBeNull();
    expect(canonicalLocale('')).toBeNull();
  });

  it('sums open amounts into aging buckets by days past the statement date, per currency', () => {
    const inv = (due: string, open: number, currency = 'USD') => ({ invoice_number: due, invoice_date: '2026-01-01', due_date: due, currency, total_amount: open, paid: 0, open });
    const totals = statementTotals([inv('2026-11-30', 100), inv('2026-11-23', 50), inv('2026-11-22', 200), inv('2026-09-01', 400), inv('2026-08-01', 800), inv('2026-11-01', 7, 'EUR')], '2026-11-23');
    expect(totals.map((t) => t.currency)).toEqual(['EUR', 'USD']);
    const usd = totals[1];
    expect(usd.aging.map((a) => [a.bucket, a.open, a.count])).toEqual([
      ['current', 150, 2],
      ['1_30', 200, 1],
      ['31_60', 0, 0],
      ['61_90', 400, 1],
      ['91_over', 800, 1],
    ]);
    expect(usd.total_due).toBe(1550);
    expect(usd.overdue).toBe(1400);
    expect(totals[0]).toMatchObject({ total_due: 7, overdue: 7 });
  });
});

describe('documents API (extension)', () => {
  const w = useApiWorkspace();
  let l: Ledger;

  beforeEach(async () => {
    l = ledger(w.engine, w.company);
  });

  const send = (method: string, path: string, body?: unknown, as = w.tokens.demo) => call(w.app, method, path, { token: as, body });
  const pdf = async (path: string, as = w.tokens.demo) => {
    const res = await w.app.request(path, { headers: { authorization: `Token ${as}` } });
    return { status: res.status, type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition'), bytes: new Uint8Array(await res.arrayBuffer()) };
  };
  const uploadLogo = (data: Buffer, name: string, as = w.tokens.demo) => {
    const form = new FormData();
    form.set('file', new File([new Uint8Array(data)], name));
    return w.app.request(`${w.base}/document-details/logo`, { method: 'PUT', headers: { authorization: `Token ${as}` }, body: form });
  };

  it('keeps company details for documents: defaults, partial updates, clear refusals', async () => {
    const initial = await send('GET', `${w.base}/document-details`);
    expect(initial.status).toBe(200);
    expect(initial.body).toMatchObject({ company_name: 'Acme Supply', legal_name: null, locale: 'en-US', paper: 'A4', logo: null, updated_at: null });

    const saved = await send('PATCH', `${w.base}/document-details`, {
      legal_name: ' Acme Supply GmbH ',
      address: 'Hauptstraße 1\n10115 Berlin',
      tax_id: 'DE123456789',
      payment_instructions: 'IBAN DE89 3704 0044 0532 0130 00',
      portal_link: 'https://pay.acme.example/portal',
      locale: 'de-de',
      paper: 'Letter',
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ company_name: 'Acme Supply GmbH', legal_name: 'Acme Supply GmbH', locale: 'de-DE', paper: 'Letter', updated_at: '2026-11-23T12:00:00.000Z' });

    const bad = await send('PATCH', `${w.base}/document-details`, { locale: 'klingon of mars', portal_link: 'javascript:alert(1)', legal_name: 'Changed' });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
    expect(Object.keys(bad.body.errors).sort()).toEqual(['locale', 'portal_link']);
    expect((await send('PATCH', `${w.base}/document-details`, { paper: 'A3' })).status).toBe(400);
    expect((await send('GET', `${w.base}/document-details`)).body.legal_name).toBe('Acme Supply GmbH');

    expect((await send('PATCH', `${w.base}/document-details`, { tax_id: '   ' })).body.tax_id).toBeNull();
    expect((await send('PATCH', `${w.base}/document-details`, { footer: 'x' }, w.tokens.watcher)).status).toBe(403);
    expect((await send('GET', `${w.base}/document-details`, undefined, w.tokens.watcher)).status).toBe(200);
    expect((await send('GET', `${w.base}/document-details`, undefined, w.tokens.rival)).status).toBe(403);
  });

  it('takes a PNG or SVG logo checked by content, keeps it as a PNG, and refuses other files or one over 1 MB', async () => {
    const png = await uploadLogo(tinyPng(), 'logo.png');
    expect(png.status).toBe(200);
    const kept = (await png.json()).logo;
    expect(kept.type).toBe('image/png');
    const back = await w.app.request(`${w.base}/document-details/logo`, { headers: { authorization: `Token ${w.tokens.demo}` } });
    expect(back.headers.get('content-type')).toBe('image/png');
    // Re-encoded, not the file as sent: the same 2x2 pixels in a PNG of its own.
    const backPng = Buffer.from(await back.arrayBuffer());
    expect(backPng.length).toBe(kept.bytes);
    expect([backPng.readUInt32BE(16), backPng.readUInt32BE(20)]).toEqual([2, 2]);

    const text = await uploadLogo(Buffer.from('just text'), 'logo.png');
    expect(text.status).toBe(400);
    expect((await text.json()).detail).toBe('The logo must be a PNG, JPEG or SVG image');
    const big = await uploadLogo(Buffer.concat([tinyPng(), Buffer.alloc(1_300_000)]), 'big.png');
    expect(big.status).toBe(400);
    expect((await big.json()).detail).toBe('The logo is 1.2 MB; use an image of at most 1 MB');
    expect((await send('GET', `${w.base}/document-details`)).body.logo.type).toBe('image/png');

    // An SVG is rasterised: 120 x 40 scaled to fit 1200 x 400.
    const svg = await uploadLogo(Buffer.from(SVG), 'logo.svg');
    expect((await svg.json()).logo.type).toBe('image/png');
    const svgBack = await w.app.request(`${w.base}/document-details/logo`, { headers: { authorization: `Token ${w.tokens.demo}` } });
    expect(svgBack.headers.get('content-type')).toBe('image/png');
    expect(svgBack.headers.get('content-security-policy')).toContain('sandbox');
    const raster = Buffer.from(await svgBack.arrayBuffer());
    expect([raster.readUInt32BE(16), raster.readUInt32BE(20)]).toEqual([1200, 400]);
    expect((await uploadLogo(tinyPng(), 'logo.png', w.tokens.watcher)).status).toBe(403);

    const removed = await send('DELETE', `${w.base}/document-details/logo`);
    expect(removed.body.logo).toBeNull();
    expect((await send('GET', `${w.base}/document-details/logo`)).status).toBe(404);
  });

  it('makes an invoice copy with its number, dates, amounts, status and the company details', async () => {
    await send('PATCH', `${w.base}/document-details`, { legal_name: 'Acme Supply Ltd', address: '1 Market Street\nLondon EC1A 1AA', tax_id: 'GB 123 4567 89', payment_instructions: 'Sort code 12-34-56, account 12345678', footer: 'Registered in England No. 01234567' });
    await uploadLogo(tinyPng(), 'logo.png');
    const customer = await l.customer({ name: 'Ωμέγα Τεχνική Α.Ε.', locations: [{ name: 'Head office', address_line1: 'Λεωφόρος Κηφισίας 10', city: 'Αθήνα', postal_code: '115 26', country: 'Greece' }] });
    const location = await w.engine.db.selectFrom('customer_locations').select('id').where('customer_id', '=', customer).executeTakeFirstOrThrow();
    const invoice = await l.invoice({ customer, number: 'INV-2026-0042', total: 1250, invoiceDate: '2026-09-15', dueDate: '2026-10-15' });
    await w.engine.db.updateTable('invoices').set({ customer_location_id: location.id, payment_link: 'https://pay.acme.example/INV-2026-0042' }).where('id', '=', invoice).execute();
    await l.payment({ invoice, amount: 250, payment_date: '2026-10-20', payment_method: 'WIRE' });

    const res = await pdf(`${w.base}/invoices/${invoice}/document.pdf`);
    expect(res.status).toBe(200);
    expect(res.type).toBe('application/pdf');
    expect(res.disposition).toContain("filename*=UTF-8''Invoice-INV-2026-0042.pdf");
    expect(Buffer.from(res.bytes.subarray(0, 5)).toString()).toBe('%PDF-');
    keepPdf('invoice-copy', res.bytes, 1);
    const text = pdfText(res.bytes);
    for (const expected of [
      'Copy of invoice',
      'INV-2026-0042',
      'Sep 15, 2026',
      'Oct 15, 2026',
      'Past due 31-60',
      '$1,250.00',
      '$250.00',
      '$1,000.00',
      'Ωμέγα Τεχνική Α.Ε.',
      'Λεωφόρος Κηφισίας 10',
      'Acme Supply Ltd',
      'Tax ID: GB 123 4567 89',
      'Sort code 12-34-56, account 12345678',
      'https://pay.acme.example/INV-2026-0042',
      'Registered in England No. 01234567',
      'Page 1 of 1',
      'This is a copy of invoice INV-2026-0042',
    ]) {
      expect(text, expected).toContain(expected);
    }
    expect(text).toMatch(/it is not the\s+original document/);
    expect(text).toMatch(/Open\s+\$1,000\.00/);
    expect(text).toMatch(/Oct 20, 2026\s+Wire\s+\$250\.00/);

    expect((await pdf(`${w.base}/invoices/${invoice}/document.pdf`, w.tokens.watcher)).status).toBe(200);
    expect((await pdf(`${w.base}/invoices/${invoice}/document.pdf`, w.tokens.rival)).status).toBe(403);
    const theirs = ledger(w.engine, w.other);
    const theirInvoice = await theirs.invoice({ customer: await theirs.customer({ name: 'Not Yours' }), number: 'X-1', total: 10 });
    expect((await pdf(`${w.base}/invoices/${theirInvoice}/document.pdf`)).status).toBe(404);
    const unknown = await call(w.app, 'GET', `${w.base}/invoices/0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a/document.pdf`, { token: w.tokens.demo });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toContain('application/problem+json');
  });

  it('prints amounts and dates in the company locale', async () => {
    await send('PATCH', `${w.base}/document-details`, { locale: 'de-DE' });
    const customer = await l.customer({ name: 'Müller GmbH', currency: 'EUR' });
    const invoice = await l.invoice({ customer, number: 'R-7', total: 1234.5, invoiceDate: '2026-11-01', dueDate: '2026-12-01' });
    const text = pdfText((await pdf(`${w.base}/invoices/${invoice}/document.pdf`)).bytes);
    expect(text).toContain('1.234,50 €');
    expect(text).toContain('01.12.2026');
  });

  it("prints a US company's documents on Letter with US dates, and a US address as the US writes it", async () => {
    await w.engine.db.updateTable('companies').set({ country: 'US' }).where('id', '=', w.company).execute();
    expect((await send('GET', `${w.base}/document-details`)).body).toMatchObject({ paper: 'Letter', locale: 'en-US' });
    const customer = await l.customer({ name: 'Union Bay Co', locations: [{ name: 'Office', address_line1: '4500 Union Bay Pl NE', city: 'Seattle', region: 'WA', postal_code: '98162', country: 'US' }] });
    const location = await w.engine.db.selectFrom('customer_locations').select('id').where('customer_id', '=', customer).executeTakeFirstOrThrow();
    const invoice = await l.invoice({ customer, number: 'US-1', total: 400, invoiceDate: '2026-11-01', dueDate: '2026-12-01' });
    await w.engine.db.updateTable('invoices').set({ customer_location_id: location.id }).where('id', '=', invoice).execute();
    const bytes = (await pdf(`${w.base}/invoices/${invoice}/document.pdf`)).bytes;
    expect(pdfText(bytes)).toContain('Seattle, WA 98162');
    expect(pdfText(bytes)).not.toContain('98162 Seattle');
    // Letter is 612 x 792 points (A4 would be 595.28 x 841.89).
    expect(Buffer.from(bytes).toString('latin1')).toMatch(/\/MediaBox \[0 0 612 792\]/);
    const statement = await pdf(`${w.base}/customers/${customer}/statement.pdf`);
    expect(pdfText(statement.bytes)).toContain('Seattle, WA 98162');
    // A company that chose A4 keeps it.
    await send('PATCH', `${w.base}/document-details`, { paper: 'A4' });
    expect(Buffer.from((await pdf(`${w.base}/invoices/${invoice}/document.pdf`)).bytes).toString('latin1')).toMatch(/\/MediaBox \[0 0 595\.28 841\.89\]/);
  });

  it('makes a statement of account: open invoices with days past due, aging subtotals, total due, recent payments', async () => {
    await send('PATCH', `${w.base}/document-details`, { payment_instructions: 'Wire to IBAN GB29 NWBK 6016 1331 9268 19', portal_link: 'https://pay.acme.example' });
    const customer = await l.customer({ name: 'Северсталь Трейд', locations: [{ name: 'Office', address_line1: 'ул. Ленина 5', city: 'Москва' }] });
    await l.invoice({ customer, number: 'S-1', total: 100, invoiceDate: '2026-11-01', dueDate: '2026-12-01' });
    await l.invoice({ customer, number: 'S-2', total: 200, invoiceDate: '2026-10-01', dueDate: '2026-11-13' });
    const s3 = await l.invoice({ customer, number: 'S-3', total: 500, invoiceDate: '2026-07-01', dueDate: '2026-08-01' });
    const paidOff = await l.invoice({ customer, number: 'S-4', total: 75, invoiceDate: '2026-09-01', dueDate: '2026-10-01' });
    await l.payment({ invoice: s3, amount: 120, payment_date: '2026-11-02', payment_method: 'ACH' });
    await l.payment({ invoice: paidOff, amount: 75, payment_date: '2026-10-05', payment_method: 'CHECK' });

    const res = await pdf(`${w.base}/customers/${customer}/statement.pdf?as_of=2026-11-23`);
    expect(res.status).toBe(200);
    expect(res.type).toBe('application/pdf');
    keepPdf('statement', res.bytes, 1);
    const text = pdfText(res.bytes);
    expect(text).toContain('Statement of account');
    expect(text).toContain('Северсталь Трейд');
    expect(text).toContain('ул. Ленина 5');
    expect(text).toMatch(/S-1\s+Nov 1, 2026\s+Dec 1, 2026\s+\$100\.00\s+\$0\.00\s+\$100\.00/);
    expect(text).toMatch(/S-2\s+Oct 1, 2026\s+Nov 13, 2026\s+10\s+\$200\.00\s+\$0\.00\s+\$200\.00/);
    expect(text).toMatch(/S-3\s+Jul 1, 2026\s+Aug 1, 2026\s+114\s+\$500\.00\s+\$120\.00\s+\$380\.00/);
    expect(text).not.toMatch(/S-4\s+Sep 1/);
    expect(text).toMatch(/Current \(1\)\s+\$100\.00/);
    expect(text).toMatch(/1-30 days \(1\)\s+\$200\.00/);
    expect(text).toMatch(/90\+ days \(1\)\s+\$380\.00/);
    expect(text).toMatch(/Overdue\s+\$580\.00/);
    expect(text).toMatch(/Total due\s+\$680\.00/);
    expect(text).toMatch(/Nov 2, 2026\s+S-3\s+ACH\s+\$120\.00/);
    expect(text).toMatch(/Oct 5, 2026\s+S-4\s+Check\s+\$75\.00/);
    expect(text).toContain('Wire to IBAN GB29 NWBK 6016 1331 9268 19');
    expect(text).toContain('Pay online: https://pay.acme.example');

    // As of a past date: payments settled later do not count yet, invoices issued later are left out.
    const before = pdfText((await pdf(`${w.base}/customers/${customer}/statement.pdf?as_of=2026-10-15`)).bytes);
    expect(before).toMatch(/S-3\s+Jul 1, 2026\s+Aug 1, 2026\s+75\s+\$500\.00\s+\$0\.00\s+\$500\.00/);
    expect(before).not.toContain('S-1 ');
    expect(before).toMatch(/Total due\s+\$700\.00/);

    const activity = pdfText((await pdf(`${w.base}/customers/${customer}/statement.pdf?as_of=2026-11-23&from=2026-10-01&to=2026-11-05`)).bytes);
    expect(activity).toContain('Activity from Oct 1, 2026 to Nov 5, 2026');
    expect(activity).toMatch(/Oct 1, 2026\s+Invoice S-2\s+\$200\.00/);
    expect(activity).toMatch(/Nov 2, 2026\s+Payment on S-3\s+\$120\.00/);
    expect(activity).not.toContain('Invoice S-3');
  });

  it('gives a customer with nothing open a statement that says so', async () => {
    const customer = await l.customer({ name: 'Paid Up Inc' });
    const res = await pdf(`${w.base}/customers/${customer}/statement.pdf?as_of=2026-11-23`);
    expect(res.status).toBe(200);
    const text = pdfText(res.bytes);
    expect(text).toContain('There are no open invoices on this account as of Nov 23, 2026. Nothing is due.');
    expect(text).not.toContain('Total due');
  });

  it('refuses a bad date or period with problem+json, and scopes statements to the company', async () => {
    const customer = await l.customer({ name: 'Dates Co' });
    for (const query of ['as_of=2026-02-30', 'as_of=23.11.2026', 'from=2026-11-01', 'from=2026-11-10&to=2026-11-01']) {
      const res = await call(w.app, 'GET', `${w.base}/customers/${customer}/statement.pdf?${query}`, { token: w.tokens.demo });
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type'), query).toContain('application/problem+json');
    }
    expect((await pdf(`${w.base}/customers/${customer}/statement.pdf`, w.tokens.watcher)).status).toBe(200);
    expect((await call(w.app, 'GET', `${w.base}/customers/${customer}/statement.pdf`, { token: w.tokens.rival })).status).toBe(403);
    expect((await call(w.app, 'GET', `${w.base}/customers/not-an-id/statement.pdf`, { token: w.tokens.demo })).status).toBe(404);
  });

  it('breaks a 300-invoice statement across pages with the table header on each page and the total on the last', async () => {
    const customer = await l.customer({ name: 'Большой Клиент' });
    await w.engine.db.transaction().execute(async (trx) => {
      const rows = Array.from({ length: 300 }, (_, i) => ({
        id: `00000000-0000-7000-8000-${String(i).padStart(12, '0')}`,
        company_id: w.company,
        customer_id: customer,
        customer_name: 'Большой Клиент',
        invoice_number: `B-${String(i + 1).padStart(4, '0')}`,
        invoice_date: '2026-09-01',
        due_date: '2026-10-01',
        currency: 'USD',
        total_amount: 10_000 + i,
        paid_amount: 0,
        balance: 10_000 + i,
        transaction_type: 'invoice',
        created_at: '2026-11-23T12:00:00.000Z',
        updated_at: '2026-11-23T12:00:00.000Z',
      }));
      for (let i = 0; i < rows.length; i += 100) await trx.insertInto('invoices').values(rows.slice(i, i + 100)).execute();
    });
    const res = await pdf(`${w.base}/customers/${customer}/statement.pdf?as_of=2026-11-23`);
    keepPdf('statement-300', res.bytes, 2);
    const pages = pdfPages(res.bytes);
    expect(pages.length).toBeGreaterThan(5);
    const tablePages = pages.filter((p) => /B-\d{4}/.test(p));
    expect(tablePages.length).toBeGreaterThan(5);
    for (const page of tablePages) expect(page).toMatch(/Invoice\s+Invoice date\s+Due date\s+Days past due\s+Amount\s+Paid\s+Open/);
    const all = pages.join('\n');
    for (let i = 1; i <= 300; i++) expect(all).toContain(`B-${String(i).padStart(4, '0')}`);
    // 300 x $100.00 plus 0..299 cents = $30,000 + $448.50
    const total = '$30,448.50';
    expect(pages.at(-1)).toMatch(new RegExp(`Total due\\s+\\${total}`));
    expect(pages.at(-1)).toContain(`Page ${pages.length} of ${pages.length}`);
    expect(pages[1]).toContain('Большой Клиент');
  });
});
