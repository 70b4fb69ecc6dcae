/**
 * A desktop connected to a team server keeps a replica of the team's companies: their background
 * work (aging snapshots, reply reading, intelligence refreshes, any queued job) is the team
 * server's, so the desktop's schedules queue nothing for them, while the desktop's own companies
 * keep theirs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueDueSnapshots } from '../../core/analytics/snapshot-job';
import { systemActor } from '../../core/engine';
import { createConnection } from '../../core/email/connections';
import { queueDailyRefreshes, watchChanges } from '../../core/intelligence/jobs';
import { claimNextJob } from '../../core/jobs/queue';
import { queueScheduledReplyReads } from '../../core/replies/sync';
import { addCompany } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { ledger } from '../support/ledger-fixtures';

describe('schedules on a desktop that replicates a team company', () => {
  let engine: TestEngine;
  let own: string;
  let team: string;

  beforeAll(async () => {
    engine = await testEngine('2026-03-10T08:00:00.000Z');
    own = await addCompany(engine, 'Own Books');
    team = await addCompany(engine, 'Team Books');
    for (const companyId of [own, team]) {
      const customer = await ledger(engine, companyId).customer({ name: 'Globex' });
      await ledger(engine, companyId).invoice({ customer, number: 'INV-1', total: 500, invoiceDate: '2026-02-01', dueDate: '2026-03-03' });
      await createConnection(engine, { actor: systemActor, companyId, role: 'owner' }, {
        name: 'AR',
        from_email: 'ar@example.test',
        smtp_host: '127.0.0.1',
        smtp_port: 2525,
        imap_host: '127.0.0.1',
        imap_port: 1143,
        imap_secure: false,
        imap_username: 'ar',
        imap_password: 'secret',
      });
    }
    // What `ardesk connect` leaves behind for each company it downloads.
    await engine.db.insertInto('sync_companies').values({ company_id: team, cursor: null, pulled_at: null }).execute();
  });
  afterAll(() => engine.dispose());

  const jobsOf = async (companyId: string) => (await engine.db.selectFrom('jobs').select('kind').where('company_id', '=', companyId).orderBy('kind').execute()).map((j) => j.kind);

  it('queues snapshots, reply readings and refreshes for its own company only', async () => {
    expect(await queueDueSnapshots(engine)).toBe(1);
    expect(await queueScheduledReplyReads(engine)).toBe(1);
    expect(await queueDailyRefreshes(engine)).toEqual([own]);
    expect(await watchChanges(engine)).not.toContain(team);
    expect(await jobsOf(team)).toEqual([]);
    expect((await jobsOf(own)).length).toBeGreaterThanOrEqual(3);
  });

  it('never claims a job of the replicated company, even one already queued', async () => {
    await engine.db.updateTable('jobs').set({ company_id: team }).where('company_id', '=', own).execute();
    expect(await claimNextJob(engine)).toBeNull();
    await engine.db.deleteFrom('sync_companies').execute();
    expect((await claimNextJob(engine))?.company_id).toBe(team);
  });
});
