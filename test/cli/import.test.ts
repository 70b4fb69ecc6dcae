import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertCompany } from '../../core/companies/companies';
import { runCommand, systemActor } from '../../core/engine';
import { openEngine } from '../../core/runtime/engine';
import { afterDatabaseLine, BIN } from '../support/cli';
import { csv, IBM_AR_CSV } from '../support/import-fixtures';


/** Runs the real `ardesk` binary (Node 24 under npm: process.execPath) and collects its output. */
function ardesk(...args: string[]) {
  const run = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: run.status, stdout: run.stdout, stderr: afterDatabaseLine(run.stderr) };
}

describe('ardesk import', () => {
  let dir: string;
  let db: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ardesk-cli-import-'));
    db = join(dir, 'ardesk.sqlite');
    const engine = await openEngine({ file: db });
    await runCommand(engine, 'test_company', { actor: systemActor, companyId: null }, (tx) => insertCompany(tx, 'Acme'));
    await engine.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('imports and re-imports the IBM sample with the ibm-ar preset', () => {
    const real = ardesk('import', '--db', db, '--company', 'Acme', '--file', IBM_AR_CSV, '--preset', 'ibm-ar');
    expect(real.stderr).toBe('');
    expect(real.code).toBe(0);
    expect(real.stdout).toBe(
      [
        'Imported ibm-accounts-receivable.csv (ar-rows, 2466 rows)',
        'customers: 100 created, 0 updated, 0 unchanged',
        'invoices:  2466 created, 0 updated, 0 unchanged',
        'payments:  2466 created, 0 updated, 0 unchanged',
        'labels created: Disputed',
        '',
      ].join('\n'),
    );
    const again = ardesk('import', '--db', db, '--company', 'Acme', '--file', IBM_AR_CSV, '--preset', 'ibm-ar', '--json');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).counts).toEqual({
      customers: { created: 0, updated: 0, unchanged: 100 },
      invoices: { created: 0, updated: 0, unchanged: 2466 },
      payments: { created: 0, updated: 0, unchanged: 2466 },
    });
  });

  it('prints every row error and exits 1 when a row is bad, writing nothing', () => {
    const mapping = join(dir, 'customers.json');
    writeFileSync(mapping, JSON.stringify({ entity: 'customers', customers: { remote_id: 'ID', name: 'Name', payment_terms_days: 'Terms' } }));
    const file = join(dir, 'customers.csv');
    writeFileSync(file, csv([['ID', 'Name', 'Terms'], ['N-1', 'New Co', '30'], ['N-2', 'Other Co', 'soon'], ['N-3', '', '400'], ['N-4', '', '10']]));
    const run = ardesk('import', '--db', db, '--company', 'Acme', '--file', file, '--mapping', mapping);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe(
      [
        'Import of customers.csv (customers, 4 rows) refused: nothing was written',
        'customers: 0 created, 0 updated, 0 unchanged',
        'invoices:  0 created, 0 updated, 0 unchanged',
        'payments:  0 created, 0 updated, 0 unchanged',
        '3 row errors:',
        '  row 3, column Terms: Payment terms (days): "soon" is not a whole number from 0 to 365',
        '  row 4, column Terms: Payment terms (days): "400" is not a whole number from 0 to 365',
        '  row 5, column Name: Customer name: is required for a new customer',
        '',
      ].join('\n'),
    );
  });

  it('refuses bad usage and a bad mapping with exit code 2', () => {
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{ "customers": ');
    expect(ardesk('import', '--db', db, '--company', 'Acme', '--file', IBM_AR_CSV, '--mapping', broken)).toMatchObject({ code: 2, stderr: expect.stringMatching(/not valid JSON/) });
    expect(ardesk('import', '--db', db, '--company', 'Nobody', '--file', IBM_AR_CSV, '--preset', 'ibm-ar')).toMatchObject({ code: 2, stderr: expect.stringMatching(/no company Nobody/) });
    const unfit = join(dir, 'unfit.json');
    writeFileSync(unfit, JSON.stringify({ customers: { name: 'Company Name' } }));
    const run = ardesk('import', '--db', db, '--company', 'Acme', '--file', IBM_AR_CSV, '--mapping', unfit, '--entity', 'customers');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/The mapping does not fit the file: mapping\.customers\.name: The file has no column "Company Name"/);
  });
});
