import { describe, expect, it } from 'vitest';
import { runCommand, systemActor } from '../../core/engine';
import { normalizeColor, validateLabel } from '../../core/labels/labels';
import { call, useApiWorkspace } from '../support/api';
import { ledger } from '../support/ledger-fixtures';

describe('label rules (pure)', () => {
  it('accepts #RRGGBB colors in any case and stores them upper-case', () => {
    expect(normalizeColor('#a1b2c3')).toBe('#A1B2C3');
    for (const bad of ['red', '#abc', 'A1B2C3', '#GGGGGG', '#a1b2c3d4']) expect(normalizeColor(bad), bad).toBeNull();
  });

  it('requires a non-blank name of at most 60 characters when creating or renaming', () => {
    expect(validateLabel({ name: 'Disputed' }, true)).toEqual({});
    expect(validateLabel({}, true).name).toEqual(['Is required']);
    expect(validateLabel({ name: '   ' }, false).name).toEqual(['Is required']);
    expect(validateLabel({ name: 'x'.repeat(61) }, true).name).toBeDefined();
    expect(validateLabel({ color: '#123' }, false).color).toBeDefined();
    expect(validateLabel({}, false)).toEqual({});
  });
});

describe('labels API (extension)', () => {
  const w = useApiWorkspace();

  const send = (method: string, path: string, body?: unknown) => call(w.app, method, path, { token: w.tokens.demo, body });

  it('creates, lists by name (case-insensitively), reads and updates labels', async () => {
    const disputed = await send('POST', `${w.base}/labels`, { name: ' Disputed ', color: '#dc2626' });
    expect(disputed.status).toBe(201);
    expect(disputed.body).toEqual({ id: expect.any(String), name: 'Disputed', color: '#DC2626', meaning: null, created_at: '2026-11-23T12:00:00.000Z', updated_at: '2026-11-23T12:00:00.000Z' });
    const promise = await send('POST', `${w.base}/labels`, { name: 'promise to pay' });
    expect(promise.body.color).toBe('#6B7280');
    await send('POST', `${w.base}/labels`, { name: 'VIP' });

    const list = await send('GET', `${w.base}/labels`);
    expect(list.body.count).toBe(3);
    expect(list.body.data.map((x: { name: string }) => x.name)).toEqual(['Disputed', 'promise to pay', 'VIP']);
    expect((await send('GET', `${w.base}/labels/${promise.body.id}`)).body).toEqual(promise.body);

    const renamed = await send('PATCH', `${w.base}/labels/${promise.body.id}`, { name: 'Promise to pay', color: '#16a34a' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Promise to pay', color: '#16A34A' });
    expect((await send('PATCH', `${w.base}/labels/${promise.body.id}`, { color: '#000000' })).body).toMatchObject({ name: 'Promise to pay', color: '#000000' });
    expect((await send('PATCH', `${w.base}/labels/${promise.body.id}`, {})).body.color).toBe('#000000');
  });

  it('refuses a duplicate name in the same company regardless of case with 409; other companies are separate', async () => {
    const first = (await send('POST', `${w.base}/labels`, { name: 'Disputed' })).body;
    for (const name of ['Disputed', 'DISPUTED', ' disputed ']) {
      const res = await send('POST', `${w.base}/labels`, { name });
      expect(res.status, name).toBe(409);
      expect(res.body.code).toBe('duplicate_label');
    }
    const second = (await send('POST', `${w.base}/labels`, { name: 'Escalated' })).body;
    expect((await send('PATCH', `${w.base}/labels/${second.id}`, { name: 'disputed' })).status).toBe(409);
    expect((await send('PATCH', `${w.base}/labels/${first.id}`, { name: 'DISPUTED' })).body.name).toBe('DISPUTED');
    expect((await call(w.app, 'POST', `/api/companies/${w.other}/labels`, { token: w.tokens.rival, body: { name: 'Disputed' } })).status).toBe(201);
  });

  it('deletes a label with its invoice assignments in one transaction, leaving other labels alone', async () => {
    const l = ledger(w.engine, w.company);
    const customer = await l.customer({ name: 'Cobalt' });
    const inv1 = await l.invoice({ customer, number: 'I-1', total: 10 });
    const inv2 = await l.invoice({ customer, number: 'I-2', total: 10 });
    const doomed = (await send('POST', `${w.base}/labels`, { name: 'Doomed' })).body;
    const kept = (await send('POST', `${w.base}/labels`, { name: 'Kept' })).body;
    await runCommand(w.engine, 'test_assign', { actor: systemActor, companyId: w.company }, async (tx) => {
      for (const [invoice_id, label_id] of [
        [inv1, doomed.id],
        [inv2, doomed.id],
        [inv1, kept.id],
      ]) {
        await tx.db.insertInto('invoice_labels').values({ company_id: w.company, invoice_id, label_id, created_at: tx.now }).execute();
      }
    });
    const res = await send('DELETE', `${w.base}/labels/${doomed.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    const assignments = await w.engine.db.selectFrom('invoice_labels').select(['invoice_id', 'label_id']).where('company_id', '=', w.company).execute();
    expect(assignments).toEqual([{ invoice_id: inv1, label_id: kept.id }]);
    expect((await send('GET', `${w.base}/labels/${doomed.id}`)).status).toBe(404);
    const change = await w.engine.db.selectFrom('changes').select(['entity', 'op', 'data']).where('command', '=', 'delete_label').where('company_id', '=', w.company).executeTakeFirstOrThrow();
    expect(change).toMatchObject({ entity: 'label', op: 'delete' });
    expect(JSON.parse(change.data)).toEqual({ name: 'Doomed', invoice_assignments_removed: 2 });
    expect((await send('DELETE', `${w.base}/labels/${doomed.id}`)).status).toBe(404);
  });

  it('answers 400 for bad bodies', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: 'x'.repeat(61) }, 'name'],
      [{ name: 'A', color: 'red' }, 'color'],
      [{ name: 'A', color: '#12345' }, 'color'],
      [{ name: 42 }, 'name'],
      [{ name: 'A', colour: '#123456' }, 'non_field_errors'],
    ];
    for (const [body, field] of cases) {
      const res = await send('POST', `${w.base}/labels`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.body.errors), JSON.stringify(body)).toContain(field);
    }
    const label = (await send('POST', `${w.base}/labels`, { name: 'Ok' })).body;
    expect((await send('PATCH', `${w.base}/labels/${label.id}`, { name: ' ' })).status).toBe(400);
    expect((await send('GET', `${w.base}/labels`)).body.count).toBe(1);
  });

  it("answers 404 for unknown or another company's labels, and 403 for viewers writing", async () => {
    const foreign = (await call(w.app, 'POST', `/api/companies/${w.other}/labels`, { token: w.tokens.rival, body: { name: 'Theirs' } })).body;
    for (const id of [foreign.id, '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a', 'x']) {
      expect((await send('GET', `${w.base}/labels/${id}`)).status).toBe(404);
      expect((await send('PATCH', `${w.base}/labels/${id}`, { name: 'Mine' })).status).toBe(404);
      expect((await send('DELETE', `${w.base}/labels/${id}`)).status).toBe(404);
    }
    expect((await call(w.app, 'GET', `/api/companies/${w.other}/labels/${foreign.id}`, { token: w.tokens.rival })).body.name).toBe('Theirs');
    expect((await call(w.app, 'GET', `${w.base}/labels`, { token: w.tokens.watcher })).status).toBe(200);
    expect((await call(w.app, 'POST', `${w.base}/labels`, { token: w.tokens.watcher, body: { name: 'X' } })).status).toBe(403);
  });
});
