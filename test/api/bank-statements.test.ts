/**
 * Bank statements over the real API and a real SQLite file: a camt.053 written here imported,
 * its credits matched and applied (or suggested), re-imports adding nothing, the review's
 * apply/split/short payment/overpayment/undo/ignore, roles and company scoping, bad files, the
 * export, and the payer account learned from an application.
 */
import ExcelJS from 'exceljs';
import { beforeEach, describe, expect, it } from 'vitest';
import { formatRf, invoiceRf, readRf, statementRf } from '../../core/rf';
import { type CamtEntry, camt053 } from '../../core/bench/camt';
import { createApp } from '../../core/http/app';
import { createRng } from '../../core/seed/random';
import { seedDatabase } from '../../core/seed/index';
import { call, useApiWorkspace } from '../support/api';
import { testEngine } from '../support/engine';
import { type Ledger, ledger } from '../support/ledger-fixtures';
import { pdfText } from '../support/pdf';
import { fixture, insertActionRow } from '../support/rows';

const IBAN = 'DE89370400440532013000';
const COBALT_IBAN = 'GB33BUKB20201555555555';

describe('bank statements API', () => {
  const w = useApiWorkspace();
  let l: Ledger;
  let cobalt: string;
  let dune: string;
  const inv: Record<string, string> = {};

  beforeEach(async () => {
    w.engine.clock.set('2026-11-23T12:00:00.000Z');
    l = ledger(w.engine, w.company);
    cobalt = await l.customer({ name: 'Cobalt Industries Inc.' });
    dune = await l.customer({ name: 'Dune Logistics' });
    const specs: Array<[string, string, number]> = [
      ['INV-10231', cobalt, 1250],
      ['INV-10232', cobalt, 300.5],
      ['INV-10233', cobalt, 99.99],
      ['INV-10240', dune, 800],
      ['INV-10241', dune, 450],
      ['INV-10250', dune, 75],
    ];
    for (const [number, customer, total] of specs) inv[number] = await l.invoice({ customer, number, total, dueDate: '2026-11-01' });
  });

  const get = (path: string, token = w.tokens.demo) => call(w.app, 'GET', path, { token });
  const post = (path: string, body?: unknown, token = w.tokens.demo) => call(w.app, 'POST', path, { token, body });

  async function upload(xml: string, options: { token?: string; query?: string; name?: string; app?: ReturnType<typeof createApp>; company?: string } = {}) {
    const form = new FormData();
    form.append('file', new Blob([xml]), options.name ?? 'statement.xml');
    const res = await (options.app ?? w.app).request(`/api/companies/${options.company ?? w.company}/bank-statements${options.query ?? ''}`, {
      method: 'POST',
      body: form,
      headers: { authorization: `Token ${options.token ?? w.tokens.demo}` },
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  const credit = (reference: string, amount: number, fields: Partial<CamtEntry> = {}): CamtEntry => ({ booked_on: '2026-11-20', amount_cents: Math.round(amount * 100), direction: 'credit', reference, ...fields });
  const statement = (id: string, entries: CamtEntry[]) => camt053({ id, iban: IBAN, currency: 'USD', from: '2026-11-16', to: '2026-11-20', opening_cents: 1_000_000, entries });

  const invoiceRow = (id: string) => w.engine.db.selectFrom('invoices').select(['balance', 'closing_reason']).where('id', '=', id).executeTakeFirstOrThrow();
  const paymentsOf = (id: string) => w.engine.db.selectFrom('payments').select(['amount', 'status', 'payment_method', 'payment_date', 'transaction_id']).where('invoice_id', '=', id).execute();
  const transactions = async (query = '') => (await get(`${w.base}/bank-transactions?limit=100${query}`)).body.data as any[];
  const byReference = async (reference: string) => (await transactions()).find((t) => t.bank_reference === reference);

  it("prints on the invoice and the statement the reference a transfer quotes; a credit quoting the invoice copy's is applied to it", async () => {
    const pdfOf = async (path: string) => Buffer.from(await (await w.app.request(path, { headers: { authorization: `Token ${w.tokens.demo}` } })).arrayBuffer());
    const invoiceText = pdfText(await pdfOf(`${w.base}/invoices/${inv['INV-10250']}/document.pdf`));
    const printed = /Payment reference for a bank transfer: (RF[0-9A-Z ]+)/.exec(invoiceText)?.[1].trim();
    expect(printed).toBe(formatRf(invoiceRf('INV-10250')!));
    const customer = (await w.engine.db.selectFrom('invoices').select('customer_id').where('id', '=', inv['INV-10250']).executeTakeFirstOrThrow()).customer_id;
    const statementText = pdfText(await pdfOf(`${w.base}/customers/${customer}/statement.pdf`));
    const onStatement = /Payment reference for a bank transfer: (RF[0-9A-Z ]+)/.exec(statementText)?.[1].trim();
    expect(onStatement).toBe(formatRf(statementRf(customer)));
    expect(readRf(onStatement!)).toMatchObject({ kind: 'customer' });
    // The customer copies the invoice's reference, as printed (in groups of four), into the transfer's text.
    const res = await upload(statement('STMT-RF', [credit('RF-1', 75, { text: `Payment ${printed}`, party_name: 'Someone Else Ltd' })]));
    expect(res.status).toBe(201);
    expect(res.body.applied).toBe(1);
    expect(await invoiceRow(inv['INV-10250'])).toMatchObject({ balance: 0, closing_reason: 'paid' });
  });

  it('imports a camt.053: unambiguous credits applied, the rest suggested or unmatched, debits listed, a foreign currency flagged', async () => {
    const xml = statement('STMT-1', [
      credit('B1', 1250, { text: 'Payment inv-010231 thank you', party_name: 'COBALT INDUSTRIES', party_iban: COBALT_IBAN }),
      credit('B2', 1250, { text: 'Invoice 10240, 10241', party_name: 'Dune Logistics LLC' }),
      credit('B3', 400, { text: 'INV10232 part', party_name: 'Cobalt Industries' }),
      credit('B4', 75, { creditor_reference: invoiceRf('INV-10250')!, party_name: 'DUNE LOGISTICS' }),
      credit('B5', 12.34, { text: 'Interest November', code: 'PMNT/RCDT/XBCT' }),
      credit('B6', 99.99, { text: 'INV-10233', currency: 'EUR', party_name: 'Cobalt Industries' }),
      { booked_on: '2026-11-19', amount_cents: 5000, direction: 'debit', reference: 'B7', text: 'Bank fees', code: 'ACMT/MDOP/CHRG' },
    ]);
    const res = await upload(xml);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ format: 'camt.053', account: IBAN, currency: 'USD', period_start: '2026-11-16', period_end: '2026-11-20', entries: 7, credits: 6, debits: 1, applied: 3, suggested: 1, unmatched: 2, duplicates: 0, dry_run: false });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);

    // B1: a typed reference and the exact open balance: paid, dated the booking day, method and reference from the bank.
    expect(await invoiceRow(inv['INV-10231'])).toEqual({ balance: 0, closing_reason: 'paid' });
    expect(await paymentsOf(inv['INV-10231'])).toEqual([{ amount: 125000, status: 'PAID', payment_method: 'BANK_TRANSFER', payment_date: '2026-11-20', transaction_id: 'B1' }]);
    // B2: two invoices in one credit, their sum exactly.
    expect((await invoiceRow(inv['INV-10240'])).closing_reason).toBe('paid');
    expect((await invoiceRow(inv['INV-10241'])).closing_reason).toBe('paid');
    // B4: ardesk's own RF reference.
    expect((await invoiceRow(inv['INV-10250'])).closing_reason).toBe('paid');
    // B3: more than the referenced invoice's balance: suggested, nothing applied.
    const b3 = await byReference('B3');
    expect(b3).toMatchObject({ state: 'suggested', amount: 400, customer_id: cobalt });
    expect(await paymentsOf(inv['INV-10232'])).toEqual([]);
    // B6: the right reference and amount, but in EUR: flagged, and no invoice in EUR to suggest.
    expect(await byReference('B6')).toMatchObject({ state: 'unmatched', flag: 'foreign_currency', currency: 'EUR' });
    expect((await invoiceRow(inv['INV-10233'])).balance).toBe(9999);
    expect(await byReference('B5')).toMatchObject({ state: 'unmatched', top_candidate: null });
    expect(await byReference('B7')).toMatchObject({ state: 'debit', direction: 'debit', amount: 50 });

    const detail = await get(`${w.base}/bank-transactions/${(await byReference('B1')).id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.state).toBe('applied');
    expect(detail.body.applications).toEqual([expect.objectContaining({ kind: 'invoice', invoice_id: inv['INV-10231'], invoice_number: 'INV-10231', amount: 1250, automatic: true, reversed_at: null })]);

    const one = await get(`${w.base}/bank-statements/${res.body.id}`);
    expect(one.body).toMatchObject({ id: res.body.id, entries: 7, applied: 3, suggested: 1, unmatched: 2, ignored: 0, opening_balance: 10000, file_name: 'statement.xml' });
    const list = await get(`${w.base}/bank-statements`);
    expect(list.body.data.map((s: { id: string }) => s.id)).toEqual([res.body.id]);
  });

  it('candidates carry the amount, a confidence and their reasons in words; the review lists filter by state and statement and page by cursor', async () => {
    const res = await upload(statement('STMT-2', [credit('C1', 400, { text: 'INV-10231 first part', party_name: 'Cobalt Industries' }), credit('C2', 5, { text: 'refund' })]));
    expect(res.body).toMatchObject({ applied: 0, suggested: 1, unmatched: 1 });
    const c1 = await byReference('C1');
    const detail = (await get(`${w.base}/bank-transactions/${c1.id}`)).body;
    expect(detail.candidates[0]).toMatchObject({ invoice_id: inv['INV-10231'], invoice_number: 'INV-10231', amount: 400, open_balance: 1250 });
    expect(detail.candidates[0].confidence).toBeGreaterThan(0.5);
    expect(detail.candidates[0].reasons).toEqual(expect.arrayContaining(['reference INV-10231 in the remittance text', 'partial payment: $400.00 of $1,250.00 open']));
    expect(detail.proposal).toEqual({ customer_id: cobalt, allocations: [{ invoice_id: inv['INV-10231'], amount: 400 }], unapplied_amount: 0 });

    const suggested = await get(`${w.base}/bank-transactions?state=suggested&statement_id=${res.body.id}`);
    expect(suggested.body).toMatchObject({ count: 1, has_more: false, next_cursor: null });
    expect(suggested.body.data.map((t: { bank_reference: string }) => t.bank_reference)).toEqual(['C1']);
    const first = await get(`${w.base}/bank-transactions?limit=1&sort=-amount`);
    expect(first.body).toMatchObject({ count: 2, has_more: true });
    expect(first.body.data[0].bank_reference).toBe('C1');
    const second = await get(`${w.base}/bank-transactions?limit=1&sort=-amount&cursor=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ count: null, has_more: false });
    expect(second.body.data[0].bank_reference).toBe('C2');
    expect((await get(`${w.base}/bank-transactions?limit=1&sort=amount&cursor=${first.body.next_cursor}`)).status).toBe(400);
    expect((await get(`${w.base}/bank-transactions?state=paid`)).status).toBe(400);
  });

  it('importing the same statement again, or one overlapping it, adds no entry twice', async () => {
    const entries = [credit('D1', 1250, { text: 'INV-10231' }), credit('D2', 10, { text: 'interest' }), credit('D3', 10, { text: 'interest' })];
    const first = await upload(statement('STMT-3', entries));
    expect(first.body).toMatchObject({ entries: 3, duplicates: 0, applied: 1 });
    const again = await upload(statement('STMT-3', entries));
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ entries: 3, duplicates: 3, applied: 0, suggested: 0, unmatched: 0 });
    const overlapping = await upload(statement('STMT-4', [...entries.slice(1), credit('D4', 450, { text: 'INV-10241' })]));
    expect(overlapping.body).toMatchObject({ entries: 3, duplicates: 2, applied: 1 });
    expect(await transactions()).toHaveLength(4);
    expect(await paymentsOf(inv['INV-10231'])).toHaveLength(1);
  });

  it('the same large statement uploaded twice at once is stored once and each credit applied once, both answered 201', async () => {
    // Past 200 entries an import runs on a thread of its own: the two run side by side.
    const paying = [credit('P1', 1250, { text: 'INV-10231' }), credit('P2', 800, { text: 'INV-10240' }), credit('P3', 75, { text: 'Invoice 10250' })];
    const noise = Array.from({ length: 250 }, (_, n) => credit(`N${n}`, 1 + n / 100, { text: 'BANK INTEREST' }));
    const xml = statement('STMT-TWICE', [...paying, ...noise]);
    const answers = await Promise.all([upload(xml), upload(xml)]);
    expect(answers.map((a) => a.status)).toEqual([201, 201]);
    expect(answers.map((a) => a.body.duplicates).sort((a, b) => a - b)).toEqual([0, 253]);
    expect(answers.find((a) => a.body.duplicates === 0)!.body).toMatchObject({ entries: 253, applied: 3, unmatched: 250 });
    const stored = await w.engine.db.selectFrom('bank_transactions').select(['id', 'state']).where('company_id', '=', w.company).execute();
    expect(stored).toHaveLength(253);
    for (const number of ['INV-10231', 'INV-10240', 'INV-10250']) {
      expect(await paymentsOf(inv[number])).toHaveLength(1);
      expect(await invoiceRow(inv[number])).toMatchObject({ balance: 0, closing_reason: 'paid' });
    }
    const applications = await w.engine.db.selectFrom('bank_applications').select('transaction_id').where('company_id', '=', w.company).execute();
    expect(applications).toHaveLength(3);
    const applied = stored.filter((t) => t.state === 'applied').map((t) => t.id);
    expect(applications.map((a) => a.transaction_id).sort()).toEqual(applied.sort());
  });

  it('a dry run reads and matches, writing nothing', async () => {
    const res = await upload(statement('STMT-5', [credit('E1', 1250, { text: 'INV-10231' }), credit('E2', 3, { text: 'x' })]), { query: '?dry_run=true' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: null, dry_run: true, entries: 2, applied: 1, unmatched: 1 });
    expect(await transactions()).toEqual([]);
    expect((await invoiceRow(inv['INV-10231'])).balance).toBe(125000);
  });

  it('the review applies a split with a short payment disputed, keeps an overpayment as unapplied cash, and undoes an application', async () => {
    await upload(statement('STMT-6', [credit('F1', 1400, { text: 'Cobalt remittance', party_name: 'Cobalt Industries', party_iban: COBALT_IBAN }), credit('F2', 900, { text: 'INV-10240', party_name: 'Dune Logistics' })]));
    const f1 = await byReference('F1');
    const refused = await post(`${w.base}/bank-transactions/${f1.id}/apply`, { allocations: [{ invoice_id: inv['INV-10231'], amount: 1250 }, { invoice_id: inv['INV-10232'], amount: 200 }] });
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(refused.body.errors.allocations[0]).toContain('add up to $1,450.00');
    const tooMuch = await post(`${w.base}/bank-transactions/${f1.id}/apply`, { allocations: [{ invoice_id: inv['INV-10233'], amount: 1400 }] });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.errors['allocations.0'][0]).toContain('more than INV-10233');
    expect(await paymentsOf(inv['INV-10231'])).toEqual([]);

    const applied = await post(`${w.base}/bank-transactions/${f1.id}/apply`, {
      allocations: [{ invoice_id: inv['INV-10231'], amount: 1250 }, { invoice_id: inv['INV-10232'], amount: 150 }],
      note: 'split by phone',
      short_payment: { action: 'dispute', reason: 'Customer says 150.50 was charged twice' },
    });
    expect(applied.status).toBe(200);
    expect(applied.body).toMatchObject({ state: 'applied', note: 'split by phone' });
    expect(applied.body.applications.map((a: any) => [a.invoice_number, a.amount, a.short_action])).toEqual([['INV-10231', 1250, null], ['INV-10232', 150, 'dispute']]);
    expect(await invoiceRow(inv['INV-10232'])).toEqual({ balance: 15050, closing_reason: null });
    const disputes = await get(`${w.base}/disputes?invoice_id=${inv['INV-10232']}`);
    expect(JSON.stringify(disputes.body)).toContain('charged twice');
    expect((await post(`${w.base}/bank-transactions/${f1.id}/apply`, { allocations: [{ invoice_id: inv['INV-10233'], amount: 1400 }] })).status).toBe(409);

    const f2 = await byReference('F2');
    const over = await post(`${w.base}/bank-transactions/${f2.id}/apply`, { allocations: [{ invoice_id: inv['INV-10240'], amount: 800 }] });
    expect(over.status).toBe(200);
    expect(over.body.applications.map((a: any) => [a.kind, a.amount, a.customer_id])).toEqual([['invoice', 800, dune], ['unapplied', 100, dune]]);

    const undone = await post(`${w.base}/bank-transactions/${f1.id}/unapply`);
    expect(undone.status).toBe(200);
    expect(undone.body.state).toBe('suggested');
    expect(undone.body.applications.every((a: any) => a.reversed_at !== null)).toBe(true);
    expect(await invoiceRow(inv['INV-10231'])).toEqual({ balance: 125000, closing_reason: null });
    expect((await paymentsOf(inv['INV-10231'])).map((p) => p.status)).toEqual(['VOIDED']);
    expect((await post(`${w.base}/bank-transactions/${f1.id}/unapply`)).status).toBe(409);

    const changes = await w.engine.db.selectFrom('changes').select(['command', 'entity']).where('company_id', '=', w.company).where('command', 'in', ['apply_bank_transaction', 'unapply_bank_transaction']).execute();
    expect(new Set(changes.map((c) => `${c.command}:${c.entity}`))).toEqual(
      new Set(['apply_bank_transaction:payment', 'apply_bank_transaction:invoice', 'apply_bank_transaction:bank_application', 'apply_bank_transaction:bank_transaction', 'apply_bank_transaction:bank_payer_account', 'apply_bank_transaction:dispute', 'apply_bank_transaction:communication', 'unapply_bank_transaction:payment', 'unapply_bank_transaction:invoice', 'unapply_bank_transaction:bank_application', 'unapply_bank_transaction:bank_transaction', 'unapply_bank_transaction:bank_payer_account']),
    );
  });

  it('a payer account applied once is learned: its next credit without a reference, equal to one open invoice, is applied automatically', async () => {
    await upload(statement('STMT-7', [credit('G1', 99.99, { text: 'thanks', party_name: 'CBLT IND', party_iban: COBALT_IBAN })]));
    const g1 = await byReference('G1');
    expect(g1.state).toBe('suggested');
    expect((await post(`${w.base}/bank-transactions/${g1.id}/apply`, { allocations: [{ invoice_id: inv['INV-10233'], amount: 99.99 }] })).status).toBe(200);
    const next = await upload(statement('STMT-8', [credit('G2', 300.5, { booked_on: '2026-11-21', text: 'november', party_name: 'CBLT IND', party_iban: COBALT_IBAN.replace(/(.{4})/g, '$1 ') })]));
    expect(next.body.applied).toBe(1);
    expect((await invoiceRow(inv['INV-10232'])).closing_reason).toBe('paid');
    const detail = (await get(`${w.base}/bank-transactions/${(await byReference('G2')).id}`)).body;
    expect(detail.applications[0]).toMatchObject({ invoice_id: inv['INV-10232'], automatic: true });
  });

  it("an automatic application withdraws the engine's proposals for the paid invoice", async () => {
    const proposal = await fixture(w.engine, w.company, (tx) => insertActionRow(tx, w.company, { customer_id: cobalt, invoice_id: inv['INV-10231'], is_action_required: 1, trigger_key: `past_due_no_touch:${inv['INV-10231']}:1_30` }));
    await upload(statement('STMT-9', [credit('H1', 1250, { text: 'INV-10231' })]));
    const action = await get(`${w.base}/actions/${proposal}`);
    expect(action.body).toMatchObject({ status: 'cancelled', approval_log: [expect.objectContaining({ reason: 'superseded: paid in full on November 20, 2026' })] });
  });

  it('ignores a credit, and exports what was applied as CSV and XLSX', async () => {
    const res = await upload(statement('STMT-10', [credit('I1', 1250, { text: 'INV-10231', party_name: 'Cobalt Industries' }), credit('I2', 1.5, { text: 'interest' })]));
    const i2 = await byReference('I2');
    const ignored = await post(`${w.base}/bank-transactions/${i2.id}/ignore`, { note: 'interest' });
    expect(ignored.body).toMatchObject({ state: 'ignored', note: 'interest' });
    expect((await transactions('&state=ignored')).map((t) => t.bank_reference)).toEqual(['I2']);

    const csv = await w.app.request(`${w.base}/bank-statements/${res.body.id}/applications.csv`, { headers: { authorization: `Token ${w.tokens.demo}` } });
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const lines = (await csv.text()).trim().split('\r\n');
    expect(lines[0]).toBe('Booked on,Bank reference,Payer,Customer,Invoice,Kind,Amount,Currency,Payment id,Automatic,Applied by,Applied at,Undone at');
    expect(lines[1]).toMatch(/^2026-11-20,I1,Cobalt Industries,Cobalt Industries Inc\.,INV-10231,payment,1250,USD,[0-9a-f-]{36},yes,/);
    expect(lines).toHaveLength(2);
    const xlsx = await w.app.request(`${w.base}/bank-statements/${res.body.id}/applications.xlsx`, { headers: { authorization: `Token ${w.tokens.demo}` } });
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(await xlsx.arrayBuffer());
    const sheet = book.getWorksheet('Applications')!;
    expect(sheet.getRow(2).getCell(5).value).toBe('INV-10231');
    expect(sheet.getRow(2).getCell(7).value).toBe(1250);
  });

  it('viewers read but do not import or apply; another company sees none of it', async () => {
    const res = await upload(statement('STMT-11', [credit('J1', 400, { text: 'INV-10231' })]));
    const j1 = await byReference('J1');
    expect((await upload(statement('STMT-12', [credit('J2', 1, {})]), { token: w.tokens.watcher })).status).toBe(403);
    expect((await get(`${w.base}/bank-transactions/${j1.id}`, w.tokens.watcher)).status).toBe(200);
    expect((await post(`${w.base}/bank-transactions/${j1.id}/apply`, { allocations: [{ invoice_id: inv['INV-10231'], amount: 400 }] }, w.tokens.watcher)).status).toBe(403);

    const rival = `/api/companies/${w.other}`;
    expect((await get(`${rival}/bank-transactions/${j1.id}`, w.tokens.rival)).status).toBe(404);
    expect((await get(`${rival}/bank-statements/${res.body.id}`, w.tokens.rival)).status).toBe(404);
    expect((await get(`${rival}/bank-statements/${res.body.id}/applications.csv`, w.tokens.rival)).status).toBe(404);
    expect((await post(`${rival}/bank-transactions/${j1.id}/apply`, { allocations: [] }, w.tokens.rival)).status).toBe(404);
    expect((await get(`${rival}/bank-transactions`, w.tokens.rival)).body.data).toEqual([]);
    expect((await get(`${w.base}/bank-transactions`, w.tokens.rival)).status).toBe(403);
    // An invoice of another company named in an allocation is not found in this one.
    const theirs = await ledger(w.engine, w.other).customer({ name: 'Elsewhere' });
    const theirInvoice = await ledger(w.engine, w.other).invoice({ customer: theirs, number: 'X-1', total: 400 });
    const foreign = await post(`${w.base}/bank-transactions/${j1.id}/apply`, { allocations: [{ invoice_id: theirInvoice, amount: 400 }] });
    expect(foreign.status).toBe(400);
    expect(foreign.body.errors['allocations.0']).toEqual(['No such invoice in this company']);
  });

  it('a malformed file is a 400 naming where, a body over the limit a 413, and neither writes anything', async () => {
    const broken = await upload('<?xml version="1.0"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">\n<BkToCstmrStmt>\n<Stmt>\n</Document>\n');
    expect(broken.status).toBe(400);
    expect(broken.body.detail).toMatch(/line \d/);
    const notMultipart = await post(`${w.base}/bank-statements`, { file: 'x' });
    expect(notMultipart.status).toBe(415);
    const small = createApp(w.engine, { maxImportBytes: 2048 });
    const big = await upload(statement('STMT-13', Array.from({ length: 20 }, (_, n) => credit(`K${n}`, 1, { text: 'x'.repeat(100) }))), { app: small });
    expect(big.status).toBe(413);
    expect((await get(`${w.base}/bank-statements`)).body.count).toBe(0);
  });
});

/**
 * The matching test with known truth: 200 credits (and debits) written from the demo
 * ledger with a seeded random, each credit knowing the invoices it pays (or none): exact, typed and
 * RF references, several invoices in one credit, partial payments, a learned payer account without
 * a reference, a payer name only, and noise (interest, refunds, transfers). Automatic applications
 * must all be right, at least 70% of the credits with a true invoice applied automatically, and
 * the top suggestion right for at least 90% of the rest.
 */
describe('matching 200 credits of known truth against the demo ledger', () => {
  interface Open {
    id: string;
    number: string;
    customer_id: string;
    name: string;
    balance: number;
  }
  interface Truth {
    kind: string;
    reference: string;
    invoices: string[];
  }

  it('applies only what is right, most of what has a true invoice, and ranks the right invoice first for the rest', async () => {
    const engine = await testEngine('2026-11-23T12:00:00.000Z');
    try {
      await seedDatabase(engine, { demo: true, invoices: 3000, customers: 300 });
      const app = createApp(engine);
      const login = await call(app, 'POST', '/api/v1/auth/login/', { body: { username: 'demo', password: 'demo' } });
      const token = login.body.token as string;
      const company = (login.body.companies as Array<{ id: string; name: string }>).find((c) => c.name === 'Acme Industrial Supply')!.id;
      const rng = createRng(38);
      const open = engine.database.sqlite
        .prepare(`SELECT i.id, i.invoice_number AS number, i.customer_id, c.name, i.balance FROM invoices i JOIN customers c ON c.id = i.customer_id WHERE i.company_id = ? AND i.closing_reason IS NULL AND i.balance > 0 ORDER BY i.invoice_number`)
        .all(company) as Open[];
      const shuffled = [...open].sort(() => rng.next() - 0.5);
      const used = new Set<string>();
      const byCustomer = new Map<string, Open[]>();
      for (const i of open) byCustomer.set(i.customer_id, [...(byCustomer.get(i.customer_id) ?? []), i]);
      const take = (ok: (i: Open) => boolean = () => true) => {
        const i = shuffled.find((x) => !used.has(x.id) && ok(x));
        if (!i) throw new Error('the demo ledger ran out of open invoices for the test');
        used.add(i.id);
        return i;
      };
      const digits = (i: Open) => i.number.replace(/\D/g, '');
      const uniqueInCustomer = (i: Open) => (byCustomer.get(i.customer_id) ?? []).filter((x) => x.balance === i.balance).length === 1;
      const iban = (n: number) => `DE${String(10 + (n % 89)).padStart(2, '0')}${String(370400440000000000 + n * 7919).slice(0, 18)}`;
      let seq = 0;
      const entries: CamtEntry[] = [];
      const truths: Truth[] = [];
      const add = (kind: string, invoices: Open[], fields: Partial<CamtEntry> & { amount_cents: number }) => {
        const reference = `T${++seq}`;
        entries.push({ booked_on: '2026-11-20', direction: 'credit', reference, ...fields });
        truths.push({ kind, reference, invoices: invoices.map((i) => i.id) });
      };

      // An earlier statement teaches 20 customers' accounts (each pays one invoice by its reference).
      const learnedCustomers = [...byCustomer.values()].filter((list) => list.length >= 2 && list.some(uniqueInCustomer)).slice(0, 20);
      const history: CamtEntry[] = learnedCustomers.map((list, n) => {
        const target = list.find(uniqueInCustomer)!;
        const paid = list.find((x) => x !== target && x.balance !== target.balance) ?? list.find((x) => x !== target)!;
        used.add(paid.id);
        used.add(target.id);
        return { booked_on: '2026-11-18', direction: 'credit', reference: `H${n}`, amount_cents: paid.balance, text: paid.number, party_name: paid.name.toUpperCase(), party_iban: iban(n) };
      });
      const learnedTargets = learnedCustomers.map((list) => list.find(uniqueInCustomer)!);

      for (let n = 0; n < 45; n++) {
        const i = take();
        add('exact reference', [i], { amount_cents: i.balance, text: rng.pick([i.number, `Invoice ${i.number}`, `Payment for ${i.number} thank you`, `${i.number} / ${i.name}`]), party_name: i.name, party_iban: iban(1000 + n) });
      }
      for (let n = 0; n < 15; n++) {
        const i = take();
        add('RF reference', [i], { amount_cents: i.balance, creditor_reference: invoiceRf(i.number), party_name: i.name.toUpperCase() });
      }
      for (let n = 0; n < 20; n++) {
        const first = take((x) => (byCustomer.get(x.customer_id) ?? []).filter((y) => !used.has(y.id)).length >= 2);
        const others = (byCustomer.get(first.customer_id) ?? []).filter((y) => !used.has(y.id)).slice(0, rng.int(1, 2));
        for (const o of others) used.add(o.id);
        const all = [first, ...others];
        const text = rng.pick([`Invoices ${all.map(digits).join(', ')}`, all.map((x) => x.number).join(' '), `inv ${all.map(digits).join('/')}`]);
        add('several invoices', all, { amount_cents: all.reduce((s, x) => s + x.balance, 0), text, party_name: first.name });
      }
      for (let n = 0; n < 25; n++) {
        const i = take();
        const d = digits(i);
        add('typed reference', [i], { amount_cents: i.balance, text: rng.pick([`inv${d}`, `INV 0${d}`, d, `invoice no. ${d}`, `Rechnung ${d}`]), party_name: i.name });
      }
      for (let n = 0; n < 20; n++) {
        const i = take((x) => x.balance >= 1000);
        add('partial payment', [i], { amount_cents: Math.round(i.balance * (0.3 + rng.next() * 0.6)), text: `${rng.pick([i.number, digits(i)])} part payment`, party_name: i.name });
      }
      learnedTargets.forEach((i, n) => add('learned account, no reference', [i], { amount_cents: i.balance, text: rng.pick(['Payment', 'AP run 47', 'Thanks', '']), party_name: i.name.toUpperCase(), party_iban: iban(n) }));
      for (let n = 0; n < 15; n++) {
        const i = take((x) => uniqueInCustomer(x) && (byCustomer.get(x.customer_id) ?? []).every((y) => y === x || !used.has(y.id)));
        add('payer name only', [i], { amount_cents: i.balance, text: rng.pick(['Payment', 'Remittance', 'ACH CREDIT']), party_name: rng.pick([i.name, i.name.toUpperCase(), i.name.replace(/ (LLC|Inc\.|Corp\.|Group)$/, '')]) });
      }
      const noise = ['BANK INTEREST NOVEMBER', 'Refund Staples order 5531', 'IRS TREAS 310 TAX REF', 'Transfer from savings', 'CASH DEPOSIT', 'Card settlement Stripe'];
      for (let n = 0; n < 40; n++) add('noise', [], { amount_cents: rng.int(100, 250_000), text: rng.pick(noise), party_name: rng.pick(['Staples Inc', 'US Treasury', null, 'Stripe Payments']) });
      for (let n = 0; n < 15; n++) entries.push({ booked_on: '2026-11-19', direction: 'debit', reference: `D${n}`, amount_cents: rng.int(1000, 90_000), text: 'Supplier payment', party_name: 'Grainger' });
      const mixed = [...entries].sort(() => rng.next() - 0.5);

      const upload = async (id: string, list: CamtEntry[]) => {
        const form = new FormData();
        form.append('file', new Blob([camt053({ id, iban: 'US00ACME0000000001', currency: 'USD', from: '2026-11-16', to: '2026-11-20', opening_cents: 0, entries: list })]), `${id}.xml`);
        const res = await app.request(`/api/companies/${company}/bank-statements`, { method: 'POST', body: form, headers: { authorization: `Token ${token}` } });
        return (await res.json()) as any;
      };
      expect((await upload('HISTORY', history)).applied).toBe(20);
      const summary = await upload('TRUTH', mixed);
      expect(summary).toMatchObject({ entries: 215, credits: 200, debits: 15, duplicates: 0 });

      const rows = engine.database.sqlite.prepare(`SELECT id, bank_reference, state FROM bank_transactions WHERE statement_id = ?`).all(summary.id) as Array<{ id: string; bank_reference: string; state: string }>;
      const byRef = new Map(rows.map((r) => [r.bank_reference, r]));
      const appliedTo = engine.database.sqlite.prepare(`SELECT invoice_id FROM bank_applications WHERE transaction_id = ? AND kind = 'invoice' AND reversed_at IS NULL`).pluck();
      const sameSet = (a: string[], b: string[]) => a.length === b.length && [...a].sort().join() === [...b].sort().join();
      const wrong: string[] = [];
      let withTruth = 0;
      let automatic = 0;
      let rest = 0;
      let topRight = 0;
      const perKind = new Map<string, { n: number; auto: number; top: number }>();
      for (const t of truths) {
        const row = byRef.get(t.reference)!;
        const k = perKind.get(t.kind) ?? { n: 0, auto: 0, top: 0 };
        perKind.set(t.kind, k);
        k.n++;
        if (row.state === 'applied') {
          if (!sameSet(appliedTo.all(row.id) as string[], t.invoices)) wrong.push(`${t.kind} ${t.reference}`);
          else if (t.invoices.length) {
            automatic++;
            k.auto++;
          }
        }
        if (!t.invoices.length) continue;
        withTruth++;
        if (row.state === 'applied') continue;
        rest++;
        const detail = (await call(app, 'GET', `/api/companies/${company}/bank-transactions/${row.id}`, { token })).body;
        if (detail.proposal && sameSet(detail.proposal.allocations.map((a: { invoice_id: string }) => a.invoice_id), t.invoices)) {
          topRight++;
          k.top++;
        }
      }
      const pct = (a: number, b: number) => `${((100 * a) / b).toFixed(1)}%`;
      console.log(
        `bank matching, 200 credits of known truth: automatic applications ${automatic} of ${withTruth} credits with a true invoice (${pct(automatic, withTruth)}), wrong automatic applications ${wrong.length}; top suggestion right for ${topRight} of the other ${rest} (${pct(topRight, rest)})`,
      );
      for (const [kind, k] of perKind) console.log(`  ${kind}: ${k.n} credits, ${k.auto} applied automatically, top suggestion right for ${k.top}`);
      expect(wrong).toEqual([]);
      expect(automatic / withTruth).toBeGreaterThanOrEqual(0.7);
      expect(topRight / rest).toBeGreaterThanOrEqual(0.9);
    } finally {
      await engine.dispose();
    }
  }, 60_000);
});
