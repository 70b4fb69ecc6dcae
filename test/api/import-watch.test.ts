/**
 * The nightly re-import (issue 40, item 3) through the API and the job worker, with a real file in
 * a folder and a clock moved a day at a time: the run imports, a second night of the same file
 * changes nothing, a changed file brings its changes, a broken file fails in words (the data stays
 * as it was) and the watch shows it until a run succeeds.
 */
import { appendFileSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { queueWatchedImports } from '../../core/import/watch';
import { createWorker, type Worker } from '../../core/jobs/worker';
import { BULK_LANE, coreJobHandlers } from '../../core/runtime/job-handlers';
import { call, useApiWorkspace } from '../support/api';

const w = useApiWorkspace([['colin', 'collector']]);
const FIXTURE = resolve(__dirname, '../fixtures/import-presets/qbo-invoice-list.csv');

describe('the nightly re-import of a watched file', () => {
  let worker: Worker;
  let folder: string;
  beforeEach(() => {
    w.engine.clock.set('2026-11-28T01:00:00.000Z');
    worker = createWorker(w.engine, { handlers: coreJobHandlers(), lane: BULK_LANE, retryBaseMs: 60_000 });
    folder = join(w.engine.dir, `erp-${w.company}`);
    mkdirSync(folder, { recursive: true });
  });

  const put = (body: unknown, user = 'demo') => call(w.app, 'PUT', `${w.base}/import-watch`, { token: w.tokens[user], body });
  const runs = async () => (await call(w.app, 'GET', `${w.base}/import-watch/runs`, { token: w.tokens.watcher })).body.data;
  const sqlite = () => w.engine.database.sqlite;
  const invoiceCount = () => (sqlite().prepare('SELECT count(*) AS n FROM invoices WHERE company_id = ?').get(w.company) as { n: number }).n;
  const changeCount = () => (sqlite().prepare("SELECT count(*) AS n FROM changes WHERE company_id = ? AND command = 'import'").get(w.company) as { n: number }).n;
  /** The scheduler's tick and the bulk worker's pass, as the running server does them. */
  const night = async (iso: string) => {
    w.engine.clock.set(iso);
    await queueWatchedImports(w.engine);
    return worker.runDueJobs();
  };

  it('imports the folder\'s newest export each night; the same file again changes nothing; a changed one brings its changes', async () => {
    const file = join(folder, 'invoice-list.csv');
    copyFileSync(FIXTURE, file);
    const set = await put({ path: folder });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ path: folder, preset: null, mapping: null, enabled: true, hour: 3, last_run: null });
    // Before 03:00 (the company has no time zone: UTC) the night's run is not queued yet.
    w.engine.clock.set('2026-11-28T02:30:00.000Z');
    expect(await queueWatchedImports(w.engine)).toBe(0);

    expect((await night('2026-11-28T04:00:00.000Z')).map((r) => r.status)).toEqual(['succeeded']);
    const [first] = await runs();
    expect(first).toMatchObject({ file, status: 'imported', preset: 'qbo-invoice-list', message: null, counts: { invoices: { created: 4 } } });
    expect(first.notes).toContain('Recognised as QuickBooks Online: Invoice List (preset qbo-invoice-list)');
    expect(invoiceCount()).toBe(4);
    // Queuing twice in a night adds nothing.
    await queueWatchedImports(w.engine);
    expect(await worker.runDueJobs()).toEqual([]);

    const changes = changeCount();
    await night('2026-11-29T04:00:00.000Z');
    expect((await runs())[0]).toMatchObject({ status: 'unchanged', file, counts: null });
    expect(changeCount()).toBe(changes);

    appendFileSync(file, '11/20/2026,1042,Cool Cars,12/20/2026,150.00,150.00,Open\r\n');
    await night('2026-11-30T04:00:00.000Z');
    expect((await runs())[0]).toMatchObject({ status: 'imported', counts: { invoices: { created: 1, unchanged: 4 }, payments: { created: 0 } } });
    expect(invoiceCount()).toBe(5);

    // "Run now" of the same file: read, nothing to write.
    const now = await call(w.app, 'POST', `${w.base}/import-watch/run`, { token: w.tokens.demo });
    expect(now.status).toBe(202);
    await worker.runDueJobs();
    expect((await runs()).map((r: { status: string }) => r.status)).toEqual(['unchanged', 'imported', 'unchanged', 'imported']);
  });

  it('a broken file fails in words, writes nothing, and the watch shows the failure until a run succeeds', async () => {
    const file = join(folder, 'open-items.csv');
    copyFileSync(FIXTURE, file);
    expect((await put({ path: file, preset: 'qbo-invoice-list' })).status).toBe(200);
    await night('2026-11-28T04:00:00.000Z');
    expect(invoiceCount()).toBe(4);

    writeFileSync(file, 'Date,Num,Customer,Due Date,Amount,Open Balance,Status\r\n2/30/2026,2001,Cool Cars,3/30/2026,10.00,10.00,Open\r\n');
    await night('2026-11-29T04:00:00.000Z');
    const [failed] = await runs();
    expect(failed).toMatchObject({ status: 'failed', file });
    expect(failed.message).toBe('1 row error: nothing was imported. Row 2, column Date: Invoice date: "2/30/2026" is not a date in the format M/D/YYYY');
    expect(invoiceCount()).toBe(4);
    const watch = (await call(w.app, 'GET', `${w.base}/import-watch`, { token: w.tokens.watcher })).body.watch;
    expect(watch.last_run).toMatchObject({ status: 'failed', message: failed.message });

    // The good file back: it is the one imported last, so the run succeeds without writing.
    copyFileSync(FIXTURE, file);
    await night('2026-11-30T04:00:00.000Z');
    expect((await runs())[0].status).toBe('unchanged');
    expect((await call(w.app, 'GET', `${w.base}/import-watch`, { token: w.tokens.watcher })).body.watch.last_run.status).toBe('unchanged');
  });

  it('a path with no file says so; the hour is the company\'s', async () => {
    sqlite().prepare("UPDATE companies SET time_zone = 'America/New_York' WHERE id = ?").run(w.company);
    expect((await put({ path: join(folder, 'not-there.csv'), hour: 1 })).status).toBe(200);
    // 05:30 UTC is 00:30 in New York, before the hour; 06:00 UTC is 01:00 there.
    expect(await night('2026-11-28T05:30:00.000Z')).toEqual([]);
    await night('2026-11-28T06:00:00.000Z');
    expect((await runs())[0]).toMatchObject({ status: 'failed', message: `There is no file or folder at ${join(folder, 'not-there.csv')}` });
  });

  it('only an owner sets, runs or removes it; bad settings are a 400 in words that changes nothing', async () => {
    const byCollector = await put({ path: folder }, 'colin');
    expect(byCollector.status).toBe(403);
    expect(byCollector.body.code).toBe('owner_only');
    const relative = await put({ path: 'exports/open.csv' });
    expect(relative.status).toBe(400);
    expect(relative.body.errors.path[0]).toMatch(/full path/);
    const both = await put({ path: folder, preset: 'sap-fbl5n', mapping: { entity: 'invoices' } });
    expect(both.status).toBe(400);
    const unknown = await put({ path: folder, preset: 'sage-200' });
    expect(unknown.status).toBe(400);
    expect((await put({ path: folder, hour: 24 })).status).toBe(400);
    expect((await call(w.app, 'GET', `${w.base}/import-watch`, { token: w.tokens.demo })).body).toEqual({ watch: null });
    expect((await call(w.app, 'POST', `${w.base}/import-watch/run`, { token: w.tokens.demo })).status).toBe(404);

    expect((await put({ path: folder })).status).toBe(200);
    expect((await call(w.app, 'POST', `${w.base}/import-watch/run`, { token: w.tokens.colin })).status).toBe(403);
    expect((await call(w.app, 'DELETE', `${w.base}/import-watch`, { token: w.tokens.watcher })).status).toBe(403);
    expect((await call(w.app, 'DELETE', `${w.base}/import-watch`, { token: w.tokens.demo })).status).toBe(204);
    expect((await call(w.app, 'GET', `${w.base}/import-watch`, { token: w.tokens.demo })).body).toEqual({ watch: null });
    // Another company's owner sees nothing of it.
    expect((await call(w.app, 'GET', `${w.base}/import-watch/runs`, { token: w.tokens.rival })).status).toBe(403);
  });
});
