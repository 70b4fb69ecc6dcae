/**
 * `ardesk bank import` killed with SIGKILL in the middle of matching and applying: every credit
 * is applied whole or not at all (its payments, the invoices' balances, its application rows and
 * its state agree), and the same command run again finishes the job without a duplicate entry or
 * a second payment.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { camt053 } from '../../core/bench/camt';
import { addCompany } from '../support/api';
import { BIN, PACKAGE_DIR } from '../support/cli';
import { type TestEngine, testEngine } from '../support/engine';
import { fixture, insertCustomerRow, insertInvoiceRow } from '../support/rows';

const CREDITS = 3000;

function ardesk(args: string[]) {
  return spawn(process.execPath, [BIN, ...args], { cwd: PACKAGE_DIR, stdio: ['ignore', 'pipe', 'pipe'] });
}

describe('a bank import killed mid-way', () => {
  let engine: TestEngine | undefined;
  afterAll(() => engine?.dispose());

  it('leaves nothing half-applied, and the import run again completes it', async () => {
    engine = await testEngine('2026-11-23T12:00:00.000Z');
    const company = await addCompany(engine, 'Acme Supply');
    const numbers: Array<{ number: string; cents: number }> = [];
    await fixture(engine, company, async (tx) => {
      for (let c = 0; c < 100; c++) {
        const customer = await insertCustomerRow(tx, company, { name: `Customer ${c}` });
        for (let k = 0; k < CREDITS / 100; k++) {
          const n = numbers.length;
          const cents = 10_000 + n * 7;
          await insertInvoiceRow(tx, company, customer, { invoice_number: `INV-${20000 + n}`, invoice_date: '2026-10-01', due_date: '2026-10-31', total_amount: cents });
          numbers.push({ number: `INV-${20000 + n}`, cents });
        }
      }
    });
    const file = join(engine.dir, 'ardesk.sqlite');
    await engine.close();
    const statement = join(engine.dir, 'statement.xml');
    writeFileSync(
      statement,
      camt053({
        id: 'CRASH',
        iban: 'DE89370400440532013000',
        currency: 'USD',
        from: '2026-11-01',
        to: '2026-11-20',
        opening_cents: 0,
        entries: numbers.map((i, n) => ({ booked_on: '2026-11-20', amount_cents: i.cents, direction: 'credit' as const, reference: `K${n}`, text: `Payment ${i.number}` })),
      }),
    );
    const args = ['bank', 'import', '--db', file, '--company', 'Acme Supply', '--file', statement, '--json'];

    // Killed once some credits are applied and others still wait.
    const reader = new Database(file, { readonly: true, fileMustExist: true });
    const counts = reader.prepare(`SELECT sum(state = 'applied') AS applied, sum(state = 'pending') AS pending FROM bank_transactions`);
    const first = ardesk(args);
    let seen = { applied: 0, pending: 0 };
    for (let waited = 0; waited < 120_000; waited += 2) {
      seen = counts.get() as typeof seen;
      if ((seen.applied ?? 0) > 0 && (seen.pending ?? 0) > 0) break;
      if (first.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 2));
    }
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    expect(seen.applied, 'the import was killed while it applied').toBeGreaterThan(0);
    const after = counts.get() as { applied: number; pending: number };
    expect(after.pending, 'credits left waiting').toBeGreaterThan(0);

    const consistent = () => {
      // Every bank payment belongs to an applied credit's live application, and the other way round.
      const orphans = reader
        .prepare(
          `SELECT count(*) FROM payments p WHERE p.notes = 'Applied from a bank statement'
             AND NOT EXISTS (SELECT 1 FROM bank_applications a JOIN bank_transactions t ON t.id = a.transaction_id WHERE a.payment_id = p.id AND t.state = 'applied' AND a.reversed_at IS NULL)`,
        )
        .pluck()
        .get();
      const missing = reader.prepare(`SELECT count(*) FROM bank_transactions t WHERE t.state = 'applied' AND NOT EXISTS (SELECT 1 FROM bank_applications a WHERE a.transaction_id = t.id AND a.payment_id IS NOT NULL)`).pluck().get();
      const stale = reader
        .prepare(`SELECT count(*) FROM invoices i WHERE i.balance != i.total_amount - coalesce((SELECT sum(amount) FROM payments p WHERE p.invoice_id = i.id AND p.status IN ('PAID','PARTIAL')), 0)`)
        .pluck()
        .get();
      const twice = reader.prepare(`SELECT count(*) FROM (SELECT invoice_id FROM payments GROUP BY invoice_id HAVING count(*) > 1)`).pluck().get();
      return { orphans, missing, stale, twice };
    };
    expect(consistent()).toEqual({ orphans: 0, missing: 0, stale: 0, twice: 0 });

    const again = ardesk(args);
    let out = '';
    again.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise((r) => again.once('exit', r));
    expect(code).toBe(0);
    const summary = JSON.parse(out) as { entries: number; duplicates: number };
    expect(summary).toMatchObject({ entries: CREDITS, duplicates: CREDITS });
    expect(counts.get()).toEqual({ applied: CREDITS, pending: 0 });
    expect(reader.prepare(`SELECT count(*) FROM bank_transactions`).pluck().get()).toBe(CREDITS);
    expect(reader.prepare(`SELECT count(*) FROM invoices WHERE closing_reason = 'paid'`).pluck().get()).toBe(CREDITS);
    expect(consistent()).toEqual({ orphans: 0, missing: 0, stale: 0, twice: 0 });
    reader.close();
  }, 180_000);
});
