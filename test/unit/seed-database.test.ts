import { afterEach, describe, expect, it } from 'vitest';
import { invoiceTotals } from '../../core/payments/balance';
import { seedDatabase } from '../../core/seed';
import { type LedgerJob, runLedgerJobInWorker } from '../../core/seed/ledger-job';
import { REPLACED_TRIGGERS } from '../../core/seed/replica';
import { type TestEngine, testEngine } from '../support/engine';

/** Every row of every ordinary table, ordered, without the columns that are random by design. */
function dump(engine: TestEngine, omit: Record<string, string[]> = {}): Record<string, unknown[]> {
  const sqlite = engine.database.sqlite;
  const tables = sqlite
    .prepare(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_%' AND name NOT LIKE '%_fts%' ORDER BY name`,
    )
    .all() as Array<{ name: string }>;
  const out: Record<string, unknown[]> = {};
  for (const { name } of tables) {
    const rows = sqlite.prepare(`SELECT * FROM "${name}"`).all() as Array<Record<string, unknown>>;
    const cleaned = rows.map((r) => {
      const copy = { ...r };
      for (const col of [...(omit[name] ?? []), ...(omit['*'] ?? [])]) delete copy[col];
      return JSON.stringify(copy);
    });
    out[name] = cleaned.sort();
  }
  return out;
}

const RANDOM_BY_DESIGN = { users: ['password_hash'], email_connections: ['smtp_password_enc'] };

function schema(engine: TestEngine) {
  return engine.database.sqlite.prepare(`SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`).all();
}

describe('seeding is deterministic', () => {
  const engines: TestEngine[] = [];
  afterEach(async () => {
    for (const e of engines.splice(0)) await e.dispose();
  });
  const fresh = async (now: string) => {
    const e = await testEngine(now);
    engines.push(e);
    return e;
  };

  it('gives the same rows, ids included, for the same seed and date, whatever the time of day', async () => {
    const a = await fresh('2026-11-23T08:00:00.000Z');
    const b = await fresh('2026-11-23T21:45:00.000Z');
    await seedDatabase(a, { demo: true, seed: 7 });
    await seedDatabase(b, { demo: true, seed: 7 });
    const omit = { ...RANDOM_BY_DESIGN, changes: ['created_at'] };
    const left = dump(a, omit);
    const right = dump(b, omit);
    expect(left.invoices.length).toBeGreaterThanOrEqual(300);
    for (const table of Object.keys(left)) expect(right[table], table).toEqual(left[table]);
    // The random parts still work: the SMTP password decrypts in each workspace.
    for (const e of [a, b]) {
      const row = e.database.sqlite.prepare(`SELECT smtp_password_enc AS enc FROM email_connections WHERE is_default = 1 LIMIT 1`).get() as { enc: string };
      expect(e.secrets.decrypt(row.enc)).toBe('demo-smtp-password');
    }
  });

  it('gives other data for another seed, and moves with the date', async () => {
    const a = await fresh('2026-11-23T12:00:00.000Z');
    const b = await fresh('2026-11-23T12:00:00.000Z');
    const c = await fresh('2027-02-10T12:00:00.000Z');
    await seedDatabase(a, { demo: false, seed: 1, invoices: 200, customers: 30 });
    await seedDatabase(b, { demo: false, seed: 2, invoices: 200, customers: 30 });
    await seedDatabase(c, { demo: false, seed: 1, invoices: 200, customers: 30 });
    const q = `SELECT id, customer_name, total_amount, invoice_date FROM invoices ORDER BY seq`;
    const [ra, rb, rc] = [a, b, c].map((e) => e.database.sqlite.prepare(q).all() as Array<{ id: string; total_amount: number; invoice_date: string }>);
    expect(rb.map((r) => r.total_amount)).not.toEqual(ra.map((r) => r.total_amount));
    expect(rb[0].id).not.toBe(ra[0].id);
    // Dates are relative to today, so a later date shifts every invoice date by the same days.
    expect(rc.map((r) => r.total_amount)).toEqual(ra.map((r) => r.total_amount));
    expect(rc.at(-1)!.invoice_date > ra.at(-1)!.invoice_date).toBe(true);
  });
});

describe('the bulk path', () => {
  const engines: TestEngine[] = [];
  afterEach(async () => {
    for (const e of engines.splice(0)) await e.dispose();
  });

  it('leaves exactly the rows, aggregates and schema of the normal insert path, generated in this thread or in a worker', async () => {
    const normal = await testEngine();
    const bulk = await testEngine();
    const worker = await testEngine();
    engines.push(normal, bulk, worker);
    await seedDatabase(normal, { demo: true, invoices: 6_000, customers: 700, seed: 3, bulk: false });
    await seedDatabase(bulk, { demo: true, invoices: 6_000, customers: 700, seed: 3, bulk: true });
    await seedDatabase(worker, { demo: true, invoices: 6_000, customers: 700, seed: 3, bulk: true, worker: true });
    const left = dump(normal, RANDOM_BY_DESIGN);
    for (const table of ['invoice_due_totals', 'customer_invoice_totals', 'customer_open_totals', 'payment_day_totals', 'customer_paid_lateness', 'invoice_issue_totals', 'payment_issue_totals', 'team_book_days', 'team_book_dues', 'invoices', 'payments', 'invoice_labels', 'communications']) {
      expect(left[table].length, table).toBeGreaterThan(0);
    }
    for (const other of [bulk, worker]) {
      const right = dump(other, RANDOM_BY_DESIGN);
      for (const table of Object.keys(left)) expect(right[table], table).toEqual(left[table]);
      expect(schema(other)).toEqual(schema(normal));
    }
    for (const e of [normal, bulk, worker]) {
      const rows = e.database.sqlite
        .prepare(`SELECT i.invoice_number FROM invoice_number_fts f JOIN invoices i ON i.seq = f.rowid WHERE invoice_number_fts MATCH '"INV-12345"'`)
        .all();
      expect(rows).toEqual([{ invoice_number: 'INV-12345' }]);
    }
  });

  it('keeps aggregates, full-text indexes and keys consistent at 20,000 invoices, with the exclusive settings undone', async () => {
    const engine = await testEngine();
    engines.push(engine);
    const sqlite = engine.database.sqlite;
    const report = await seedDatabase(engine, { demo: false, invoices: 20_000, customers: 2_000, seed: 9, exclusive: true });
    const companyId = report.companies[0].id;
    expect(report.companies[0].ledger).toMatchObject({ invoices: 20_000, customers: 2_000 });

    expect(sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(sqlite.pragma('synchronous', { simple: true })).toBe(2);
    expect(sqlite.pragma('foreign_key_check')).toEqual([]);
    expect(sqlite.pragma('integrity_check', { simple: true })).toBe('ok');

    const same = (stored: string, computed: string) => {
      const a = sqlite.prepare(stored).all();
      const b = sqlite.prepare(computed).all();
      expect(a.length).toBeGreaterThan(0);
      expect(a).toEqual(b);
    };
    same(
      `SELECT company_id, due_date, state, invoice_count, nonzero_count, total_amount, balance FROM invoice_due_totals ORDER BY 1, 2, 3`,
      `SELECT company_id, due_date, coalesce(closing_reason, 'open') AS state, count(*) AS invoice_count, sum(balance <> 0) AS nonzero_count,
              sum(total_amount) AS total_amount, sum(balance) AS balance
       FROM invoices GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    );
    same(
      `SELECT company_id, customer_id, customer_name, invoice_count, total_amount, balance, oldest_due_date, oldest_open_due_date FROM customer_invoice_totals ORDER BY 1, 2`,
      `SELECT company_id, customer_id, max(customer_name) AS customer_name, count(*) AS invoice_count, sum(total_amount) AS total_amount, sum(balance) AS balance,
              min(due_date) AS oldest_due_date, min(CASE WHEN closing_reason IS NULL AND balance > 0 THEN due_date END) AS oldest_open_due_date
       FROM invoices GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    same(
      `SELECT company_id, payment_date, status, payment_method, payment_count, amount FROM payment_day_totals ORDER BY 1, 2, 3, 4`,
      `SELECT company_id, payment_date, status, payment_method, count(*) AS payment_count, sum(amount) AS amount FROM payments GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
    );

    // The full-text indexes match their content tables and find a known invoice and customer.
    sqlite.exec(`INSERT INTO invoice_number_fts (invoice_number_fts, rank) VALUES ('integrity-check', 1)`);
    sqlite.exec(`INSERT INTO customer_name_fts (customer_name_fts, rank) VALUES ('integrity-check', 1)`);
    const known = sqlite.prepare(`SELECT seq, invoice_number, customer_id, customer_name FROM invoices WHERE invoice_number = 'INV-27182'`).get() as {
      seq: number;
      customer_name: string;
    };
    expect(sqlite.prepare(`SELECT rowid FROM invoice_number_fts WHERE invoice_number_fts MATCH '"INV-27182"'`).all()).toEqual([{ rowid: known.seq }]);
    const byName = sqlite.prepare(`SELECT c.name FROM customer_name_fts f JOIN customers c ON c.rowid = f.rowid WHERE customer_name_fts MATCH ?`).all(`"${known.customer_name}"`) as Array<{
      name: string;
    }>;
    expect(byName.map((r) => r.name)).toContain(known.customer_name);

    // Denormalised names and money state follow the same rules as the normal path.
    expect(sqlite.prepare(`SELECT count(*) AS n FROM invoices i JOIN customers c ON c.id = i.customer_id WHERE i.customer_name <> c.name`).get()).toEqual({ n: 0 });
    const invoices = sqlite.prepare(`SELECT id, total_amount, paid_amount, balance, closing_reason, closed_date FROM invoices WHERE company_id = ?`).all(companyId) as Array<{
      id: string;
      total_amount: number;
      paid_amount: number;
      balance: number;
      closing_reason: 'paid' | 'overpaid' | 'credit_memo' | 'written_off' | null;
      closed_date: string | null;
    }>;
    const settled = new Map<string, Array<{ amount: number; payment_date: string }>>();
    for (const p of sqlite.prepare(`SELECT invoice_id, amount, payment_date FROM payments WHERE status IN ('PAID', 'PARTIAL')`).all() as Array<{ invoice_id: string; amount: number; payment_date: string }>) {
      if (!settled.has(p.invoice_id)) settled.set(p.invoice_id, []);
      settled.get(p.invoice_id)!.push(p);
    }
    const states = new Set<string>();
    for (const i of invoices) {
      const deliberate = i.closing_reason === 'credit_memo' || i.closing_reason === 'written_off' ? i.closing_reason : null;
      const expected = invoiceTotals(i.total_amount, deliberate, deliberate ? i.closed_date : null, settled.get(i.id) ?? []);
      expect({ paid_amount: i.paid_amount, balance: i.balance, closing_reason: i.closing_reason, closed_date: i.closed_date }).toEqual(expected);
      states.add(i.closing_reason ?? 'open');
    }
    expect([...states].sort()).toEqual(['credit_memo', 'open', 'overpaid', 'paid', 'written_off']);

    // The triggers are back: a later insert through the normal path updates the aggregates.
    const before = sqlite.prepare(`SELECT invoice_count FROM invoice_due_totals WHERE company_id = ? AND due_date = '2030-01-01' AND state = 'open'`).get(companyId);
    expect(before).toBeUndefined();
    const customer = sqlite.prepare(`SELECT id, name FROM customers WHERE company_id = ? LIMIT 1`).get(companyId) as { id: string; name: string };
    sqlite
      .prepare(
        `INSERT INTO invoices (id, company_id, customer_id, customer_name, invoice_number, invoice_date, due_date, currency, total_amount, paid_amount, balance, created_at, updated_at)
         VALUES ('0190aaaa-0000-7000-8000-000000000001', ?, ?, ?, 'INV-LATER', '2029-12-01', '2030-01-01', 'USD', 5000, 0, 5000, '2026-11-23T12:00:00.000Z', '2026-11-23T12:00:00.000Z')`,
      )
      .run(companyId, customer.id, customer.name);
    expect(sqlite.prepare(`SELECT invoice_count FROM invoice_due_totals WHERE company_id = ? AND due_date = '2030-01-01' AND state = 'open'`).get(companyId)).toEqual({ invoice_count: 1 });
    expect(sqlite.prepare(`SELECT count(*) AS n FROM invoice_number_fts WHERE invoice_number_fts MATCH '"LATER"'`).get()).toEqual({ n: 1 });
    const triggers = sqlite.prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger'`).all().map((r) => (r as { name: string }).name);
    for (const t of REPLACED_TRIGGERS) expect(triggers).toContain(t);
  });

  it('passes a failure of the generator thread on to the writer instead of waiting for it', () => {
    // 5,000 days of history fall outside the seed calendar: the generator throws in the worker.
    const job: LedgerJob = {
      companyId: '0188e066-9800-7002-884f-9fb58a21568b',
      companySlug: 'failing',
      invoices: 50_000,
      customers: 5_000,
      curated: [],
      arOwners: [],
      salesOwners: [],
      labels: { disputed: 'a', promise: 'b', escalated: 'c', vip: 'd', plan: 'e' },
      seed: 1,
      stream: 1,
      ids: { seed: 1, baseMs: Date.UTC(2024, 0, 1), start: 0 },
      today: '2026-11-23',
      firstInvoiceNumber: 10_001,
      spanDays: 5_000,
      replica: true,
    };
    expect(() => runLedgerJobInWorker(job, () => undefined)).toThrow(/ledger generator failed: RangeError: day -\d+ is outside the seed calendar/);
  });

  it('records one seed entry per company instead of a change per row', async () => {
    const engine = await testEngine();
    engines.push(engine);
    const report = await seedDatabase(engine, { demo: false, invoices: 500, customers: 50 });
    const changes = engine.database.sqlite.prepare(`SELECT company_id, command, entity, entity_id, op, data FROM changes`).all() as Array<{ data: string }>;
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ company_id: report.companies[0].id, command: 'seed', entity: 'company', op: 'insert' });
    expect(JSON.parse(changes[0].data)).toMatchObject({ invoices: 500, customers: 50, seed: 1, demo: false });
  });

  it('refuses options out of range with field errors', async () => {
    const engine = await testEngine();
    engines.push(engine);
    await expect(seedDatabase(engine, { demo: false, invoices: -1, customers: 0, seed: 1.5 })).rejects.toMatchObject({
      status: 400,
      errors: { invoices: expect.any(Array), customers: expect.any(Array), seed: expect.any(Array) },
    });
    expect(engine.database.sqlite.prepare(`SELECT count(*) AS n FROM companies`).get()).toEqual({ n: 0 });
  });
});
