import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../core/http/app';
import { buildMapping, IMPORT_STATUSES, type MappingChoice } from '../../renderer/src/settings/import-mapping';
import { addCompany, addUser, type App, call, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { csv } from '../support/import-fixtures';

/**
 * A refunded payment, as a ledger export writes it, imported through the API the way the import
 * wizard maps it: the spec has no refund status, so it arrives VOIDED and counts toward nothing.
 */
describe('importing a refunded payment', () => {
  let engine: TestEngine;
  let app: App;
  let token: string;
  let company: string;

  const HEADER = ['Customer', 'Invoice', 'Date', 'Amount', 'Paid', 'Paid on', 'Payment ref', 'Payment status'];
  /** What the wizard builds when the collector maps each of the file's statuses with the offered options. */
  const choice = (values: Record<string, string>): MappingChoice => ({
    entity: 'ar-rows',
    columns: {
      'customers.name': 'Customer',
      'invoices.invoice_number': 'Invoice',
      'invoices.invoice_date': 'Date',
      'invoices.total_amount': 'Amount',
      'payments.amount': 'Paid',
      'payments.payment_date': 'Paid on',
      'payments.remote_id': 'Payment ref',
    },
    date: 'YYYY-MM-DD',
    decimal: '.',
    valueMaps: [{ column: 'Payment status', target: 'status', values }],
  });

  async function upload(rows: string[][], mapping: unknown) {
    const form = new FormData();
    form.append('file', new Blob([csv([HEADER, ...rows])]), 'ledger.csv');
    form.append('mapping', JSON.stringify(mapping));
    const res = await app.request(`/api/companies/${company}/imports`, { method: 'POST', body: form, headers: { authorization: `Token ${token}` } });
    return { status: res.status, body: await res.json() };
  }

  const invoice = (number: string) =>
    engine.database.sqlite.prepare('SELECT paid_amount, balance, closing_reason FROM invoices WHERE company_id = ? AND invoice_number = ?').get(company, number);
  const payment = (ref: string) =>
    engine.database.sqlite.prepare('SELECT status, voided_at FROM payments WHERE company_id = ? AND remote_id = ?').get(company, ref) as { status: string; voided_at: string | null };

  beforeAll(async () => {
    engine = await testEngine('2026-11-23T12:00:00.000Z');
    app = createApp(engine);
    company = await addCompany(engine, 'Home');
    await addUser(engine, 'demo', [[company, 'owner']]);
    token = await loginAs(app, 'demo');
  });
  afterAll(() => engine.dispose());

  it('maps "Refunded" to VOIDED as the wizard offers it: the payment is kept and the invoice stays open', async () => {
    // The wizard's options are the import's statuses; a refund is VOIDED among them.
    expect(IMPORT_STATUSES).toContain('VOIDED');
    const mapping = buildMapping(choice({ Paid: 'PAID', Refunded: 'VOIDED' }));
    const res = await upload(
      [
        ['Globex', 'INV-1', '2026-10-01', '100.00', '100.00', '2026-10-20', 'P-1', 'Paid'],
        ['Globex', 'INV-2', '2026-10-02', '200.00', '200.00', '2026-10-21', 'P-2', 'Refunded'],
      ],
      mapping,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.counts.payments).toEqual({ created: 2, updated: 0, unchanged: 0 });
    expect(invoice('INV-1')).toEqual({ paid_amount: 10000, balance: 0, closing_reason: 'paid' });
    expect(invoice('INV-2')).toEqual({ paid_amount: 0, balance: 20000, closing_reason: null });
    expect(payment('P-2')).toEqual({ status: 'VOIDED', voided_at: '2026-11-23T12:00:00.000Z' });
    const voided = await call(app, 'GET', `/api/companies/${company}/payments?status=VOIDED`, { token });
    expect(voided.body.data.map((p: { invoice_number: string; amount: number }) => [p.invoice_number, p.amount])).toEqual([['INV-2', 200]]);
  });

  it('a payment refunded since the last import is voided by the next one, and its invoice reopens', async () => {
    const res = await upload(
      [
        ['Globex', 'INV-1', '2026-10-01', '100.00', '100.00', '2026-10-20', 'P-1', 'Refunded'],
        ['Globex', 'INV-2', '2026-10-02', '200.00', '200.00', '2026-10-21', 'P-2', 'Refunded'],
      ],
      buildMapping(choice({ Paid: 'PAID', Refunded: 'VOIDED' })),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.counts.payments).toEqual({ created: 0, updated: 1, unchanged: 1 });
    expect(payment('P-1')).toEqual({ status: 'VOIDED', voided_at: '2026-11-23T12:00:00.000Z' });
    expect(invoice('INV-1')).toEqual({ paid_amount: 0, balance: 10000, closing_reason: null });
  });

  it('reads refunded and reversed in the file without a value map, and names the statuses it takes for any other word', async () => {
    const direct = { ...buildMapping(choice({})), payments: { ...buildMapping(choice({})).payments, status: 'Payment status' } };
    const ok = await upload([['Initech', 'INV-3', '2026-10-03', '50.00', '50.00', '2026-10-22', 'P-3', 'REVERSED']], direct);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(payment('P-3').status).toBe('VOIDED');
    expect(invoice('INV-3')).toEqual({ paid_amount: 0, balance: 5000, closing_reason: null });

    const bad = await upload([['Initech', 'INV-4', '2026-10-04', '50.00', '50.00', '2026-10-23', 'P-4', 'Bounced']], direct);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('\\"Bounced\\" is not a payment status: one of PAID, PARTIAL, PENDING, FAILED, VOIDED (refunded and reversed read as VOIDED)');
    expect(payment('P-4')).toBeUndefined();
  });
});
