/**
 * Brand colours on the document details (issue 39): owners set a primary and an accent colour over
 * the API, checked and kept as '#rrggbb'; the answer says which shades are drawn where the colour
 * would not read (WCAG AA); the customer's portal carries them in a style sheet behind the link.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { contrastRatio } from '../../core/documents/colours';
import { createApp } from '../../core/http/app';
import { PortalLimiter } from '../../core/portal/limits';
import { addCustomer, addInvoice, type SequenceWorld, sequenceWorld } from '../support/sequence-fixtures';

describe('brand colours on the document details and the portal', () => {
  let w: SequenceWorld;
  let app: ReturnType<typeof createApp>;
  beforeAll(async () => {
    w = await sequenceWorld();
  });
  beforeEach(async () => {
    await w.fresh();
    app = createApp(w.engine, { portalBaseUrl: () => 'https://ar.example.test', portalLimiter: new PortalLimiter(w.engine.clock) });
  });
  afterAll(() => w.dispose());

  const details = () => w.path('/document-details');

  it('takes colours from owners as #rrggbb, refuses anything else in words and changes nothing, and clears them with null', async () => {
    const saved = await w.api('PATCH', details(), { brand_primary: '#0B5CAD', brand_accent: '7c3aed' });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ brand_primary: '#0b5cad', brand_accent: '#7c3aed' });
    // Both read as chosen on white and on the dark surfaces: nothing adjusted.
    expect(saved.body.brand_colours.primary).toEqual({ chosen: '#0b5cad', light: { colour: '#0b5cad', adjusted: false, contrast: expect.any(Number) }, dark: expect.objectContaining({ adjusted: true }) });
    expect(saved.body.brand_colours.accent.light).toMatchObject({ colour: '#7c3aed', adjusted: false });

    for (const bad of ['blue', '#12345', '#1234567', 'rgb(0,0,0)', '#ggg000', 'url(x)', '#0b5cad;}body{display:none']) {
      const refused = await w.api('PATCH', details(), { brand_primary: bad, legal_name: 'Changed' });
      expect(refused.status, bad).toBe(400);
      expect(refused.headers.get('content-type')).toContain('application/problem+json');
      expect(Object.keys(refused.body.errors ?? {}), bad).toEqual(['brand_primary']);
    }
    const after = await w.api('GET', details());
    expect(after.body).toMatchObject({ brand_primary: '#0b5cad', legal_name: null });

    expect((await w.api('PATCH', details(), { brand_primary: '#ff0000' }, w.tokens.bob)).status).toBe(403);
    expect((await w.api('PATCH', details(), { brand_primary: '#ff0000' }, w.tokens.carol)).status).toBe(403);
    expect((await w.api('GET', details())).body.brand_primary).toBe('#0b5cad');

    const cleared = await w.api('PATCH', details(), { brand_primary: null, brand_accent: '  ' });
    expect(cleared.body).toMatchObject({ brand_primary: null, brand_accent: null, brand_colours: { primary: null, accent: null } });
  });

  it('a colour too light for text on white is drawn in a darker shade of it, one too dark for dark mode in a lighter one, and says so', async () => {
    const saved = await w.api('PATCH', details(), { brand_primary: '#FFCC00', brand_accent: '#1a1a40' });
    const primary = saved.body.brand_colours.primary;
    expect(primary.chosen).toBe('#ffcc00');
    expect(primary.light.adjusted).toBe(true);
    expect(contrastRatio(primary.light.colour, '#ffffff')).toBeGreaterThanOrEqual(4.5);
    expect(contrastRatio('#ffcc00', '#ffffff')).toBeLessThan(4.5);
    // The yellow reads on the dark page as it is.
    expect(primary.dark).toMatchObject({ colour: '#ffcc00', adjusted: false });
    const accent = saved.body.brand_colours.accent;
    expect(accent.light).toMatchObject({ colour: '#1a1a40', adjusted: false });
    expect(accent.dark.adjusted).toBe(true);
    expect(contrastRatio(accent.dark.colour, '#1b2027')).toBeGreaterThanOrEqual(4.5);
  });

  it('the portal links its style sheet of the company’s shades behind the customer’s link, and none without colours', async () => {
    const customer = await addCustomer(w.engine, w.company, { name: 'Tri-County', contactName: 'Pat Payables' });
    await addInvoice(w.engine, w.company, customer, { number: 'INV-1', total: 10_000, dueDate: '2026-10-15' });
    const made = await app.request(w.path(`/customers/${customer}/portal-link`), { method: 'POST', headers: { authorization: `Token ${w.tokens.alice}` } });
    const path = new URL(((await made.json()) as { url: string }).url).pathname;

    const plain = await (await app.request(path)).text();
    expect(plain).not.toContain('brand.css');

    await w.api('PATCH', details(), { brand_primary: '#ffcc00', brand_accent: '#7c3aed' });
    const home = await app.request(path);
    expect(await home.text()).toContain(`<link rel="stylesheet" href="${path}/brand.css">`);
    const sheet = await app.request(`${path}/brand.css`);
    expect(sheet.status).toBe(200);
    expect(sheet.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const { primary } = (await w.api('GET', details())).body.brand_colours;
    const css = await sheet.text();
    expect(css).toContain(`:root { --accent: ${primary.light.colour}; --link: #7c3aed; }`);
    expect(css).toMatch(/@media \(prefers-color-scheme: dark\) \{\s+:root \{ --accent: #ffcc00; --link: #[0-9a-f]{6}; \}/);
    const form = await (await app.request(`${path}/answer?do=contact`)).text();
    expect(form).toContain(`href="${path}/brand.css"`);

    // A token that opens nothing gets the one page in words, never another company's colours.
    const unknown = await app.request('/portal/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/brand.css');
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('This link does not open a page');
  });
});
