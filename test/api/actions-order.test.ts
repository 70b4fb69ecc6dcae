/**
 * The inbox in the order that matters: GET .../actions?sort=value_at_risk puts first what the
 * collector stands to lose (balance x lateness x the model's chance of no payment within 30 days),
 * whatever order the proposals were made in; the columns sort too, and each row carries its figures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../core/http/app';
import { newId } from '../../core/ids';
import { addCustomer, addTeamMember, assessProposals } from '../support/actions-fixtures';
import { addCompany, addUser, type App, call, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { addMember, fixture, insertActionRow, insertInvoiceRow } from '../support/rows';

describe('the actions inbox order', () => {
  let engine: TestEngine;
  let app: App;
  let token: string;
  let company: string;
  const api = (path: string) => call(app, 'GET', `/api/companies/${company}${path}`, { token });
  const names = async (query: string) => (await api(`/actions?category=needs_action${query}`)).body.data.map((a: { customer_name: string }) => a.customer_name);

  /** A prediction the refresh would write: the chance of payment by each date. */
  function predict(invoice: string, customer: string, scenarios: Array<{ date: string; probability: number }>, validTo: string | null = null) {
    engine.database.sqlite
      .prepare(
        `INSERT INTO insights (id, company_id, target_type, target_id, customer_id, invoice_id, insight_type, payload_json, valid_from, valid_to, created_at, evidence)
         VALUES (?, ?, 'invoice', ?, ?, ?, 'invoice_pay_date_prediction', ?, '2026-11-01T00:00:00.000Z', ?, '2026-11-01T00:00:00.000Z', '[]')`,
      )
      .run(newId(), company, invoice, customer, invoice, JSON.stringify({ predicted_date: scenarios[0].date, alternative_scenarios: scenarios }), validTo);
  }

  async function proposal(name: string, invoice: { total: number; due: string }, createdAt: string, deadline: string) {
    const customer = await addCustomer(engine, company, name);
    const id = await fixture(engine, company, (tx) => insertInvoiceRow(tx, company, customer, { invoice_number: `INV-${name}`, invoice_date: '2026-08-01', due_date: invoice.due, total_amount: invoice.total }));
    await fixture(engine, company, (tx) =>
      insertActionRow(tx, company, {
        customer_id: customer,
        invoice_id: id,
        is_action_required: 1,
        top_recommendation: 'recommended',
        recommendation_label: `Remind ${name}`,
        trigger_event_label: `Why ${name}`,
        response_deadline: deadline,
        created_at: createdAt,
      }),
    );
    return { customer, invoice: id };
  }

  beforeAll(async () => {
    engine = await testEngine('2026-11-23T12:00:00.000Z');
    app = createApp(engine);
    const userId = await addUser(engine, 'ana', []);
    token = await loginAs(app, 'ana');
    company = await addCompany(engine, 'Acme Holdings');
    await addMember(engine, company, userId, 'collector');
    await addTeamMember(engine, company, 'Ana', userId);
    // Made oldest first: Acme, Birch, Cedar, Dune; newest first is the reverse.
    await proposal('Acme', { total: 50_000, due: '2026-11-13' }, '2026-11-20T09:00:00.000Z', '2026-11-26T17:00:00.000Z');
    const birch = await proposal('Birch', { total: 200_000, due: '2026-08-25' }, '2026-11-21T09:00:00.000Z', '2026-11-24T17:00:00.000Z');
    const cedar = await proposal('Cedar', { total: 100_000, due: '2026-10-24' }, '2026-11-22T09:00:00.000Z', '2026-11-25T17:00:00.000Z');
    const dune = await proposal('Dune', { total: 300_000, due: '2026-12-10' }, '2026-11-23T09:00:00.000Z', '2026-11-27T17:00:00.000Z');
    // Birch is 90 days late but the model expects it paid within a month (90%); Dune, not yet due, half.
    predict(birch.invoice, birch.customer, [
      { date: '2026-12-01', probability: 0.9 },
      { date: '2027-02-01', probability: 0.1 },
    ]);
    predict(dune.invoice, dune.customer, [
      { date: '2026-12-15', probability: 0.5 },
      { date: '2027-01-10', probability: 0.5 },
    ]);
    // A prediction no longer current does not count: Cedar has none, so nothing says it will be paid soon.
    predict(cedar.invoice, cedar.customer, [{ date: '2026-11-30', probability: 1 }], '2026-11-10T00:00:00.000Z');
    await assessProposals(engine, company, '2026-11-23');
  });
  afterAll(() => engine.dispose());

  it('value at risk: balance x (1 + days past due / 30) x chance of no payment within 30 days, highest first, whatever the creation order', async () => {
    expect(await names('')).toEqual(['Dune', 'Cedar', 'Birch', 'Acme']);
    const page = (await api('/actions?category=needs_action&sort=value_at_risk')).body.data;
    expect(page.map((a: { customer_name: string }) => a.customer_name)).toEqual(['Cedar', 'Dune', 'Birch', 'Acme']);
    expect(page.map((a: { balance: number; days_past_due: number; value_at_risk: number; currency: string }) => [a.balance, a.days_past_due, a.value_at_risk, a.currency])).toEqual([
      [1000, 30, 2000, 'USD'],
      [3000, 0, 1500, 'USD'],
      [2000, 90, 800, 'USD'],
      [500, 10, 666.67, 'USD'],
    ]);
    // Pages follow the same order.
    const second = (await api('/actions?category=needs_action&sort=value_at_risk&page=2&page_size=3')).body;
    expect(second).toMatchObject({ count: 4, page: 2 });
    expect(second.data.map((a: { customer_name: string }) => a.customer_name)).toEqual(['Acme']);
    expect(await names('&sort=value_at_risk&direction=asc')).toEqual(['Acme', 'Birch', 'Dune', 'Cedar']);
  });

  it('sorts by each column a collector reads', async () => {
    expect(await names('&sort=balance')).toEqual(['Dune', 'Birch', 'Cedar', 'Acme']);
    expect(await names('&sort=days_past_due')).toEqual(['Birch', 'Cedar', 'Acme', 'Dune']);
    expect(await names('&sort=customer&direction=desc')).toEqual(['Dune', 'Cedar', 'Birch', 'Acme']);
    expect(await names('&sort=recommendation')).toEqual(['Acme', 'Birch', 'Cedar', 'Dune']);
    expect(await names('&sort=why&direction=desc')).toEqual(['Dune', 'Cedar', 'Birch', 'Acme']);
    expect(await names('&sort=decide_by')).toEqual(['Birch', 'Cedar', 'Acme', 'Dune']);
  });

  it('refuses an unknown sort or direction with a problem, naming the parameter', async () => {
    for (const query of ['sort=amount', 'sort=balance&direction=up']) {
      const res = await api(`/actions?${query}`);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    }
  });
});
