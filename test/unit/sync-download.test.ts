import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timestamp } from '../../core/clock';
import { startRuntime, type Runtime } from '../../core/runtime/server';
import { seedDatabase } from '../../core/seed';
import { forgetCompany, writeChanges, writeUsers } from '../../core/sync/apply';
import { skippableTriggers, tablesWrittenBy } from '../../core/sync/bulk';
import { beginConnection, callServer, connect, isStaleConnection, PAGE_ROWS, resync } from '../../core/sync/client';
import { AGGREGATES } from '../../core/sync/derived';
import type { Feed } from '../../core/sync/feed';
import { setSyncRole } from '../../core/sync/triggers';
import { type TestEngine, testEngine } from '../support/engine';

/**
 * The first download writes a company in bulk (core/sync/bulk.ts). Its result must be exactly what
 * writing the same pages row by row gives, with every trigger firing: the rows, the aggregates the
 * triggers keep, the full-text indexes and the schema.
 */

/**
 * Every row of every ordinary table but the connection's own settings, each table's rows sorted;
 * without the local row numbers (invoices.seq) when `seq` is false, as a copy replaced in place
 * numbers its rows after the others.
 */
function dump(engine: TestEngine, seq = true): Record<string, string[]> {
  const sqlite = engine.database.sqlite;
  const tables = sqlite
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_%' AND name NOT LIKE '%_fts%' AND name <> 'sync_state' ORDER BY name`)
    .all() as Array<{ name: string }>;
  const shown = (row: Record<string, unknown>) => JSON.stringify(seq ? row : { ...row, seq: undefined });
  return Object.fromEntries(tables.map(({ name }) => [name, (sqlite.prepare(`SELECT * FROM "${name}"`).all() as Array<Record<string, unknown>>).map(shown).sort()]));
}

function schema(engine: TestEngine): unknown[] {
  return engine.database.sqlite.prepare(`SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`).all();
}

/** What each full-text index finds for every indexed value, by row id (FTS5 also checks each index against its content table). */
function fullText(engine: TestEngine): unknown[] {
  const sqlite = engine.database.sqlite;
  sqlite.exec(`INSERT INTO invoice_number_fts (invoice_number_fts, rank) VALUES ('integrity-check', 1)`);
  sqlite.exec(`INSERT INTO customer_name_fts (customer_name_fts, rank) VALUES ('integrity-check', 1)`);
  const quoted = (text: string) => `"${text.replace(/"/g, '""')}"`;
  const invoice = sqlite.prepare(`SELECT i.id FROM invoice_number_fts f JOIN invoices i ON i.seq = f.rowid WHERE invoice_number_fts MATCH ? ORDER BY i.id`).pluck();
  const customer = sqlite.prepare(`SELECT c.id FROM customer_name_fts f JOIN customers c ON c.rowid = f.rowid WHERE customer_name_fts MATCH ? ORDER BY c.id`).pluck();
  const invoices = sqlite.prepare(`SELECT id, invoice_number FROM invoices ORDER BY id`).all() as Array<{ id: string; invoice_number: string }>;
  const customers = sqlite.prepare(`SELECT id, name FROM customers ORDER BY id`).all() as Array<{ id: string; name: string }>;
  return [...invoices.map((i) => [i.id, invoice.all(quoted(i.invoice_number))]), ...customers.map((c) => [c.id, customer.all(quoted(c.name))])];
}

const WRITTEN_OFF = `coalesce(CASE WHEN closing_reason IN ('credit_memo','written_off') THEN coalesce(closed_date, '') END, '9999-12-31')`;
/** The receivable changes of the team books (0470): a positive total, open or paid, from its date, each settled payment off from the later of its and the invoice's date; one credited or written off with nothing paid, from its date to its closing. */
const TEAM_RECEIVABLES = `SELECT i.company_id, i.due_date, coalesce(c.ar_owner_id, '') AS owner, i.invoice_date AS day, i.total_amount AS amount
    FROM invoices i JOIN customers c ON c.id = i.customer_id WHERE i.total_amount > 0 AND coalesce(i.closing_reason, 'paid') = 'paid'
  UNION ALL SELECT i.company_id, i.due_date, coalesce(c.ar_owner_id, ''), i.invoice_date, i.total_amount
    FROM invoices i JOIN customers c ON c.id = i.customer_id WHERE i.total_amount > 0 AND i.closing_reason IN ('credit_memo','written_off') AND i.paid_amount = 0 AND i.closed_date IS NOT NULL
  UNION ALL SELECT i.company_id, i.due_date, coalesce(c.ar_owner_id, ''), max(i.closed_date, i.invoice_date), -i.total_amount
    FROM invoices i JOIN customers c ON c.id = i.customer_id WHERE i.total_amount > 0 AND i.closing_reason IN ('credit_memo','written_off') AND i.paid_amount = 0 AND i.closed_date IS NOT NULL
  UNION ALL SELECT i.company_id, i.due_date, coalesce(c.ar_owner_id, ''), max(p.payment_date, i.invoice_date), -p.amount
    FROM payments p JOIN invoices i ON i.id = p.invoice_id JOIN customers c ON c.id = i.customer_id
    WHERE i.total_amount > 0 AND coalesce(i.closing_reason, 'paid') = 'paid' AND p.status IN ('PAID','PARTIAL')`;
/** Each aggregate next to the same grouping computed from the rows, written independently of core/sync/derived.ts. */
const FROM_SCRATCH: Record<string, [string, string]> = {
  invoice_due_totals: [
    `SELECT company_id, due_date, state, invoice_count, nonzero_count, total_amount, balance FROM invoice_due_totals ORDER BY 1, 2, 3`,
    `SELECT company_id, due_date, coalesce(closing_reason, 'open'), count(*), sum(balance <> 0), sum(total_amount), sum(balance) FROM invoices GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
  ],
  customer_invoice_totals: [
    `SELECT company_id, customer_id, customer_name, invoice_count, total_amount, balance, oldest_due_date, oldest_open_due_date FROM customer_invoice_totals ORDER BY 1, 2`,
    `SELECT company_id, customer_id, max(customer_name), count(*), sum(total_amount), sum(balance), min(due_date), min(CASE WHEN closing_reason IS NULL AND balance > 0 THEN due_date END)
     FROM invoices GROUP BY 1, 2 ORDER BY 1, 2`,
  ],
  customer_open_totals: [
    `SELECT company_id, customer_id, open_balance FROM customer_open_totals WHERE open_balance <> 0 ORDER BY 1, 2`,
    `SELECT company_id, customer_id, sum(balance) FROM invoices WHERE closing_reason IS NULL GROUP BY 1, 2 HAVING sum(balance) <> 0 ORDER BY 1, 2`,
  ],
  payment_day_totals: [
    `SELECT company_id, payment_date, status, payment_method, payment_count, amount FROM payment_day_totals ORDER BY 1, 2, 3, 4`,
    `SELECT company_id, payment_date, status, payment_method, count(*), sum(amount) FROM payments GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
  ],
  customer_paid_lateness: [
    `SELECT company_id, customer_id, paid_count, late_days FROM customer_paid_lateness WHERE paid_count <> 0 ORDER BY 1, 2`,
    `SELECT company_id, customer_id, count(*), 1.0 * sum(max(julianday(closed_date) - julianday(due_date), 0)) FROM invoices WHERE closing_reason = 'paid' AND closed_date IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2`,
  ],
  invoice_issue_totals: [
    `SELECT company_id, invoice_date, due_date, written_off, total_amount FROM invoice_issue_totals WHERE total_amount <> 0 ORDER BY 1, 2, 3, 4`,
    `SELECT company_id, invoice_date, due_date, ${WRITTEN_OFF}, sum(total_amount) FROM invoices GROUP BY 1, 2, 3, 4 HAVING sum(total_amount) <> 0 ORDER BY 1, 2, 3, 4`,
  ],
  payment_issue_totals: [
    `SELECT company_id, invoice_date, due_date, written_off, payment_date, amount FROM payment_issue_totals WHERE amount <> 0 ORDER BY 1, 2, 3, 4, 5`,
    `SELECT i.company_id, i.invoice_date, i.due_date, ${WRITTEN_OFF.replace(/closing_reason|closed_date/g, (c) => `i.${c}`)}, p.payment_date, sum(p.amount)
     FROM invoices i JOIN payments p ON p.invoice_id = i.id WHERE p.status IN ('PAID','PARTIAL') GROUP BY 1, 2, 3, 4, 5 HAVING sum(p.amount) <> 0 ORDER BY 1, 2, 3, 4, 5`,
  ],
  team_book_dues: [
    `SELECT company_id, due_date, owner_id, day, receivable FROM team_book_dues WHERE receivable <> 0 ORDER BY 1, 2, 3, 4`,
    `SELECT company_id, due_date, owner, day, sum(amount) FROM (${TEAM_RECEIVABLES}) GROUP BY 1, 2, 3, 4 HAVING sum(amount) <> 0 ORDER BY 1, 2, 3, 4`,
  ],
  team_book_days: [
    `SELECT company_id, owner_id, day, sales, collected, receivable FROM team_book_days WHERE sales <> 0 OR collected <> 0 OR receivable <> 0 ORDER BY 1, 2, 3`,
    `SELECT company_id, owner, day, sum(sales), sum(collected), sum(receivable) FROM (
       SELECT i.company_id, coalesce(c.ar_owner_id, '') AS owner, i.invoice_date AS day, i.total_amount AS sales, 0 AS collected, 0 AS receivable FROM invoices i JOIN customers c ON c.id = i.customer_id
       UNION ALL SELECT i.company_id, coalesce(c.ar_owner_id, ''), p.payment_date, 0, p.amount, 0
         FROM payments p JOIN invoices i ON i.id = p.invoice_id JOIN customers c ON c.id = i.customer_id WHERE p.status IN ('PAID','PARTIAL')
       UNION ALL SELECT company_id, owner, day, 0, 0, amount FROM (${TEAM_RECEIVABLES}))
     GROUP BY 1, 2, 3 HAVING sum(sales) <> 0 OR sum(collected) <> 0 OR sum(receivable) <> 0 ORDER BY 1, 2, 3`,
  ],
};

function expectAggregatesFromScratch(engine: TestEngine): void {
  const sqlite = engine.database.sqlite;
  expect(Object.keys(FROM_SCRATCH).sort()).toEqual(Object.keys(AGGREGATES).sort());
  for (const [table, [kept, computed]] of Object.entries(FROM_SCRATCH)) {
    const rows = sqlite.prepare(kept).raw().all();
    expect(rows.length, table).toBeGreaterThan(0);
    expect(rows, table).toEqual(sqlite.prepare(computed).raw().all());
  }
}

/** The download as it was before the bulk path: the same pages, one row per statement, every trigger firing. */
async function downloadRowByRow(engine: TestEngine, serverUrl: string): Promise<void> {
  const { link, companies } = await beginConnection(engine, { serverUrl, username: 'demo', password: 'demo', companies: [] });
  const sqlite = engine.database.sqlite;
  for (const company of companies) {
    const pages: Feed[] = [];
    for (let cursor: string | null = null, more = true; more; ) {
      const page: Feed = await callServer<Feed>(serverUrl, '/api/v1/sync/pull', link.token, { client_id: link.clientId, companies: [{ company_id: company.id, cursor }], pending_from: 0, limit: PAGE_ROWS });
      pages.push(page);
      cursor = page.companies[0].cursor;
      more = page.companies[0].more;
    }
    sqlite.transaction(() => {
      sqlite.pragma('defer_foreign_keys = ON');
      sqlite.prepare('UPDATE sync_state SET capture = 0 WHERE id = 1').run();
      forgetCompany(sqlite, company.id);
      for (const page of pages) {
        writeUsers(sqlite, page.users);
        for (const change of page.companies[0].changes) writeChanges(sqlite, [change]);
      }
      sqlite
        .prepare('INSERT INTO sync_companies (company_id, cursor, pulled_at) VALUES (?, ?, ?)')
        .run(company.id, pages.at(-1)!.companies[0].cursor, timestamp(engine.clock));
      sqlite.prepare('UPDATE sync_state SET capture = 1 WHERE id = 1').run();
    })();
  }
}

describe('the first download, written in bulk', () => {
  let server: TestEngine;
  let runtime: Runtime;
  const engines: TestEngine[] = [];
  const fresh = async () => {
    const e = await testEngine();
    engines.push(e);
    return e;
  };

  beforeAll(async () => {
    server = await testEngine();
    await seedDatabase(server, { demo: true, invoices: 2_500, customers: 250, seed: 5 });
    setSyncRole(server.database.sqlite, 'server');
    runtime = await startRuntime(server, { port: 0, host: '127.0.0.1', jobPollMs: 3_600_000 });
  }, 120_000);

  afterAll(async () => {
    for (const e of engines) await e.dispose();
    await runtime?.stop();
    await server?.dispose();
  });

  it('sets aside exactly the triggers whose work the rows and the rebuild carry', async () => {
    const sqlite = server.database.sqlite;
    const skipped = skippableTriggers(sqlite).map((t) => t.name);
    // Every aggregate and full-text trigger, the ones copying what the server's rows carry, none of the server's own.
    for (const name of ['invoices_totals_insert', 'invoices_fts_update', 'customers_name_update', 'payments_issue_totals_update', 'invoices_payment_issue_totals_update', 'communications_last_touch']) {
      expect(skipped).toContain(name);
    }
    expect(skipped.filter((n) => n.startsWith('sync_v_'))).toEqual([]);
    expect(tablesWrittenBy(`CREATE TRIGGER t AFTER UPDATE OF a ON x BEGIN INSERT INTO y (a) VALUES (1) ON CONFLICT (a) DO UPDATE SET a = 2; UPDATE OR IGNORE "z" SET a = 1; DELETE FROM w; END`)).toEqual(['y', 'z', 'w']);
  });

  it('gives exactly the rows, aggregates, full-text indexes and schema of writing row by row', async () => {
    const bulk = await fresh();
    const rowByRow = await fresh();
    const downloaded = await connect(bulk, { serverUrl: runtime.url, username: 'demo', password: 'demo', companies: [] });
    await downloadRowByRow(rowByRow, runtime.url);

    expect(downloaded.companies.length).toBe(2);
    const left = dump(rowByRow);
    const right = dump(bulk);
    expect(left.invoices.length).toBeGreaterThanOrEqual(2_500);
    for (const table of [...Object.keys(AGGREGATES), 'invoices', 'payments', 'insights', 'actions', 'customers']) expect(left[table].length, table).toBeGreaterThan(0);
    expect(Object.keys(right)).toEqual(Object.keys(left));
    for (const table of Object.keys(left)) expect(right[table], table).toEqual(left[table]);
    expect(schema(bulk)).toEqual(schema(rowByRow));
    expect(fullText(bulk)).toEqual(fullText(rowByRow));
    expectAggregatesFromScratch(bulk);
    expect(bulk.database.sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(bulk.database.sqlite.pragma('foreign_key_check')).toEqual([]);
  }, 120_000);

  it('replaces a copy already here on a full resync, full-text indexes included, and its triggers work after', async () => {
    const desktop = await fresh();
    await connect(desktop, { serverUrl: runtime.url, username: 'demo', password: 'demo', companies: [] });
    // The server moves on: a renamed customer renames its invoices (a trigger there), a payment is voided.
    const sqlite = server.database.sqlite;
    const customer = sqlite.prepare(`SELECT id, company_id FROM customers WHERE id IN (SELECT customer_id FROM invoices) ORDER BY id LIMIT 1`).get() as { id: string; company_id: string };
    sqlite.prepare(`UPDATE customers SET name = 'Zyzzyva Renamed Ltd' WHERE id = ?`).run(customer.id);
    sqlite.prepare(`UPDATE payments SET status = 'VOIDED' WHERE id = (SELECT id FROM payments WHERE status = 'PAID' ORDER BY id LIMIT 1)`).run();

    await resync(desktop);
    const reference = await fresh();
    await downloadRowByRow(reference, runtime.url);
    const left = dump(reference, false);
    const right = dump(desktop, false);
    for (const table of Object.keys(left)) if (table !== 'sync_companies') expect(right[table], table).toEqual(left[table]);
    expect(fullText(desktop)).toEqual(fullText(reference));
    expectAggregatesFromScratch(desktop);
    const renamed = desktop.database.sqlite.prepare(`SELECT count(*) FROM invoice_number_fts f JOIN invoices i ON i.seq = f.rowid WHERE i.customer_name = 'Zyzzyva Renamed Ltd'`).pluck().get();
    expect(renamed).toBeGreaterThan(0);
    expect(desktop.database.sqlite.prepare(`SELECT rowid FROM customer_name_fts WHERE customer_name_fts MATCH '"Zyzzyva"'`).all()).toHaveLength(1);

    // The triggers are back: a local insert moves the aggregates and the full-text index.
    const local = desktop.database.sqlite;
    local
      .prepare(
        `INSERT INTO invoices (id, company_id, customer_id, customer_name, invoice_number, invoice_date, due_date, currency, total_amount, paid_amount, balance, created_at, updated_at)
         VALUES ('0190aaaa-0000-7000-8000-000000000001', ?, ?, 'Zyzzyva Renamed Ltd', 'INV-LATER', '2029-12-01', '2030-01-01', 'USD', 5000, 0, 5000, '2026-11-23T12:00:00.000Z', '2026-11-23T12:00:00.000Z')`,
      )
      .run(customer.company_id, customer.id);
    expect(local.prepare(`SELECT invoice_count FROM invoice_due_totals WHERE company_id = ? AND due_date = '2030-01-01' AND state = 'open'`).pluck().get(customer.company_id)).toBe(1);
    expect(local.prepare(`SELECT count(*) FROM invoice_number_fts WHERE invoice_number_fts MATCH '"LATER"'`).pluck().get()).toBe(1);
    expectAggregatesFromScratch(desktop);
  }, 120_000);
});

describe('a kept-alive connection the server closed', () => {
  const failed = (code: string) => new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) });

  it('is sent again when it was reset, closed, or closed while the body was written (EPIPE), and nothing else is', () => {
    for (const code of ['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']) expect(isStaleConnection(failed(code))).toBe(true);
    for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'UND_ERR_CONNECT_TIMEOUT']) expect(isStaleConnection(failed(code))).toBe(false);
    expect(isStaleConnection(new Error('EPIPE'))).toBe(false);
  });
});
