/**
 * A customer's credits over the real API and a real SQLite file: an invoice paid more than its
 * total and the unapplied cash of a bank credit (a camt.053 imported and applied) appear on the
 * customer's credits, its statement (PDF through pdftotext, CSV, the message it is sent with) and
 * its portal page, each with where it came from and the balance net of them; an undone
 * application's cash and another company's credits do not.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { camt053, type CamtEntry } from '../../core/bench/camt';
import { statementTotals } from '../../core/documents/draw-statement';
import { statementEmail } from '../../core/documents/send';
import { createApp } from '../../core/http/app';
import { customerCredits } from '../../core/payments/credits';
import { call, useApiWorkspace } from '../support/api';
import { type Ledger, ledger } from '../support/ledger-fixtures';
import { pdfText } from '../support/pdf';

describe('customer credits', () => {
  const w = useApiWorkspace();
  let l: Ledger;
  let kim: string;
  const inv: Record<string, string> = {};

  beforeEach(async () => {
    w.engine.clock.set('2026-11-23T12:00:00.000Z');
    l = ledger(w.engine, w.company);
    kim = await l.customer({ name: 'Robert Kim' });
    for (const [number, total] of [
      ['INV-10061', 455.2],
      ['INV-10062', 1000],
      ['INV-10063', 300],
    ] as const)
      inv[number] = await l.invoice({ customer: kim, number, total, dueDate: '2026-11-01' });
  });

  const get = (path: string, token = w.tokens.demo) => call(w.app, 'GET', path, { token });
  const post = (path: string, body?: unknown) => call(w.app, 'POST', path, { token: w.tokens.demo, body });

  async function importCredits(id: string, entries: CamtEntry[]) {
    const form = new FormData();
    form.append('file', new Blob([camt053({ id, iban: 'DE89370400440532013000', currency: 'USD', from: '2026-11-16', to: '2026-11-20', opening_cents: 0, entries })]), 'statement.xml');
    const res = await w.app.request(`${w.base}/bank-statements`, { method: 'POST', body: form, headers: { authorization: `Token ${w.tokens.demo}` } });
    expect(res.status).toBe(201);
  }
  const transaction = async (reference: string) => ((await get(`${w.base}/bank-transactions?limit=100`)).body.data as any[]).find((t) => t.bank_reference === reference);
  const credit = (reference: string, amount: number, text: string): CamtEntry => ({ booked_on: '2026-11-20', amount_cents: Math.round(amount * 100), direction: 'credit', reference, text, party_name: 'Robert Kim' });

  /** INV-10061 paid $91.04 too much by hand; a $1,100 bank credit applied to INV-10062 with $100 kept; a $50 one applied as cash and undone. */
  async function credits() {
    const paid = await post(`${w.base}/payments`, { invoice: inv['INV-10061'], amount: 546.24, payment_date: '2026-11-10' });
    expect(paid.status).toBe(201);
    await importCredits('STMT-CR', [credit('K1', 1100, 'Kim remittance'), credit('K2', 50, 'deposit')]);
    const k1 = await transaction('K1');
    const applied = await post(`${w.base}/bank-transactions/${k1.id}/apply`, { allocations: [{ invoice_id: inv['INV-10062'], amount: 1000 }], unapplied_amount: 100 });
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    const k2 = await transaction('K2');
    expect((await post(`${w.base}/bank-transactions/${k2.id}/apply`, { allocations: [], customer_id: kim })).status).toBe(200);
    expect((await post(`${w.base}/bank-transactions/${k2.id}/unapply`)).status).toBe(200);
    return { k1: k1.id as string };
  }

  it('lists the overpayment and the unapplied bank cash with their sources and the net balance; not undone cash, not another company', async () => {
    const before = await get(`${w.base}/customers/${kim}/credits`);
    expect(before.status).toBe(200);
    expect(before.body).toEqual({ credits: [], balances: [{ currency: 'USD', open: 1755.2, credits: 0, net: 1755.2 }] });

    const { k1 } = await credits();
    const res = await get(`${w.base}/customers/${kim}/credits`);
    expect(res.body.credits).toEqual([
      { kind: 'overpayment', date: '2026-11-10', currency: 'USD', amount: 91.04, invoice: inv['INV-10061'], invoice_number: 'INV-10061', bank_transaction: null, payer: null, reference: null },
      { kind: 'unapplied_cash', date: '2026-11-20', currency: 'USD', amount: 100, invoice: null, invoice_number: null, bank_transaction: k1, payer: 'Robert Kim', reference: 'K1' },
    ]);
    // Open: INV-10063 alone (300); credits 191.04.
    expect(res.body.balances).toEqual([{ currency: 'USD', open: 300, credits: 191.04, net: 108.96 }]);
    // A viewer reads them; another company's owner does not see this customer; an unknown one is a 404.
    expect((await get(`${w.base}/customers/${kim}/credits`, w.tokens.watcher)).status).toBe(200);
    expect((await get(`${w.base}/customers/${kim}/credits`, w.tokens.rival)).status).toBe(403);
    expect((await get(`/api/companies/${w.other}/customers/${kim}/credits`, w.tokens.rival)).status).toBe(404);
    expect((await get(`${w.base}/customers/00000000-0000-7000-8000-000000000000/credits`)).status).toBe(404);
  });

  it('the statement lists the credits with their sources and an amount due net of them; the portal shows the same credits', async () => {
    await credits();
    const pdf = await w.app.request(`${w.base}/customers/${kim}/statement.pdf`, { headers: { authorization: `Token ${w.tokens.demo}` } });
    expect(pdf.status).toBe(200);
    const text = pdfText(Buffer.from(await pdf.arrayBuffer()));
    expect(text).toContain('Credits and unapplied cash');
    expect(text).toContain('Overpayment of invoice INV-10061');
    expect(text).toContain('Unapplied payment (ref. K1) from Robert Kim');
    expect(text).toMatch(/Total due\s+\$300\.00/);
    expect(text).toMatch(/Credits\s+-\$191\.04/);
    expect(text).toMatch(/Amount due\s+\$108\.96/);
    // The undone $50 is nowhere.
    expect(text).not.toContain('$50.00');

    const csv = await (await w.app.request(`${w.base}/customers/${kim}/statement.csv`, { headers: { authorization: `Token ${w.tokens.demo}` } })).text();
    expect(csv).toContain('Credit,2026-11-10,Overpayment of invoice INV-10061,,,USD,,,-91.04');
    expect(csv).toContain(',USD,,,-100');

    // Before the bank credit was booked, the statement had the overpayment only.
    const earlier = pdfText(Buffer.from(await (await w.app.request(`${w.base}/customers/${kim}/statement.pdf?as_of=2026-11-15`, { headers: { authorization: `Token ${w.tokens.demo}` } })).arrayBuffer()));
    expect(earlier).toContain('Overpayment of invoice INV-10061');
    expect(earlier).not.toContain('(ref. K1)');

    const portalApp = createApp(w.engine, { portalBaseUrl: () => 'https://ar.example.test' });
    const link = await portalApp.request(`${w.base}/customers/${kim}/portal-link`, { method: 'POST', headers: { authorization: `Token ${w.tokens.demo}` } });
    expect(link.status).toBe(201);
    const html = await (await portalApp.request(new URL(((await link.json()) as { url: string }).url).pathname)).text();
    expect(html).toContain('Overpayment of invoice INV-10061');
    expect(html).toContain('Unapplied payment (ref. K1) from Robert Kim');
    expect(html).toMatch(/<dt>Credits<\/dt><dd>\$191\.04<\/dd>/);
    expect(html).toMatch(/<dt>To pay after credits<\/dt><dd>\$108\.96<\/dd>/);
  });

  it('the message a statement is sent with gives the amount due net of the credits, as the PDF does', async () => {
    await credits();
    const { totals } = await customerCredits(w.engine.db, w.company, kim, '2026-11-23');
    const due = statementTotals([{ invoice_number: 'INV-10063', invoice_date: '2026-10-02', due_date: '2026-11-01', currency: 'USD', total_amount: 30_000, paid: 0, open: 30_000 }], '2026-11-23');
    expect(statementEmail('Acme Supply', 'Robert Kim', '2026-11-23', due, null, totals).text).toContain('Total due: $300.00.\nCredits on your account: $191.04; amount due $108.96.');
    expect(statementEmail('Acme Supply', 'Robert Kim', '2026-11-23', due, null, [{ currency: 'USD', credits: 40_000 }]).text).toContain('Credits on your account: $400.00; $100.00 in your favour.');
    expect(statementEmail('Acme Supply', 'Robert Kim', '2026-11-23', due).text).not.toContain('Credits');
  });

  it('a statement with no credits keeps its total due alone', async () => {
    const text = pdfText(Buffer.from(await (await w.app.request(`${w.base}/customers/${kim}/statement.pdf`, { headers: { authorization: `Token ${w.tokens.demo}` } })).arrayBuffer()));
    expect(text).toMatch(/Total due\s+\$1,755\.20/);
    expect(text).not.toContain('Credits and unapplied cash');
    expect(text).not.toContain('Amount due');
  });
});
