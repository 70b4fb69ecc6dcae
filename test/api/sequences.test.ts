import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addConnection, addCustomer, activeSequence, closedPort, type SequenceWorld, sequenceWorld } from '../support/sequence-fixtures';

const MISSING = '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a';

describe('sequences', () => {
  let w: SequenceWorld;
  beforeAll(async () => {
    w = await sequenceWorld();
  });
  beforeEach(() => w.fresh());
  afterAll(() => w.dispose());

  it('creates a draft with defaults and reads it back', async () => {
    const res = await w.api('POST', w.path('/sequences'), { name: '  Friendly nudges  ' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      company: w.company,
      name: 'Friendly nudges',
      timezone: 'America/New_York',
      send_followups_in_thread: false,
      sender_connection_id: null,
      status: 'draft',
      step_count: 0,
      active_enrollment_count: 0,
      created_at: '2026-11-23T12:00:00.000Z',
    });
    const got = await w.api('GET', w.path(`/sequences/${res.body.id}`));
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it('accepts a time zone in any case and stores its canonical name; rejects non-IANA zones', async () => {
    const ok = await w.api('POST', w.path('/sequences'), { name: 'Tokyo', timezone: 'asia/tokyo', send_followups_in_thread: true });
    expect(ok.body).toMatchObject({ timezone: 'Asia/Tokyo', send_followups_in_thread: true });
    for (const timezone of ['Mars/Base', '+05:00', 'EST5EDT nope']) {
      const bad = await w.api('POST', w.path('/sequences'), { name: `Bad ${timezone}`, timezone });
      expect(bad.status).toBe(400);
      expect(bad.headers.get('content-type')).toContain('application/problem+json');
      expect(bad.body.errors.timezone).toBeDefined();
    }
  });

  it('refuses bad bodies with 400', async () => {
    for (const body of [{}, { name: '   ' }, { name: 42 }, { name: 'x'.repeat(201) }, { name: 'A', duplicate_from: 'not-a-uuid' }, { name: 'A', send_followups_in_thread: 'yes' }]) {
      const res = await w.api('POST', w.path('/sequences'), body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('validation_error');
    }
  });

  it('keeps names unique per company regardless of case (409 on create and rename)', async () => {
    const a = await w.api('POST', w.path('/sequences'), { name: 'Dunning' });
    const b = await w.api('POST', w.path('/sequences'), { name: 'Escalation' });
    const dup = await w.api('POST', w.path('/sequences'), { name: 'dunning' });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('duplicate_name');
    const rename = await w.api('PATCH', w.path(`/sequences/${b.body.id}`), { name: 'DUNNING' });
    expect(rename.status).toBe(409);
    const self = await w.api('PATCH', w.path(`/sequences/${a.body.id}`), { name: 'Dunning' });
    expect(self.status).toBe(200);
    const elsewhere = await w.api('POST', w.path('/sequences', w.other), { name: 'Dunning' }, w.tokens.carol);
    expect(elsewhere.status).toBe(201);
  });

  it('duplicates the steps of another sequence', async () => {
    const source = await activeSequence(w, 'Source', [
      { label: 'Day 7 call', step_type: 'call', offset_days: 7 },
      { label: 'Kickoff', subject_template: 'Invoice {{invoice_number}}', body_plain_template: 'Hi', offset_time: '10:15', is_active: false },
    ]);
    const copy = await w.api('POST', w.path('/sequences'), { name: 'Copy', duplicate_from: source.id, timezone: 'Europe/Berlin' });
    expect(copy.status).toBe(201);
    expect(copy.body).toMatchObject({ status: 'draft', step_count: 2, timezone: 'Europe/Berlin' });
    const overview = await w.api('GET', w.path(`/sequences/${copy.body.id}/overview`));
    expect(overview.body.steps.map((s: { label: string; offset_days: number; offset_time: string; is_active: boolean; step_type: string }) => [s.label, s.offset_days, s.offset_time, s.is_active, s.step_type])).toEqual([
      ['Kickoff', 0, '10:15', false, 'reminder'],
      ['Day 7 call', 7, '09:00', true, 'call'],
    ]);
    expect(overview.body.steps.every((s: { id: string }) => !source.stepIds.includes(s.id))).toBe(true);
    const unknown = await w.api('POST', w.path('/sequences'), { name: 'Copy 2', duplicate_from: MISSING });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors.duplicate_from).toBeDefined();
  });

  it('updates name, time zone, sender and threading; null or "" clears the sender', async () => {
    const port = await closedPort();
    const conn = await addConnection(w.engine, w.company, { name: 'AR desk', port, allowShared: true });
    const inactive = await addConnection(w.engine, w.company, { name: 'Old box', port, isActive: false });
    const foreign = await addConnection(w.engine, w.other, { name: 'Their box', port });
    const seq = await w.api('POST', w.path('/sequences'), { name: 'Plain' });
    const url = w.path(`/sequences/${seq.body.id}`);

    const res = await w.api('PATCH', url, { name: 'Renamed', timezone: 'Europe/London', sender_connection_id: conn, send_followups_in_thread: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Renamed', timezone: 'Europe/London', sender_connection_id: conn, send_followups_in_thread: true });
    expect((await w.api('PATCH', url, { sender_connection_id: '' })).body.sender_connection_id).toBeNull();
    await w.api('PATCH', url, { sender_connection_id: conn });
    expect((await w.api('PATCH', url, { sender_connection_id: null })).body.sender_connection_id).toBeNull();

    for (const body of [{ sender_connection_id: inactive }, { sender_connection_id: foreign }, { sender_connection_id: MISSING }, { timezone: 'Nowhere/City' }, { name: '' }, { sender_connection_id: 'abc' }]) {
      const bad = await w.api('PATCH', url, body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
    }
  });

  it('moves through the lifecycle and refuses repeated moves with 400 invalid_state', async () => {
    const seq = await w.api('POST', w.path('/sequences'), { name: 'Lifecycle' });
    const url = w.path(`/sequences/${seq.body.id}`);
    expect((await w.api('POST', url, { action: 'activate' })).body.status).toBe('active');
    const again = await w.api('POST', url, { action: 'activate' });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('invalid_state');
    expect((await w.api('POST', url, { action: 'archive' })).body.status).toBe('archived');
    expect((await w.api('POST', url, { action: 'archive' })).status).toBe(400);
    expect((await w.api('POST', url, { action: 'activate' })).body.status).toBe('active');
    expect((await w.api('POST', url, { action: 'pause' })).status).toBe(400);
    expect((await w.api('POST', url, {})).status).toBe(400);
  });

  it('archiving ends active enrollments and cancels their scheduled steps', async () => {
    const seq = await activeSequence(w, 'Archive me', [{ offset_days: 3 }, { offset_days: 10 }]);
    const customer = await addCustomer(w.engine, w.company, { name: 'Initech' });
    await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: customer });
    const archived = await w.api('POST', w.path(`/sequences/${seq.id}`), { action: 'archive' });
    expect(archived.body).toMatchObject({ status: 'archived', active_enrollment_count: 0 });
    const enrollment = (await w.api('GET', w.path(`/sequence-enrollments?sequence_id=${seq.id}`))).body.data[0];
    expect(enrollment).toMatchObject({ status: 'completed', stop_reason: 'sequence archived' });
    const history = await w.api('GET', w.path('/sequences/queue?category=history'));
    expect(history.body.data.map((r: { status: string }) => r.status)).toEqual(['cancelled', 'cancelled']);
  });

  it('lists by name with status filter, search and paging', async () => {
    for (const name of ['Charlie', 'alpha', 'Bravo', 'Delta']) await w.api('POST', w.path('/sequences'), { name });
    const bravo = (await w.api('GET', w.path('/sequences?search=brav'))).body.data[0];
    await w.api('POST', w.path(`/sequences/${bravo.id}`), { action: 'activate' });

    const all = await w.api('GET', w.path('/sequences'));
    expect(all.body).toMatchObject({ count: 4, page: 1, page_size: 20 });
    expect(all.body.data.map((s: { name: string }) => s.name)).toEqual(['alpha', 'Bravo', 'Charlie', 'Delta']);
    const active = await w.api('GET', w.path('/sequences?status=active'));
    expect(active.body.data.map((s: { name: string }) => s.name)).toEqual(['Bravo']);
    const both = await w.api('GET', w.path('/sequences?status=active,draft&page=2&page_size=3'));
    expect(both.body).toMatchObject({ count: 4, page: 2, page_size: 3 });
    expect(both.body.data.map((s: { name: string }) => s.name)).toEqual(['Delta']);
    expect((await w.api('GET', w.path('/sequences?search=ALP'))).body.data.map((s: { name: string }) => s.name)).toEqual(['alpha']);
    expect((await w.api('GET', w.path('/sequences?page_size=1000'))).body.page_size).toBe(100);
    for (const q of ['status=paused', 'status=', 'page=0', 'page_size=0', 'page=x']) {
      expect((await w.api('GET', w.path(`/sequences?${q}`))).status, q).toBe(400);
    }
    expect((await w.api('GET', w.path('/sequences', w.other), undefined, w.tokens.carol)).body.count).toBe(0);
  });

  it('gives the overview with steps, active enrollments and the senders the caller may use', async () => {
    const port = await closedPort();
    const own = await addConnection(w.engine, w.company, { name: 'Alice box', port, userId: w.users.alice });
    const bobs = await addConnection(w.engine, w.company, { name: 'Bob box', port, userId: w.users.bob });
    const shared = await addConnection(w.engine, w.company, { name: 'Shared AR', port, allowShared: true });
    await addConnection(w.engine, w.company, { name: 'Retired', port, userId: w.users.alice, isActive: false });
    const seq = await activeSequence(w, 'Overview', [{ label: 'Second', offset_days: 2 }, { label: 'First' }], { sender_connection_id: bobs });
    for (const name of ['Hooli', 'Umbrella']) {
      const c = await addCustomer(w.engine, w.company, { name });
      await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: c });
    }
    const res = await w.api('GET', w.path(`/sequences/${seq.id}/overview`));
    expect(res.status).toBe(200);
    expect(res.body.sequence).toMatchObject({ id: seq.id, step_count: 2, active_enrollment_count: 2 });
    expect(res.body.active_enrollment_count).toBe(2);
    expect(res.body.steps.map((s: { label: string }) => s.label)).toEqual(['First', 'Second']);
    expect(res.body.email_connections.map((c: { id: string; is_sequence_sender: boolean }) => [c.id, c.is_sequence_sender])).toEqual([
      [own, false],
      [bobs, true],
      [shared, false],
    ]);
    expect(JSON.stringify(res.body)).not.toContain('smtp');
    const asBob = await w.api('GET', w.path(`/sequences/${seq.id}/overview`), undefined, w.tokens.bob);
    expect(asBob.body.email_connections.map((c: { id: string }) => c.id)).toEqual([bobs, shared]);
  });

  it('answers 404 for unknown and foreign sequences, 403 for non-members and viewers writing', async () => {
    const theirs = await w.api('POST', w.path('/sequences', w.other), { name: 'Theirs' }, w.tokens.carol);
    for (const id of [MISSING, theirs.body.id, 'not-a-uuid']) {
      expect((await w.api('GET', w.path(`/sequences/${id}`))).status).toBe(404);
      expect((await w.api('GET', w.path(`/sequences/${id}/overview`))).status).toBe(404);
      expect((await w.api('PATCH', w.path(`/sequences/${id}`), { name: 'Mine now' })).status).toBe(404);
      expect((await w.api('POST', w.path(`/sequences/${id}`), { action: 'activate' })).status).toBe(404);
    }
    expect((await w.api('GET', w.path('/sequences', w.other))).status).toBe(403);
    expect((await w.api('GET', w.path('/sequences'), undefined, w.tokens.vic)).status).toBe(200);
    expect((await w.api('POST', w.path('/sequences'), { name: 'Viewer' }, w.tokens.vic)).status).toBe(403);
    expect((await w.api('GET', w.path('/sequences'), undefined, 'bad-token')).status).toBe(401);
  });
});

describe('sequence steps', () => {
  let w: SequenceWorld;
  let seqId: string;
  beforeAll(async () => {
    w = await sequenceWorld();
  });
  beforeEach(async () => {
    await w.fresh();
    seqId = (await w.api('POST', w.path('/sequences'), { name: 'Steps' })).body.id;
  });
  afterAll(() => w.dispose());

  const steps = () => w.path(`/sequences/${seqId}/steps`);

  it('creates a step with every default from an empty or missing body', async () => {
    const res = await w.api('POST', steps(), {});
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      sequence: seqId,
      step_type: 'reminder',
      label: 'New Step',
      offset_days: 0,
      offset_time: '09:00',
      is_active: true,
      subject_template: '',
      body_plain_template: '',
      body_html_template: '',
      instructions: '',
      has_history: false,
    });
    const bare = await w.api('POST', steps());
    expect(bare.status).toBe(201);
    expect((await w.api('GET', w.path(`/sequences/${seqId}`))).body.step_count).toBe(2);
  });

  it('reads, updates and deletes a step', async () => {
    const created = await w.api('POST', steps(), { step_type: 'call', label: 'Ring them', offset_days: 5, offset_time: '14:45', instructions: 'Be kind' });
    const url = `${steps()}/${created.body.id}`;
    expect((await w.api('GET', url)).body).toEqual(created.body);
    w.engine.clock.set('2026-11-23T13:00:00.000Z');
    const updated = await w.api('PUT', url, { label: 'Ring them twice', is_active: false, subject_template: 'Re {{invoice_number}}' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ label: 'Ring them twice', is_active: false, offset_days: 5, step_type: 'call', subject_template: 'Re {{invoice_number}}', updated_at: '2026-11-23T13:00:00.000Z' });
    const list = await w.api('GET', steps());
    expect(list.body.count).toBe(1);
    expect((await w.api('DELETE', url)).status).toBe(204);
    expect((await w.api('GET', url)).status).toBe(404);
    expect((await w.api('DELETE', url)).status).toBe(404);
  });

  it('refuses bad step fields with 400', async () => {
    const created = await w.api('POST', steps(), {});
    const bodies = [
      { step_type: 'email' },
      { offset_time: '9:00' },
      { offset_time: '24:00' },
      { offset_days: -1 },
      { offset_days: 1.5 },
      { offset_days: 4000 },
      { label: '   ' },
      { is_active: 'no' },
    ];
    for (const body of bodies) {
      expect((await w.api('POST', steps(), body)).status, JSON.stringify(body)).toBe(400);
      expect((await w.api('PUT', `${steps()}/${created.body.id}`, body)).status, JSON.stringify(body)).toBe(400);
    }
  });

  it('keeps steps in firing order: offset_days, then offset_time, then creation', async () => {
    for (const [label, offset_days, offset_time] of [
      ['d3', 3, '09:00'],
      ['d0 late', 0, '17:00'],
      ['d0 early', 0, '08:00'],
      ['d3 again', 3, '09:00'],
    ] as const) {
      await w.api('POST', steps(), { label, offset_days, offset_time });
    }
    const list = await w.api('GET', steps());
    expect(list.body.data.map((s: { label: string }) => s.label)).toEqual(['d0 early', 'd0 late', 'd3', 'd3 again']);
  });

  it('answers 404 for a step of another sequence or company', async () => {
    const other = (await w.api('POST', w.path('/sequences'), { name: 'Other' })).body.id;
    const step = (await w.api('POST', w.path(`/sequences/${other}/steps`), {})).body.id;
    expect((await w.api('GET', `${steps()}/${step}`)).status).toBe(404);
    expect((await w.api('PUT', `${steps()}/${step}`, { label: 'x' })).status).toBe(404);
    expect((await w.api('DELETE', `${steps()}/${step}`)).status).toBe(404);
    const theirs = (await w.api('POST', w.path('/sequences', w.other), { name: 'Theirs' }, w.tokens.carol)).body.id;
    expect((await w.api('POST', w.path(`/sequences/${theirs}/steps`), {})).status).toBe(404);
    expect((await w.api('GET', w.path(`/sequences/${theirs}/steps`))).status).toBe(404);
  });

  it('refuses to update or delete a step with execution history (409) but lets it be deactivated', async () => {
    const seq = await activeSequence(w, 'History', [{ step_type: 'call', label: 'Call', offset_days: 0, offset_time: '00:00' }, { label: 'Later', offset_days: 30 }]);
    const customer = await addCustomer(w.engine, w.company, { name: 'Vandelay' });
    await w.api('POST', w.path('/sequence-enrollments'), { sequence_id: seq.id, customer_id: customer, start_date: '2026-11-23' });
    const ready = await w.api('GET', w.path('/sequences/queue'));
    expect(ready.body.count).toBe(1);
    const url = w.path(`/sequences/${seq.id}/steps/${seq.stepIds[0]}`);
    // Pending (ready) rows are not history yet.
    expect((await w.api('GET', url)).body.has_history).toBe(false);
    await w.api('POST', w.path(`/sequences/queue/${ready.body.data[0].id}/complete`), { note: 'Left a voicemail' });

    expect((await w.api('GET', url)).body.has_history).toBe(true);
    const put = await w.api('PUT', url, { label: 'Call again' });
    expect(put.status).toBe(409);
    expect(put.body.code).toBe('step_has_history');
    const del = await w.api('DELETE', url);
    expect(del.status).toBe(409);
    expect(del.body.code).toBe('step_has_history');
    const unchanged = await w.api('PUT', url, { label: 'Call', offset_days: 0 });
    expect(unchanged.status).toBe(200);
    const deactivate = await w.api('PUT', url, { is_active: false });
    expect(deactivate.status).toBe(200);
    expect(deactivate.body.is_active).toBe(false);

    // The other step only has a scheduled row: it can be deleted, and its pending row goes with it.
    const later = w.path(`/sequences/${seq.id}/steps/${seq.stepIds[1]}`);
    expect((await w.api('DELETE', later)).status).toBe(204);
    const enrollment = (await w.api('GET', w.path(`/sequence-enrollments?sequence_id=${seq.id}`))).body.data[0];
    expect(enrollment.status).toBe('completed');
    expect(enrollment.stop_reason).toBeNull();
  });
});
