/**
 * The portal on a team server reaches the desktops: a customer's promise sent through the server's
 * portal (real HTTP) is on a connected desktop after its next pull, holding the invoice there too;
 * a desktop makes no links of a synced company (the server does) and does not serve the server's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../core/dates';
import { loginAs } from '../support/api';
import { addCustomer, addInvoice } from '../support/sequence-fixtures';
import { type Harness, startHarness } from '../support/sync-harness';

describe('portal submissions sync from the team server to the desktops', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness(['ann']);
  }, 60_000);
  afterAll(() => h?.dispose());

  it('a promise sent through the server’s portal holds the invoice on the desktop after its pull', async () => {
    const customer = await addCustomer(h.server, h.companyId, { name: 'Tri-County' });
    const invoice = await addInvoice(h.server, h.companyId, customer, { number: 'INV-10231', total: 904_357, dueDate: '2026-10-15' });
    const ann = await h.desktop('ann');
    await ann.sync();
    const linkPath = `/api/companies/${h.companyId}/customers/${customer}/portal-link`;
    expect((await ann.call('POST', linkPath)).body).toMatchObject({ code: 'team_server_only' });

    const token = await loginAs(h.serverApp, 'ann');
    const made = await fetch(`${h.url}${linkPath}`, { method: 'POST', headers: { authorization: `Token ${token}` } });
    const { url } = (await made.json()) as { url: string };
    expect(url.startsWith(`${h.url}/portal/`)).toBe(true);
    const form = await (await fetch(`${url}/answer?do=promise&invoice=${invoice}`)).text();
    const formToken = /name="form_token" value="([^"]+)"/.exec(form)?.[1] ?? '';
    const promised = addDays(h.server.clock.now().toISOString().slice(0, 10), 7);
    const sent = await fetch(`${url}/promise`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: h.url },
      body: new URLSearchParams({ form_token: formToken, invoice, date: promised }),
    });
    expect(sent.status).toBe(303);

    // Nothing on the desktop until it pulls; then the customer's words and the hold are there.
    const said = () => ann.engine.db.selectFrom('communications').select(['subject', 'promise_date']).where('invoice_id', '=', invoice).where('direction', '=', 'inbound').execute();
    expect(await said()).toEqual([]);
    await ann.sync();
    expect(await said()).toEqual([{ subject: expect.stringMatching(/^Wrote via the portal: I'll pay on /), promise_date: promised }]);
    expect((await ann.engine.db.selectFrom('portal_submissions').select('kind').where('customer_id', '=', customer).execute()).map((s) => s.kind)).toEqual(['promise']);
    const chase = await ann.call('GET', `/api/companies/${h.companyId}/customers/${customer}/chase`);
    expect(chase.body.holds).toEqual([expect.objectContaining({ kind: 'promise', invoice })]);

    // The desktop has the link's row, but its copy of the portal is not the one customers use.
    expect((await ann.app.request(new URL(url).pathname)).status).toBe(404);
  }, 60_000);
});
