/**
 * The customer's payment portal through the real app: links made and revoked over the API, the
 * pages behind them, and every form. A link shows only its own customer's invoices: another
 * customer's invoice id anywhere answers the not-found page and changes nothing. Unknown, expired
 * and revoked links get one and the same page; guessing is rate-limited. A promise holds the
 * promised invoices through the contact rule; a dispute holds only the disputed one; attachments
 * are checked by their bytes and handed back only as downloads.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkContact } from '../../core/contact/store';
import { setPortalLinkMaker } from '../../core/email/portal-link';
import { createWorker } from '../../core/jobs/worker';
import { coreJobHandlers } from '../../core/runtime/job-handlers';
import { createApp } from '../../core/http/app';
import { PortalLimiter } from '../../core/portal/limits';
import { mintPortalLink, portalUrl } from '../../core/portal/links';
import { hashPortalToken, newPortalToken } from '../../core/portal/tokens';
import { pdfText } from '../support/pdf';
import { activeSequence, addConnection, addCustomer, addInvoice, type SequenceWorld, sequenceWorld } from '../support/sequence-fixtures';
import { startSmtp } from '../support/smtp';

const BASE = 'https://ar.example.test';
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

describe('customer payment portal', () => {
  let w: SequenceWorld;
  let app: ReturnType<typeof createApp>;
  beforeAll(async () => {
    w = await sequenceWorld();
  });
  beforeEach(async () => {
    await w.fresh();
    // A fresh limiter per test: the guessing test spends the loopback address's budget.
    app = createApp(w.engine, { portalBaseUrl: () => BASE, portalLimiter: new PortalLimiter(w.engine.clock) });
  });
  afterAll(() => w.dispose());

  const api = (method: string, path: string, token = w.tokens.alice) => app.request(path, { method, headers: { authorization: `Token ${token}` } });

  /** Tri-County with two open invoices, and Greenfield (another customer) with one. */
  async function world() {
    const customer = await addCustomer(w.engine, w.company, { name: 'Tri-County', contactName: 'Pat Payables' });
    const a = await addInvoice(w.engine, w.company, customer, { number: 'INV-10231', total: 904_357, dueDate: '2026-10-15' });
    const b = await addInvoice(w.engine, w.company, customer, { number: 'INV-10240', total: 125_000, dueDate: '2026-11-01' });
    const greenfield = await addCustomer(w.engine, w.company, { name: 'Greenfield' });
    const theirs = await addInvoice(w.engine, w.company, greenfield, { number: 'INV-20001', total: 50_000, dueDate: '2026-10-01' });
    const made = await api('POST', w.path(`/customers/${customer}/portal-link`));
    expect(made.status).toBe(201);
    const link = (await made.json()) as { url: string; expires_at: string };
    return { customer, a, b, greenfield, theirs, link, path: new URL(link.url).pathname };
  }

  const page = async (path: string, init?: RequestInit) => {
    const res = await app.request(path, init);
    return { status: res.status, headers: res.headers, html: await res.text() };
  };
  const formToken = async (path: string, action: string, invoices: string[] = []) => {
    const q = new URLSearchParams([['do', action], ...invoices.map((i) => ['invoice', i])]);
    const html = (await page(`${path}/answer?${q}`)).html;
    return /name="form_token" value="([^"]+)"/.exec(html)?.[1] ?? '';
  };
  const post = (path: string, fields: Record<string, string | string[] | Blob>, headers: Record<string, string> = {}) => {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) {
      if (v instanceof Blob) form.append(k, v, 'proof.png');
      else for (const one of Array.isArray(v) ? v : [v]) form.append(k, one);
    }
    return app.request(path, { method: 'POST', body: form, headers: { 'sec-fetch-site': 'same-origin', ...headers } });
  };
  const count = async (table: 'communications' | 'portal_submissions' | 'disputes' | 'portal_files') =>
    Number((await w.engine.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where('company_id', '=', w.company).executeTakeFirstOrThrow()).n);
  const heldKinds = async (customer: string, invoices: string[]) => {
    const answer = await checkContact(w.engine.db, w.company, customer, { channel: 'reminder', invoiceIds: invoices }, w.engine.clock.now().toISOString());
    return { left: answer.invoiceIds, held: answer.held.map((h) => [h.kind, h.invoiceId]) };
  };

  it('a link opens its customer’s invoices with amounts and days past due, under a strict CSP; only the token’s hash is kept', async () => {
    const t = await world();
    expect(t.link.url).toMatch(/^https:\/\/ar\.example\.test\/portal\/[A-Za-z0-9_-]{43}$/);
    expect(t.link.expires_at).toBe('2027-01-22T12:00:00.000Z');
    const token = t.path.split('/').pop() as string;
    const stored = await w.engine.db.selectFrom('portal_links').selectAll().where('company_id', '=', w.company).execute();
    expect(stored).toHaveLength(1);
    expect(stored[0].token_hash).toBe(hashPortalToken(token));
    const changes = await w.engine.db.selectFrom('changes').select('data').where('entity', '=', 'portal_link').execute();
    expect(changes.map((c) => c.data).join()).not.toContain(token);

    const home = await page(t.path);
    expect(home.status).toBe(200);
    expect(home.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
    expect(home.headers.get('x-frame-options')).toBe('DENY');
    expect(home.headers.get('referrer-policy')).toBe('no-referrer');
    expect(home.html).toContain('<html lang="en">');
    expect(home.html).not.toMatch(/<script/i);
    for (const words of ['Invoices for Tri-County', 'Invoice INV-10231', 'Payment reference <span class="reference">RF', '$9,043.57', '39 days past due', 'Invoice INV-10240', '$1,250.00', '22 days past due', '$10,293.57']) expect(home.html).toContain(words);
    expect(home.html).not.toContain('INV-20001');
    // Opening it is recorded once a day in the customer's timeline.
    await page(t.path);
    const viewed = await w.engine.db.selectFrom('communications').select(['subject', 'direction', 'customer_id']).where('subject', '=', 'Viewed the portal').where('company_id', '=', w.company).execute();
    expect(viewed).toEqual([{ subject: 'Viewed the portal', direction: 'internal', customer_id: t.customer }]);

    const pdf = await app.request(`${t.path}/invoices/${t.a}.pdf`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-disposition')).toMatch(/^attachment; filename="/);
    const text = pdfText(Buffer.from(await pdf.arrayBuffer()));
    expect(text).toContain('INV-10231');
    expect(text).toContain('9,043.57');
    const statement = await app.request(`${t.path}/statement.pdf`);
    expect(statement.status).toBe(200);
    expect(pdfText(Buffer.from(await statement.arrayBuffer()))).toContain('10,293.57');
  });

  it('links are made by members only, for the company’s own customers; a viewer may not; the lifetime is the company’s', async () => {
    const t = await world();
    expect((await api('POST', w.path(`/customers/${t.customer}/portal-link`), w.tokens.vic)).status).toBe(403);
    expect((await api('POST', w.path(`/customers/${t.customer}/portal-link`), w.tokens.carol)).status).toBe(403);
    const otherCompany = await addCustomer(w.engine, w.other, { name: 'Elsewhere' });
    expect((await api('POST', w.path(`/customers/${otherCompany}/portal-link`))).status).toBe(404);
    const set = await app.request(w.path('/portal-settings'), { method: 'PUT', headers: { authorization: `Token ${w.tokens.alice}`, 'content-type': 'application/json' }, body: JSON.stringify({ link_days: 14 }) });
    expect(await set.json()).toEqual({ link_days: 14, available: true, base_url: BASE });
    expect(((await (await api('POST', w.path(`/customers/${t.customer}/portal-link`))).json()) as { expires_at: string }).expires_at).toBe('2026-12-07T12:00:00.000Z');
    const noPortal = createApp(w.engine);
    const refused = await noPortal.request(w.path(`/customers/${t.customer}/portal-link`), { method: 'POST', headers: { authorization: `Token ${w.tokens.alice}` } });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ code: 'portal_unavailable' });
  });

  it('unknown, expired and revoked links all answer the same page in words', async () => {
    const t = await world();
    const unknown = await page(`/portal/${newPortalToken()}`);
    expect(unknown.status).toBe(404);
    expect(unknown.html).toContain('This link does not open a page');
    expect((await page('/portal/not-a-token')).html).toBe(unknown.html);

    w.engine.clock.set('2027-01-22T12:00:00.000Z');
    const expired = await page(t.path);
    expect({ status: expired.status, html: expired.html }).toEqual({ status: unknown.status, html: unknown.html });

    w.engine.clock.set('2026-11-24T12:00:00.000Z');
    expect((await page(t.path)).status).toBe(200);
    const revoked = await api('DELETE', w.path(`/customers/${t.customer}/portal-link`));
    expect(await revoked.json()).toEqual({ revoked: 1 });
    const after = await page(t.path);
    expect({ status: after.status, html: after.html }).toEqual({ status: unknown.status, html: unknown.html });
    expect((await page(`${t.path}/invoices/${t.a}.pdf`)).status).toBe(404);
  });

  it('1,000 guessed tokens find nothing and are rate-limited after the first few', async () => {
    const t = await world();
    const statuses = new Map<number, number>();
    for (let i = 0; i < 1000; i++) {
      const res = await app.request(`/portal/${newPortalToken()}`);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 404: 20, 429: 980 });
    // The guesser's address is locked out, even with a right link, until the window passes.
    expect((await app.request(t.path)).status).toBe(429);
    w.engine.clock.set('2026-11-23T12:15:01.000Z');
    expect((await app.request(t.path)).status).toBe(200);
  });

  it('another customer’s invoice id in any portal request answers the not-found page and changes nothing', async () => {
    const t = await world();
    await page(t.path);
    const before = { c: await count('communications'), s: await count('portal_submissions'), d: await count('disputes'), f: await count('portal_files') };
    expect((await page(`${t.path}/invoices/${t.theirs}.pdf`)).status).toBe(404);
    expect((await page(`${t.path}/answer?do=promise&invoice=${t.theirs}`)).status).toBe(404);
    const token = await formToken(t.path, 'promise');
    for (const [action, fields] of [
      ['promise', { date: '2026-12-10' }],
      ['dispute', { category: 'pricing', message: 'Wrong price' }],
      ['paid', { date: '2026-11-20', amount: '500.00' }],
    ] as const) {
      const res = await post(`${t.path}/${action}`, { form_token: token, invoice: [t.a, t.theirs], ...fields });
      expect(res.status, action).toBe(404);
      expect(await res.text()).toContain('This link does not open a page');
    }
    expect({ c: await count('communications'), s: await count('portal_submissions'), d: await count('disputes'), f: await count('portal_files') }).toEqual(before);
  });

  it('a promise holds the promised invoices through the contact rule, as the customer’s words', async () => {
    const t = await world();
    expect(await heldKinds(t.customer, [t.a, t.b])).toEqual({ left: [t.a, t.b], held: [] });
    const token = await formToken(t.path, 'promise', [t.a]);
    const res = await post(`${t.path}/promise`, { form_token: token, invoice: t.a, date: '2026-12-10', amount: '9043.57', message: 'Paying after our board meets.' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${t.path}?sent=promise`);
    expect(await heldKinds(t.customer, [t.a, t.b])).toEqual({ left: [t.b], held: [['promise', t.a]] });
    const said = await w.engine.db.selectFrom('communications').select(['kind', 'direction', 'invoice_id', 'subject', 'body', 'author_name', 'promise_date', 'promise_amount']).where('direction', '=', 'inbound').where('company_id', '=', w.company).execute();
    expect(said).toEqual([
      {
        kind: 'note',
        direction: 'inbound',
        invoice_id: t.a,
        subject: 'Wrote via the portal: I\'ll pay on December 10, 2026',
        body: "I'll pay INV-10231 on December 10, 2026 ($9,043.57).\nPaying after our board meets.",
        author_name: 'Tri-County',
        promise_date: '2026-12-10',
        promise_amount: 904_357,
      },
    ]);
    // The invoice's last touch is the customer's, and the page says what they promised.
    expect((await w.engine.db.selectFrom('invoices').select('last_touched_by').where('id', '=', t.a).executeTakeFirstOrThrow()).last_touched_by).toBe('Tri-County');
    const home = await page(`${t.path}?sent=promise`);
    expect(home.html).toContain('We have your promise');
    expect(home.html).toContain('You promised December 10, 2026');
    // The Actions inbox: the collector sees that the customer wrote via the portal, with their words.
    expect((await api('POST', w.path('/intelligence/refresh'))).status).toBe(202);
    await createWorker(w.engine, { handlers: coreJobHandlers() }).runDueJobs();
    const actions = await api('GET', w.path(`/actions?category=needs_action&customer_id=${t.customer}&include_alternatives=false`));
    const wrote = ((await actions.json()) as { data: Array<{ trigger_event_label: string | null; evidence: Array<{ fact: string; value?: unknown }> }> }).data.find((a) => a.trigger_event_label === 'Wrote via the portal');
    expect(wrote?.evidence).toEqual(expect.arrayContaining([expect.objectContaining({ fact: 'Their words', value: "I'll pay INV-10231 on December 10, 2026 ($9,043.57).\nPaying after our board meets." })]));
    // A form with a problem answers the form again in words, changing nothing.
    const bad = await post(`${t.path}/promise`, { form_token: token, invoice: t.b, date: '2026-11-01' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('Choose a day from today to a year from now.');
    expect(await count('portal_submissions')).toBe(1);
  });

  it('a dispute with an attachment holds only that invoice; the file is kept and handed back only as a download', async () => {
    const t = await world();
    const token = await formToken(t.path, 'dispute', [t.b]);
    const res = await post(`${t.path}/dispute`, { form_token: token, invoice: t.b, category: 'damaged', message: 'Two crates arrived broken.', file: new Blob([PNG], { type: 'text/html' }) });
    expect(res.status).toBe(303);
    expect(await heldKinds(t.customer, [t.a, t.b])).toEqual({ left: [t.a], held: [['dispute', t.b]] });
    const disputes = await w.engine.db.selectFrom('disputes').select(['invoice_id', 'reason', 'status']).where('company_id', '=', w.company).execute();
    expect(disputes).toEqual([{ invoice_id: t.b, reason: 'Damaged goods: Two crates arrived broken.', status: 'open' }]);
    const file = await w.engine.db.selectFrom('portal_files').select(['id', 'media_type', 'file_name', 'size']).where('company_id', '=', w.company).executeTakeFirstOrThrow();
    expect(file).toMatchObject({ media_type: 'image/png', file_name: 'proof.png', size: PNG.byteLength });
    const got = await api('GET', w.path(`/portal-files/${file.id}`));
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(got.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(PNG);
    expect((await api('GET', w.path(`/portal-files/${file.id}`, w.other), w.tokens.carol)).status).toBe(404);
  });

  it('uploads are checked by their bytes and size; forms need their token and a same-site browser', async () => {
    const t = await world();
    const token = await formToken(t.path, 'dispute', [t.a]);
    const fields = { form_token: token, invoice: t.a, category: 'other', message: 'See the file.' };
    const html = await post(`${t.path}/dispute`, { ...fields, file: new Blob(['<html><script>alert(1)</script></html>'], { type: 'application/pdf' }) });
    expect(html.status).toBe(400);
    expect(await html.text()).toContain('Attach a PDF, PNG or JPEG file.');
    const big = new Uint8Array(10 * 1024 * 1024 + 1);
    big.set(PNG);
    const tooBig = await post(`${t.path}/dispute`, { ...fields, file: new Blob([big]) });
    expect(tooBig.status).toBe(400);
    expect(await tooBig.text()).toContain('The file is larger than 10 MB.');
    // A body past the form's bound is refused before it is read whole.
    expect((await post(`${t.path}/dispute`, { ...fields, file: new Blob([big, new Uint8Array(100 * 1024)]) })).status).toBe(413);
    expect((await post(`${t.path}/dispute`, { ...fields, form_token: 'forged' })).status).toBe(403);
    expect((await post(`${t.path}/dispute`, fields, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await post(`${t.path}/dispute`, fields, { origin: 'https://evil.example' })).status).toBe(403);
    expect({ d: await count('disputes'), f: await count('portal_files'), s: await count('portal_submissions') }).toEqual({ d: 0, f: 0, s: 0 });
  });

  it('“I’ve paid” holds reminders a few days and is a remittance advice; a contact change waits for the collector to accept it', async () => {
    const t = await world();
    const paid = await post(`${t.path}/paid`, { form_token: await formToken(t.path, 'paid', [t.a]), invoice: t.a, date: '2026-11-22', amount: '9,043.57', reference: 'RF18539007547034' });
    expect(paid.status).toBe(303);
    expect(await heldKinds(t.customer, [t.a, t.b])).toEqual({ left: [t.b], held: [['promise', t.a]] });
    // Offered to cash application as a remittance advice.
    const advices = await w.engine.db.selectFrom('bank_remittance_advices').select(['customer_id', 'invoice_ids', 'paid_on', 'amount', 'reference']).where('company_id', '=', w.company).execute();
    expect(advices).toEqual([{ customer_id: t.customer, invoice_ids: JSON.stringify([t.a]), paid_on: '2026-11-22', amount: 904_357, reference: 'RF18539007547034' }]);
    // Five days after the report (and the company's grace for promises), reminders may go again.
    w.engine.clock.set('2026-12-20T12:00:00.000Z');
    expect((await heldKinds(t.customer, [t.a])).held).toEqual([]);
    const contact = await post(`${t.path}/contact`, { form_token: await formToken(t.path, 'contact'), name: 'Ann Lee', email: 'ann@tri-county.example' });
    expect(contact.status).toBe(303);
    const kept = await w.engine.db.selectFrom('portal_submissions').select(['kind', 'details', 'status']).where('company_id', '=', w.company).orderBy('created_at').execute();
    expect(kept.map((k) => [k.kind, JSON.parse(k.details), k.status])).toEqual([
      ['paid', { date: '2026-11-22', amount: 904_357, currency: 'USD', reference: 'RF18539007547034' }, 'open'],
      ['contact', { name: 'Ann Lee', email: 'ann@tri-county.example', phone: null, message: null }, 'open'],
    ]);
    const listed = (await (await api('GET', w.path(`/portal-submissions?customer_id=${t.customer}&status=open`))).json()) as { data: Array<{ id: string; kind: string }> };
    const change = listed.data.find((d) => d.kind === 'contact')!;
    const report = listed.data.find((d) => d.kind === 'paid')!;
    expect((await api('POST', w.path(`/portal-submissions/${change.id}/accept`), w.tokens.vic)).status).toBe(403);
    expect((await api('POST', `/api/companies/${w.other}/portal-submissions/${change.id}/accept`, w.tokens.carol)).status).toBe(404);
    const accepted = await api('POST', w.path(`/portal-submissions/${change.id}/accept`));
    expect(await accepted.json()).toMatchObject({ id: change.id, status: 'accepted', decided_by: 'alice' });
    const contacts = await w.engine.db.selectFrom('customer_contacts').select(['name', 'email', 'is_billing']).where('customer_id', '=', t.customer).execute();
    expect(contacts).toEqual([{ name: 'Ann Lee', email: 'ann@tri-county.example', is_billing: 1 }]);
    expect(await (await api('POST', w.path(`/portal-submissions/${change.id}/decline`))).json()).toMatchObject({ code: 'already_decided' });
    expect(await (await api('POST', w.path(`/portal-submissions/${report.id}/accept`))).json()).toMatchObject({ code: 'not_a_contact_change' });
  });

  it('{{portal_link}} in a sequence step: the email carries a link of the customer’s own, minted as it is sent; without a portal its section is left out', async () => {
    const t = await world();
    const smtp = await startSmtp();
    try {
      const sender = await addConnection(w.engine, w.company, { name: 'Acme AR', port: smtp.port, fromEmail: 'ar@acme.test', fromName: 'Acme Receivables', userId: w.users.alice });
      const step = { label: 'Notice', offset_time: '00:00', subject_template: 'Invoice {{invoice_number}}', body_plain_template: 'Hello.{{#portal_link}} See and answer: {{portal_link}}{{/portal_link}}' };
      const seq = await activeSequence(w, 'Dunning', [step], { sender_connection_id: sender });
      expect((await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: t.customer, start_date: '2026-11-23' })).status).toBe(201);
      const queued = (await w.api('GET', w.path('/sequences/queue'))).body.data[0];
      // No portal on this server: the sentence is left out.
      expect((await w.api('GET', w.path(`/sequences/queue/${queued.id}/preview`))).body.body).toBe('Hello.');
      setPortalLinkMaker(async (tx, companyId, customerId) => portalUrl(BASE, (await mintPortalLink(tx, companyId, customerId)).token));
      // The preview keeps the placeholder where the link goes; a collector's edit of it keeps it too, and the send fills it.
      const preview = (await w.api('GET', w.path(`/sequences/queue/${queued.id}/preview`))).body.body;
      expect(preview).toBe('Hello. See and answer: {{portal_link}}');
      expect((await w.api('POST', w.path(`/sequences/queue/${queued.id}/edit`), { subject: 'About your invoice', body: `${preview}\nThank you.` })).status).toBe(200);
      expect((await w.api('POST', w.path(`/sequences/queue/${queued.id}/send`), {})).status).toBe(200);
      expect(smtp.messages[0].text).toMatch(/\nThank you\.\s*$/);
      const sent = /See and answer: (\S+)/.exec(smtp.messages[0].text)?.[1] ?? '';
      expect(sent).toMatch(/^https:\/\/ar\.example\.test\/portal\/[A-Za-z0-9_-]{43}$/);
      expect(sent).not.toBe(t.link.url);
      const home = await page(new URL(sent).pathname);
      expect(home.status).toBe(200);
      expect(home.html).toContain('Invoices for Tri-County');
    } finally {
      setPortalLinkMaker(null);
      await smtp.close();
    }
  });
});
