import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/sync-harness';

describe('the company\'s as-of date syncs between desktops through the team server', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness(['ann', 'bob']);
  }, 60_000);
  afterAll(() => h?.dispose());

  it('set on one desktop, it reaches the server and the other desktop; cleared, it is cleared everywhere', async () => {
    const ann = await h.desktop('ann');
    const bob = await h.desktop('bob');
    const path = `/api/companies/${h.companyId}/settings`;
    expect((await ann.call('PATCH', path, { as_of_date: '2013-09-30' })).status).toBe(200);
    await ann.sync();
    const onServer = h.server.database.sqlite.prepare('SELECT as_of_date FROM companies WHERE id = ?').get(h.companyId) as { as_of_date: string | null };
    expect(onServer.as_of_date).toBe('2013-09-30');
    await bob.sync();
    expect((await bob.call('GET', path)).body).toEqual({ as_of_date: '2013-09-30' });
    expect((await bob.call('PATCH', path, { as_of_date: null })).status).toBe(200);
    await bob.sync();
    await ann.sync();
    expect((await ann.call('GET', path)).body).toEqual({ as_of_date: null });
  }, 60_000);
});
