import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRESETS } from '../../core/import/mappings/index';
import { addCompany } from '../support/api';
import { testEngine, type TestEngine } from '../support/engine';
import { IBM_AR_CSV, rowCount, runImport } from '../support/import-fixtures';


describe('the IBM accounts-receivable sample through the ibm-ar preset', () => {
  let engine: TestEngine;
  let companyId: string;
  const bytes = readFileSync(IBM_AR_CSV);

  beforeAll(async () => {
    engine = await testEngine('2026-11-23T12:00:00.000Z');
    companyId = await addCompany(engine, 'IBM sample');
  });
  afterAll(async () => engine.dispose());

  const one = <T>(sql: string, ...params: unknown[]) => engine.database.sqlite.prepare(sql).get(...params) as T;

  it('imports 100 customers, 2,466 invoices and 2,466 payments with no row error', async () => {
    const dry = await runImport(engine, companyId, bytes, PRESETS['ibm-ar'], { dryRun: true });
    expect(rowCount(engine, 'invoices')).toBe(0);
    const report = await runImport(engine, companyId, bytes, PRESETS['ibm-ar']);
    expect(report.errors).toEqual([]);
    expect(report.rows).toBe(2466);
    expect(report.counts).toEqual({
      customers: { created: 100, updated: 0, unchanged: 0 },
      invoices: { created: 2466, updated: 0, unchanged: 0 },
      payments: { created: 2466, updated: 0, unchanged: 0 },
    });
    expect(dry.counts).toEqual(report.counts);
    expect(report.labels_created).toEqual(['Disputed']);
  });

  it('closes every invoice as paid: no open balance, and the due-date totals agree with the rows', () => {
    expect(one('SELECT count(*) AS n, sum(total_amount) AS total, sum(balance) AS balance FROM invoices WHERE company_id = ?', companyId)).toEqual({
      n: 2466,
      total: 14770318,
      balance: 0,
    });
    expect(one("SELECT count(*) AS n FROM invoices WHERE company_id = ? AND closing_reason = 'paid' AND paid_amount = total_amount", companyId)).toEqual({ n: 2466 });
    const totals = engine.database.sqlite.prepare('SELECT state, sum(invoice_count) AS n, sum(total_amount) AS total, sum(balance) AS balance FROM invoice_due_totals WHERE company_id = ? GROUP BY state').all(companyId);
    expect(totals).toEqual([{ state: 'paid', n: 2466, total: 14770318, balance: 0 }]);
    expect(one('SELECT count(*) AS n FROM payments WHERE company_id = ? AND amount > 0', companyId)).toEqual({ n: 2466 });
  });

  it('reproduces the sample: mean DaysToSettle 26.4 and 35.6% paid late', () => {
    const stats = one<{ mean: number; late: number }>(
      "SELECT avg(julianday(closed_date) - julianday(invoice_date)) AS mean, avg(closed_date > due_date) AS late FROM invoices WHERE company_id = ? AND closing_reason = 'paid'",
      companyId,
    );
    expect(stats.mean).toBeCloseTo(26.4, 1);
    expect(Math.abs(stats.mean - 26.4)).toBeLessThan(0.05);
    expect(Math.round(stats.late * 1000) / 10).toBe(35.6);
  });

  it('keeps leading zeros, the countries, the disputes and how each bill was sent', () => {
    expect(one('SELECT invoice_number, customer_name, invoice_date, due_date, total_amount FROM invoices WHERE invoice_number = ?', '0000611365')).toEqual({
      invoice_number: '0000611365',
      customer_name: '0379-NEVHP',
      invoice_date: '2013-01-02',
      due_date: '2013-02-01',
      total_amount: 5594,
    });
    expect(one("SELECT count(DISTINCT country) AS n FROM customer_locations WHERE company_id = ? AND name = 'Main'", companyId)).toEqual({ n: 5 });
    expect(one("SELECT count(*) AS n FROM invoice_labels il JOIN labels l ON l.id = il.label_id WHERE l.name = 'Disputed' AND l.meaning = 'dispute'")).toEqual({ n: 561 });
    const methods = engine.database.sqlite.prepare('SELECT payment_method, count(*) AS n FROM payments GROUP BY payment_method ORDER BY payment_method').all();
    // The file does not say how anyone paid: PaperlessBill is how the bill was sent, not a method.
    expect(methods).toEqual([{ payment_method: 'OTHER', n: 2466 }]);
    // PaperlessBill is the invoice's own bill channel, a fact known the day it was issued.
    const channels = engine.database.sqlite.prepare('SELECT bill_channel, count(*) AS n FROM invoices WHERE company_id = ? GROUP BY bill_channel ORDER BY bill_channel').all(companyId);
    expect(channels).toEqual([
      { bill_channel: 'electronic', n: 1203 },
      { bill_channel: 'paper', n: 1263 },
    ]);
    expect(one('SELECT bill_channel FROM invoices WHERE invoice_number = ?', '0000611365')).toEqual({ bill_channel: 'paper' });
  });

  it('importing it again finds everything unchanged and writes nothing', async () => {
    const recorded = rowCount(engine, 'changes');
    const again = await runImport(engine, companyId, bytes, PRESETS['ibm-ar']);
    expect(again.counts).toEqual({
      customers: { created: 0, updated: 0, unchanged: 100 },
      invoices: { created: 0, updated: 0, unchanged: 2466 },
      payments: { created: 0, updated: 0, unchanged: 2466 },
    });
    expect(rowCount(engine, 'changes')).toBe(recorded);
  });
});
