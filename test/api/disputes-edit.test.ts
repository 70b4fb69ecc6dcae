/**
 * Editing a dispute (PATCH): its reason, owner and, once resolved, its resolution. The edit is one
 * command with a change record and a note on the invoice's activity; a paused chase names the new
 * reason; bad input, a viewer and another company change nothing.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { disputeChanges } from '../../core/disputes/disputes';
import { fixture } from '../support/rows';
import { activeSequence, addCustomer, addInvoice, addTeamMember, type SequenceWorld, sequenceWorld } from '../support/sequence-fixtures';

describe('editing a dispute', () => {
  let w: SequenceWorld;
  beforeAll(async () => {
    w = await sequenceWorld();
  });
  beforeEach(() => w.fresh());
  afterAll(() => w.dispose());

  const activity = async (invoice: string) => ((await w.api('GET', w.path(`/invoices/${invoice}/activity`))).body.data as Array<{ title: string; detail: string | null }>).map((e) => `${e.title}: ${e.detail}`);
  const edits = async (id: string) =>
    (await w.engine.db.selectFrom('changes').select(['command', 'op', 'data']).where('entity', '=', 'dispute').where('entity_id', '=', id).where('command', '=', 'edit_dispute').execute()).map((c) => ({ ...c, data: JSON.parse(c.data) }));
  const snapshot = async () => ({
    disputes: await w.engine.db.selectFrom('disputes').selectAll().orderBy('id').execute(),
    communications: (await w.engine.db.selectFrom('communications').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n,
    changes: (await w.engine.db.selectFrom('changes').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n,
  });

  /** Tri-County, enrolled in a sequence, with an open dispute on INV-10231 owned by Dana Reyes. */
  async function disputed() {
    const seq = await activeSequence(w, 'Dunning', [{ label: 'Second notice', subject_template: 'Second notice', body_plain_template: 'Please pay.', offset_days: 0, offset_time: '06:00' }]);
    const customer = await addCustomer(w.engine, w.company, { name: 'Tri-County' });
    const invoice = await addInvoice(w.engine, w.company, customer, { number: 'INV-10231', total: 904_357, dueDate: '2026-10-15' });
    const enrolled = await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: customer, start_date: '2026-11-23' });
    const dana = await addTeamMember(w.engine, w.company, 'Dana Reyes');
    const opened = await w.api('POST', w.path('/disputes'), { invoice_id: invoice, reason: 'Price', owner_id: dana });
    expect(opened.status).toBe(201);
    return { customer, invoice, dana, enrollment: enrolled.body.enrollment.id as string, dispute: opened.body.id as string };
  }

  it('edits the reason and owner of an open dispute: the pause names the new reason, the activity says what changed, a change is recorded', async () => {
    const t = await disputed();
    const sam = await addTeamMember(w.engine, w.company, 'Sam Ortiz');
    w.engine.clock.set('2026-11-23T13:00:00.000Z');
    const res = await w.api('PATCH', w.path(`/disputes/${t.dispute}`), { reason: '  Price does not match PO 4471  ', owner_id: sam.toUpperCase() }, w.tokens.bob);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: t.dispute, status: 'open', reason: 'Price does not match PO 4471', owner: sam, owner_name: 'Sam Ortiz', updated_at: '2026-11-23T13:00:00.000Z' });
    expect((await w.api('GET', w.path(`/disputes/${t.dispute}`))).body).toMatchObject({ reason: 'Price does not match PO 4471', owner_name: 'Sam Ortiz' });
    expect((await w.api('GET', w.path(`/sequence-enrollments/${t.enrollment}`))).body).toMatchObject({ pause_kind: 'dispute', pause_reason: 'Paused: INV-10231 is disputed (Price does not match PO 4471)' });
    expect(await activity(t.invoice)).toContain('Dispute edited: Reason: Price does not match PO 4471 (was: Price)\nOwner: Sam Ortiz (was: Dana Reyes)');
    expect(await edits(t.dispute)).toEqual([{ command: 'edit_dispute', op: 'update', data: { reason: 'Price does not match PO 4471', owner_id: sam, resolution: null, updated_at: '2026-11-23T13:00:00.000Z' } }]);

    // Nobody owns it now; the same values again change nothing and log nothing.
    expect((await w.api('PATCH', w.path(`/disputes/${t.dispute}`), { owner_id: null })).body).toMatchObject({ owner: null, owner_name: null });
    const before = await snapshot();
    for (const body of [{}, { reason: 'Price does not match PO 4471' }, { owner_id: null }]) {
      const same = await w.api('PATCH', w.path(`/disputes/${t.dispute}`), body);
      expect(same.status).toBe(200);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('edits the resolution of a resolved dispute, and refuses a resolution on an open one', async () => {
    const t = await disputed();
    const before = await snapshot();
    const early = await w.api('PATCH', w.path(`/disputes/${t.dispute}`), { reason: 'Freight', resolution: 'Credit issued' });
    expect(early.status).toBe(400);
    expect(early.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(early.body.errors).toEqual({ resolution: ['An open dispute has no resolution yet: resolve it to say how'] });
    expect(await snapshot()).toEqual(before);

    await w.api('POST', w.path(`/disputes/${t.dispute}/resolve`), { resolution: 'Credit memo issued' });
    const res = await w.api('PATCH', w.path(`/disputes/${t.dispute}`), { resolution: 'Credit memo CM-88 for $412.00 issued' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'resolved', resolution: 'Credit memo CM-88 for $412.00 issued', resolved_by: 'alice' });
    expect(await activity(t.invoice)).toContain('Dispute edited: Resolution: Credit memo CM-88 for $412.00 issued (was: Credit memo issued)');
    // Editing a resolved dispute does not pause anything again.
    expect((await w.api('GET', w.path(`/sequence-enrollments/${t.enrollment}`))).body).toMatchObject({ pause_kind: null });
  });

  it('refuses bad input with problem+json and changes nothing; a viewer gets 403; another company does not find it', async () => {
    const t = await disputed();
    const foreignMember = await addTeamMember(w.engine, w.other, 'Not ours');
    const gone = await addTeamMember(w.engine, w.company, 'Lee Former');
    await fixture(w.engine, w.company, (tx) => tx.db.updateTable('team_members').set({ is_active: 0 }).where('id', '=', gone).execute());
    const before = await snapshot();
    const cases: Array<[unknown, Record<string, unknown>]> = [
      [{ reason: '   ' }, { errors: { reason: ['Say what the customer disputes'] } }],
      [{ owner_id: foreignMember }, { errors: { owner_id: ['No team member with this id in the company'] } }],
      [{ owner_id: gone }, { errors: { owner_id: ['Lee Former is no longer active'] } }],
      [{ owner_id: 'dana' }, {}],
      [{ reason: 'x'.repeat(501) }, {}],
      [{ reason: 42 }, {}],
      [{ reason: 'Price', status: 'resolved' }, {}],
      [{ reason: 'Nul\u0000byte' }, {}],
    ];
    for (const [body, shape] of cases) {
      const res = await w.api('PATCH', w.path(`/disputes/${t.dispute}`), body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(res.body).toMatchObject(shape);
    }
    const notJson = await w.api('PATCH', w.path(`/disputes/${t.dispute}`), '{"reason":');
    expect(notJson.status).toBe(400);

    const viewer = await w.api('PATCH', w.path(`/disputes/${t.dispute}`), { reason: 'Viewer edit' }, w.tokens.vic);
    expect(viewer.status).toBe(403);
    expect(viewer.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect((await w.api('PATCH', w.path(`/disputes/${t.dispute}`, w.other), { reason: 'Theirs' }, w.tokens.carol)).status).toBe(404);
    expect([403, 404]).toContain((await w.api('PATCH', w.path(`/disputes/${t.dispute}`), { reason: 'Outsider' }, w.tokens.carol)).status);
    expect((await w.api('PATCH', w.path('/disputes/0193a1b2-0000-7000-8000-000000000000'), { reason: 'Nobody' })).status).toBe(404);
    expect(await snapshot()).toEqual(before);
    expect((await w.api('GET', w.path(`/disputes/${t.dispute}`))).body).toMatchObject({ reason: 'Price', owner: t.dana });
  });
});

describe('disputeChanges', () => {
  const base = { reason: 'Price', owner_id: 'm1', owner_name: 'Dana Reyes', resolution: null };
  it('says each changed field with its former value, and nothing when nothing changed', () => {
    expect(disputeChanges(base, base)).toEqual([]);
    expect(disputeChanges(base, { ...base, owner_id: null, owner_name: null })).toEqual(['Owner: nobody (was: Dana Reyes)']);
    // Two members of the same name are still two owners.
    expect(disputeChanges(base, { ...base, owner_id: 'm2' })).toEqual(['Owner: Dana Reyes (was: Dana Reyes)']);
    expect(disputeChanges({ ...base, resolution: 'Credit' }, { ...base, reason: 'Freight', resolution: 'Credit memo' })).toEqual(['Reason: Freight (was: Price)', 'Resolution: Credit memo (was: Credit)']);
  });
});
