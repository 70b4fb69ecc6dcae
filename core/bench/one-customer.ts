/**
 * The one-big-customer ledger of issue 37 (N1): one customer with many open invoices, in the
 * shape of IBM's accounts-receivable sample so that `ardesk import --preset ibm-ar` loads it as a
 * collector would. Some settled invoices first (the pay-date model's history), then `open` unpaid
 * ones, due over the last two years up to next month, most of them small (the statement proposal
 * that lists every one of them: the customer-level list the value at risk once re-scanned per
 * invoice).
 *
 *   tsx core/bench/one-customer.ts OUT.csv OPEN [SETTLED]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const DAY_MS = 86_400_000;

/** M/D/YYYY, the sample's date format. */
function usDate(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCMonth() + 1}/${d.getUTCDate()}/${d.getUTCFullYear()}`;
}

/** The CSV text: `settled` paid invoices and `open` unpaid ones of customer `customerId`, dated around `today` (YYYY-MM-DD). */
export function oneCustomerCsv(open: number, settled: number, today: string, customerId = 'BIG-0001', firstNumber = 1): string {
  const now = Date.parse(`${today}T00:00:00Z`);
  const lines = ['countryCode,customerID,PaperlessDate,invoiceNumber,InvoiceDate,DueDate,InvoiceAmount,Disputed,SettledDate,PaperlessBill,DaysToSettle,DaysLate'];
  // A fixed linear congruential sequence: the same file every time.
  let state = 37;
  const next = () => (state = (state * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  const row = (n: number, issued: number, amount: number, settledAt: number | null) => {
    const due = issued + 30 * DAY_MS;
    const late = settledAt === null ? 0 : Math.max(0, Math.round((settledAt - due) / DAY_MS));
    const toSettle = settledAt === null ? '' : String(Math.round((settledAt - issued) / DAY_MS));
    lines.push(
      ['391', customerId, '1/1/2015', String(n).padStart(10, '0'), usDate(issued), usDate(due), amount.toFixed(2), next() < 0.02 ? 'Yes' : 'No', settledAt === null ? '' : usDate(settledAt), 'Electronic', toSettle, settledAt === null ? '' : String(late)].join(','),
    );
  };
  for (let i = 0; i < settled; i++) {
    const issued = now - (800 + Math.floor(next() * 1_000)) * DAY_MS;
    row(firstNumber + i, issued, 20 + Math.floor(next() * 2_000), issued + (20 + Math.floor(next() * 40)) * DAY_MS);
  }
  for (let i = 0; i < open; i++) {
    const issued = now - Math.floor(next() * 760) * DAY_MS;
    // Mostly small (the statement's "small invoices"), a tenth larger.
    row(firstNumber + settled + i, issued, next() < 0.9 ? 20 + Math.floor(next() * 400) : 1_000 + Math.floor(next() * 20_000), null);
  }
  return `${lines.join('\n')}\n`;
}

const BIN = resolve(__dirname, '../cli/bin.cjs');

/** Rows per imported file: an import takes at most 1,000,000 cells, 12 to a row here. */
const ROWS_PER_FILE = 80_000;

function ardesk(args: string[]): void {
  const run = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`ardesk ${args[0]} failed: ${run.stderr || run.stdout}`);
}

export interface OneCustomerLedger {
  /** The company of the one big customer, and its owner's sign-in. */
  big: { company: string; username: string; password: string };
  /** Another company with a few customers, and its owner's sign-in: whose writes must not wait. */
  other: { company: string; username: string; password: string };
}

/** The companies and sign-ins of every ledger makeOneCustomerLedger makes. */
export const ONE_CUSTOMER_LEDGER: OneCustomerLedger = {
  big: { company: 'Big Customer Ltd', username: 'big-owner', password: 'big-owner-password' },
  other: { company: 'Other Company', username: 'other-owner', password: 'other-owner-password' },
};

/**
 * Makes the database `file` as a collector would with the real CLI: two companies with an owner
 * each (`ardesk user add --create-company`), then `ardesk import --preset ibm-ar` of the big
 * customer's `open` invoices (and `settled` paid ones) into the first, in files of at most
 * ROWS_PER_FILE rows, and of a few invoices of three customers into the other.
 */
export function makeOneCustomerLedger(file: string, open: number, settled: number, today: string): OneCustomerLedger {
  const ledger = ONE_CUSTOMER_LEDGER;
  for (const who of [ledger.big, ledger.other]) ardesk(['user', 'add', '--db', file, '--username', who.username, '--password', who.password, '--company', who.company, '--create-company']);
  const dir = mkdtempSync(join(tmpdir(), 'ardesk-one-customer-'));
  try {
    const [header, ...rows] = oneCustomerCsv(open, settled, today).trimEnd().split('\n');
    for (let i = 0; i < rows.length; i += ROWS_PER_FILE) {
      const part = join(dir, `part-${i / ROWS_PER_FILE + 1}.csv`);
      writeFileSync(part, `${[header, ...rows.slice(i, i + ROWS_PER_FILE)].join('\n')}\n`);
      ardesk(['import', '--db', file, '--company', ledger.big.company, '--file', part, '--preset', 'ibm-ar']);
    }
    const others = join(dir, 'other.csv');
    writeFileSync(others, ['OTHER-1', 'OTHER-2', 'OTHER-3'].map((id, k) => oneCustomerCsv(5, 10, today, id, 1 + 100 * k).trimEnd().split('\n').slice(k ? 1 : 0).join('\n')).join('\n') + '\n');
    ardesk(['import', '--db', file, '--company', ledger.other.company, '--file', others, '--preset', 'ibm-ar']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return ledger;
}

if (require.main === module) {
  const [out, open, settled] = process.argv.slice(2);
  if (!out || !open) {
    console.error('usage: tsx core/bench/one-customer.ts OUT.csv OPEN [SETTLED]');
    process.exit(2);
  }
  writeFileSync(out, oneCustomerCsv(Number(open), Number(settled ?? 1_000), new Date().toISOString().slice(0, 10)));
}
