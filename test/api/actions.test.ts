import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ActionStatus } from '../../core/db/schema';
import { createApp } from '../../core/http/app';
import { addAction, addCustomer, addInvoice, addTeamMember } from '../support/actions-fixtures';
import { addCompany, addUser, type App, call, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { addMember } from '../support/rows';

describe('actions API', () => {
  let engine: TestEngine;
  let app: App;
  let company: string;
  let other: string;
  let token: string;
  let acme: string;
  let borealis: string;
  let inv1: string;
  let inv2: string;
  let dana: string;
  let demoUser: string;
  const base = () => `/api/companies/${company}/actions`;

  let viewerUser: string;
  let outsiderUser: string;
  let viewerToken: string;
  let outsiderToken: string;

  // Users and tokens once per file (password hashing is the slow part); a fresh company per test.
  beforeAll(async () => {
    engine = await testEngine('2026-11-23T12:00:00.000Z');
    app = createApp(engine);
    demoUser = await addUser(engine, 'demo', []);
    viewerUser = await addUser(engine, 'viewer', []);
    outsiderUser = await addUser(engine, 'outsider', []);
    token = await loginAs(app, 'demo');
    viewerToken = await loginAs(app, 'viewer');
    outsiderToken = await loginAs(app, 'outsider');
  });
  afterAll(() => engine.dispose());

  beforeEach(async () => {
    engine.clock.set('2026-11-23T12:00:00.000Z');
    company = await addCompany(engine, 'Acme Holdings');
    other = await addCompany(engine, 'Other Co');
    await addMember(engine, company, demoUser, 'owner');
    await addMember(engine, company, viewerUser, 'viewer');
    await addMember(engine, other, outsiderUser, 'owner');
    dana = await addTeamMember(engine, company, 'Dana Demo', demoUser);
    acme = await addCustomer(engine, company, 'Acme Supply');
    borealis = await addCustomer(engine, company, 'Borealis Foods');
    inv1 = await addInvoice(engine, company, acme, 'INV-1001');
    inv2 = await addInvoice(engine, company, borealis, 'INV-2002');
  });

  const get = (path: string, t = token) => call(app, 'GET', path, { token: t });
  const post = (path: string, body?: unknown, t = token) => call(app, 'POST', path, { token: t, body });
  const ids = (res: { body: { data: Array<{ id: string }> } }) => res.body.data.map((a) => a.id);

  describe('list', () => {
    it('returns the envelope with every non-deleted action, newest first, and the joined names', async () => {
      engine.clock.set('2026-11-20T09:00:00.000Z');
      const older = await addAction(engine, company, { customer_id: acme, invoice_id: inv1 });
      engine.clock.set('2026-11-21T09:00:00.000Z');
      const newer = await addAction(engine, company, { customer_id: borealis, status: 'completed' });
      await addAction(engine, company, { customer_id: acme, deleted_at: '2026-11-22T00:00:00.000Z' });
      const foreignCustomer = await addCustomer(engine, other, 'Elsewhere Inc');
      await addAction(engine, other, { customer_id: foreignCustomer });

      const res = await get(base());
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ count: 2, page: 1, page_size: 20 });
      expect(ids(res)).toEqual([newer, older]);
      expect(res.body.data[1]).toMatchObject({
        id: older,
        company,
        invoice: inv1,
        invoice_number: 'INV-1001',
        customer: acme,
        customer_name: 'Acme Supply',
        action_type: 'email',
        status: 'proposed',
        is_action_required: false,
        is_ai_recommended: true,
        metadata: {},
        is_deleted: false,
        deleted_at: null,
        approval_log: [],
        executed_at: null,
      });
    });

    it('needs_action: proposed, action-required and AI-recommended only', async () => {
      const hit = await addAction(engine, company, { customer_id: acme, is_action_required: 1 });
      await addAction(engine, company, { customer_id: acme, is_action_required: 0 });
      await addAction(engine, company, { customer_id: acme, is_action_required: 1, is_ai_recommended: 0 });
      await addAction(engine, company, { customer_id: acme, is_action_required: 1, status: 'scheduled' });
      await addAction(engine, company, { customer_id: acme, is_action_required: 1, deleted_at: '2026-11-22T00:00:00.000Z' });
      expect(ids(await get(`${base()}?category=needs_action`))).toEqual([hit]);
    });

    it('awaiting_customer: proposed actions whose top recommendation is to wait for the customer', async () => {
      const hit = await addAction(engine, company, { customer_id: acme, top_recommendation: 'wait_for_customer' });
      await addAction(engine, company, { customer_id: acme, top_recommendation: 'wait_for_customer', status: 'processing' });
      await addAction(engine, company, { customer_id: acme, top_recommendation: 'send_email' });
      expect(ids(await get(`${base()}?category=awaiting_customer`))).toEqual([hit]);
    });

    it('alternatives: all action-required proposed actions of one invoice, and it needs invoice_id', async () => {
      const a = await addAction(engine, company, { customer_id: acme, invoice_id: inv1, is_action_required: 1, is_ai_recommended: 0 });
      const b = await addAction(engine, company, { customer_id: acme, invoice_id: inv1, is_action_required: 1 });
      await addAction(engine, company, { customer_id: acme, invoice_id: inv1, is_action_required: 0 });
      await addAction(engine, company, { customer_id: acme, invoice_id: inv1, is_action_required: 1, status: 'completed' });
      await addAction(engine, company, { customer_id: borealis, invoice_id: inv2, is_action_required: 1 });
      expect(ids(await get(`${base()}?category=alternatives&invoice_id=${inv1}`)).sort()).toEqual([a, b].sort());
      const res = await get(`${base()}?category=alternatives`);
      expect(res.status).toBe(400);
      expect(res.body.errors.invoice_id).toBeDefined();
    });

    describe('history', () => {
      let sentNov10: string;
      let cancelledNov15: string;
      let deletedNov20: string;
      let manualCancelled: string;

      beforeEach(async () => {
        sentNov10 = await addAction(engine, company, {
          customer_id: acme,
          status: 'completed',
          executed_at: '2026-11-10T15:00:00.000Z',
          updated_at: '2026-11-18T00:00:00.000Z',
        });
        // Cancelled before execution: history dates it by updated_at.
        cancelledNov15 = await addAction(engine, company, { customer_id: acme, status: 'cancelled', updated_at: '2026-11-15T23:59:59.000Z' });
        deletedNov20 = await addAction(engine, company, {
          customer_id: borealis,
          status: 'completed',
          executed_at: '2026-11-20T08:00:00.000Z',
          deleted_at: '2026-11-21T00:00:00.000Z',
        });
        manualCancelled = await addAction(engine, company, { customer_id: acme, status: 'cancelled', is_ai_recommended: 0, updated_at: '2026-11-16T00:00:00.000Z' });
        await addAction(engine, company, { customer_id: acme, status: 'proposed' });
        await addAction(engine, company, { customer_id: acme, status: 'processing' });
      });

      it('holds completed and AI-recommended cancelled actions, soft-deleted included, latest execution first', async () => {
        const res = await get(`${base()}?category=history`);
        expect(ids(res)).toEqual([deletedNov20, cancelledNov15, sentNov10]);
        expect(ids(res)).not.toContain(manualCancelled);
        expect(res.body.data[0].is_deleted).toBe(true);
      });

      it('hides soft-deleted actions with include_deleted=false', async () => {
        expect(ids(await get(`${base()}?category=history&include_deleted=false`))).toEqual([cancelledNov15, sentNov10]);
      });

      it('filters by executed_after/executed_before (inclusive UTC days), falling back to updated_at', async () => {
        expect(ids(await get(`${base()}?category=history&executed_after=2026-11-15`))).toEqual([deletedNov20, cancelledNov15]);
        expect(ids(await get(`${base()}?category=history&executed_before=2026-11-15`))).toEqual([cancelledNov15, sentNov10]);
        expect(ids(await get(`${base()}?category=history&executed_after=2026-11-10&executed_before=2026-11-10`))).toEqual([sentNov10]);
        expect(ids(await get(`${base()}?category=history&executed_after=2026-11-11&executed_before=2026-11-14`))).toEqual([]);
      });

      it('applies status on top of the category', async () => {
        expect(ids(await get(`${base()}?category=history&status=cancelled`))).toEqual([cancelledNov15]);
        expect(ids(await get(`${base()}?category=history&status=proposed`))).toEqual([]);
      });

      it('refuses executed_after/executed_before without category=history', async () => {
        for (const q of ['executed_after=2026-11-01', 'category=needs_action&executed_before=2026-11-01']) {
          const res = await get(`${base()}?${q}`);
          expect(res.status).toBe(400);
          expect(res.body.code).toBe('validation_error');
        }
        expect((await get(`${base()}?category=history&executed_after=2026-13-01`)).status).toBe(400);
      });
    });

    it('filters by comma-separated status, customer_id and invoice_id, and includes deleted on request', async () => {
      const p = await addAction(engine, company, { customer_id: acme, invoice_id: inv1, status: 'proposed' });
      const s = await addAction(engine, company, { customer_id: borealis, invoice_id: inv2, status: 'scheduled' });
      await addAction(engine, company, { customer_id: acme, status: 'completed' });
      const d = await addAction(engine, company, { customer_id: acme, status: 'proposed', deleted_at: '2026-11-22T00:00:00.000Z' });
      expect(ids(await get(`${base()}?status=proposed,scheduled`)).sort()).toEqual([p, s].sort());
      expect(ids(await get(`${base()}?status=proposed&include_deleted=true`)).sort()).toEqual([p, d].sort());
      expect(ids(await get(`${base()}?customer_id=${borealis}`))).toEqual([s]);
      expect(ids(await get(`${base()}?invoice_id=${inv1}`))).toEqual([p]);
    });

    it('answers 400 for an unknown status, category or malformed id filter', async () => {
      // A NUL would cut the LIKE pattern short and match every action.
      for (const q of ['status=proposed,done', 'category=inbox', 'customer_id=nope', 'include_deleted=maybe', 'page=0', 'page_size=0', 'page=x', 'search=zz%00']) {
        const res = await get(`${base()}?${q}`);
        expect(res.status, q).toBe(400);
        expect(res.headers.get('content-type')).toContain('application/problem+json');
      }
    });

    it('searches description, labels, customer name and invoice number, case-insensitively', async () => {
      const byDescription = await addAction(engine, company, { customer_id: borealis, description: 'Call about the Disputed freight charge' });
      const byRecommendation = await addAction(engine, company, { customer_id: borealis, description: 'x', recommendation_label: 'Escalate to CFO' });
      const byTrigger = await addAction(engine, company, { customer_id: borealis, description: 'x', trigger_event_label: 'Promise BROKEN' });
      const byCustomer = await addAction(engine, company, { customer_id: acme, description: 'x' });
      const byInvoice = await addAction(engine, company, { customer_id: borealis, invoice_id: inv2, description: 'x' });
      const search = async (text: string) => ids(await get(`${base()}?search=${encodeURIComponent(text)}`));
      expect(await search('disputed FREIGHT')).toEqual([byDescription]);
      expect(await search('cfo')).toEqual([byRecommendation]);
      expect(await search('promise broken')).toEqual([byTrigger]);
      expect(await search('acme sup')).toEqual([byCustomer]);
      expect(await search('inv-2002')).toEqual([byInvoice]);
      expect(await search('%')).toEqual([]);
    });

    it('pages with page and page_size, clamps page_size at 100, and counts every match', async () => {
      const created: string[] = [];
      for (let i = 0; i < 5; i++) {
        engine.clock.set(`2026-11-2${i}T10:00:00.000Z`);
        created.push(await addAction(engine, company, { customer_id: acme }));
      }
      const newestFirst = [...created].reverse();
      const page2 = await get(`${base()}?page=2&page_size=2`);
      expect(page2.body).toMatchObject({ count: 5, page: 2, page_size: 2 });
      expect(ids(page2)).toEqual(newestFirst.slice(2, 4));
      expect(ids(await get(`${base()}?page=3&page_size=2`))).toEqual(newestFirst.slice(4));
      expect((await get(`${base()}?page=9&page_size=2`)).body).toMatchObject({ count: 5, data: [] });
      expect((await get(`${base()}?page_size=500`)).body.page_size).toBe(100);
    });

    it('is scoped: 403 for a non-member, 401 without a token', async () => {
      expect((await get(base(), outsiderToken)).status).toBe(403);
      expect((await call(app, 'GET', base())).status).toBe(401);
    });
  });

  describe('one action', () => {
    it('returns soft-deleted actions in any status, and 404 for unknown, foreign or malformed ids', async () => {
      const deleted = await addAction(engine, company, { customer_id: acme, status: 'cancelled', deleted_at: '2026-11-22T00:00:00.000Z' });
      const res = await get(`${base()}/${deleted}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: deleted, status: 'cancelled', is_deleted: true, deleted_at: '2026-11-22T00:00:00.000Z' });

      const foreignCustomer = await addCustomer(engine, other, 'Elsewhere Inc');
      const foreign = await addAction(engine, other, { customer_id: foreignCustomer });
      for (const id of [foreign, '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a', 'not-a-uuid']) {
        const miss = await get(`${base()}/${id}`);
        expect(miss.status).toBe(404);
        expect(miss.body.code).toBe('not_found');
      }
      expect((await post(`${base()}/${foreign}/approve`)).status).toBe(404);
      expect((await call(app, 'DELETE', `${base()}/${foreign}`, { token })).status).toBe(404);
    });
  });

  describe('operations', () => {
    const STATUSES: ActionStatus[] = ['proposed', 'scheduled', 'processing', 'completed', 'cancelled'];
    const OUTCOME: Record<string, Partial<Record<ActionStatus, ActionStatus>>> = {
      approve: { proposed: 'processing', scheduled: 'processing' },
      reject: { proposed: 'cancelled', scheduled: 'cancelled', processing: 'cancelled', cancelled: 'cancelled' },
      send: { proposed: 'completed', scheduled: 'completed' },
      cancel: { proposed: 'cancelled', scheduled: 'cancelled', processing: 'cancelled' },
      complete: { proposed: 'completed', scheduled: 'completed', processing: 'completed' },
    };
    const table = Object.keys(OUTCOME).flatMap((op) => STATUSES.map((from) => [op, from, OUTCOME[op][from] ?? 'invalid_state'] as const));

    it.each(table)('%s from %s -> %s', async (op, from, to) => {
      const id = await addAction(engine, company, { customer_id: acme, status: from });
      const res = await post(`${base()}/${id}/${op}`);
      if (to === 'invalid_state') {
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('invalid_state');
        expect((await get(`${base()}/${id}`)).body).toMatchObject({ status: from, approval_log: [] });
      } else {
        expect(res.status).toBe(200);
        expect(res.body.status).toBe(to);
        expect(res.body.approval_log.map((e: { operation: string }) => e.operation)).toEqual([op]);
      }
    });

    it('approve stores final_content, logs the comment and the caller as approver by default', async () => {
      const id = await addAction(engine, company, { customer_id: acme, metadata: { draft: 'Hi' } });
      const res = await post(`${base()}/${id}/approve`, { final_content: 'Hello, a gentle reminder', comment: 'Looks good' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'processing', metadata: { draft: 'Hi', final_content: 'Hello, a gentle reminder' }, executed_at: null });
      expect(res.body.approval_log).toEqual([
        { operation: 'approve', reason: null, comment: 'Looks good', approver: dana, approver_name: 'Dana Demo', user: demoUser, created_at: '2026-11-23T12:00:00.000Z' },
      ]);
      const changes = await engine.db.selectFrom('changes').select(['command', 'entity', 'entity_id']).where('command', '=', 'approve_action').where('company_id', '=', company).execute();
      // The email's send is queued in the same command.
      expect(changes.map((c) => c.entity).sort()).toEqual(['action', 'action_approval', 'job']);
    });

    it('approved_by names a team member of this company: unknown or foreign ones are a 400, null records none', async () => {
      const lee = await addTeamMember(engine, company, 'Lee Manager');
      const foreignMember = await addTeamMember(engine, other, 'Foreign Person');
      const id = await addAction(engine, company, { customer_id: acme });
      for (const approved_by of [foreignMember, '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a']) {
        const res = await post(`${base()}/${id}/reject`, { approved_by });
        expect(res.status).toBe(400);
        expect(res.body.errors.approved_by).toBeDefined();
      }
      expect((await post(`${base()}/${id}/reject`, { approved_by: 'lee' })).status).toBe(400);
      const rejected = await post(`${base()}/${id}/reject`, { approved_by: lee, reason: 'duplicate', comment: 'Already called' });
      expect(rejected.body.status).toBe('cancelled');
      expect(rejected.body.approval_log[0]).toMatchObject({ operation: 'reject', reason: 'duplicate', comment: 'Already called', approver: lee, approver_name: 'Lee Manager' });

      const other2 = await addAction(engine, company, { customer_id: acme });
      const cancelled = await post(`${base()}/${other2}/cancel`, { approved_by: null, reason: 'customer paid' });
      expect(cancelled.body.approval_log[0]).toMatchObject({ operation: 'cancel', reason: 'customer paid', approver: null, user: demoUser });
    });

    it('send records delivery and final content, executes the action and makes it the invoice’s last touch', async () => {
      const id = await addAction(engine, company, { customer_id: acme, invoice_id: inv1, status: 'scheduled' });
      const res = await post(`${base()}/${id}/send`, {
        final_content: 'Final text',
        channel_id: 'thread-42',
        external_id: 'msg-7',
        response_deadline: '2026-12-01T12:00:00-05:00',
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        status: 'completed',
        metadata: { final_content: 'Final text' },
        channel_id: 'thread-42',
        external_id: 'msg-7',
        response_deadline: '2026-12-01T17:00:00.000Z',
        executed_at: '2026-11-23T12:00:00.000Z',
        executed_by: 'demo',
      });
      const invoice = await engine.db.selectFrom('invoices').select(['last_touch_at', 'last_touched_by']).where('id', '=', inv1).executeTakeFirstOrThrow();
      expect(invoice).toEqual({ last_touch_at: '2026-11-23T12:00:00.000Z', last_touched_by: 'demo' });
    });

    it('send with an unparseable or zone-less response_deadline is a 400 and changes nothing', async () => {
      const id = await addAction(engine, company, { customer_id: acme });
      for (const response_deadline of ['next friday', '2026-12-01T17:00:00', '2026-12-01']) {
        const res = await post(`${base()}/${id}/send`, { response_deadline });
        expect(res.status).toBe(400);
        expect(res.body.errors.response_deadline).toBeDefined();
      }
      expect((await get(`${base()}/${id}`)).body).toMatchObject({ status: 'proposed', executed_at: null, approval_log: [] });
    });

    it('complete executes without delivery; a bare POST without a body is accepted', async () => {
      const id = await addAction(engine, company, { customer_id: acme, invoice_id: inv2, status: 'processing' });
      const res = await call(app, 'POST', `${base()}/${id}/complete`, { token });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'completed', executed_at: '2026-11-23T12:00:00.000Z', executed_by: 'demo', channel_id: null });
      const invoice = await engine.db.selectFrom('invoices').select('last_touch_at').where('id', '=', inv2).executeTakeFirstOrThrow();
      expect(invoice.last_touch_at).toBe('2026-11-23T12:00:00.000Z');
    });

    it('refuses operations on a soft-deleted action, and viewers may not operate', async () => {
      const id = await addAction(engine, company, { customer_id: acme, deleted_at: '2026-11-22T00:00:00.000Z' });
      const res = await post(`${base()}/${id}/approve`);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_state');

      const live = await addAction(engine, company, { customer_id: acme });
      expect((await post(`${base()}/${live}/approve`, {}, viewerToken)).status).toBe(403);
      expect((await get(`${base()}/${live}`, viewerToken)).status).toBe(200);
    });

    it('answers 400 for a body field of the wrong type', async () => {
      const id = await addAction(engine, company, { customer_id: acme });
      const res = await post(`${base()}/${id}/approve`, { final_content: 42 });
      expect(res.status).toBe(400);
      expect(res.body.errors.final_content).toBeDefined();
    });
  });

  describe('create and delete (extensions)', () => {
    it('creates an action on an invoice, taking the invoice’s customer', async () => {
      const res = await post(base(), {
        invoice: inv1,
        action_type: 'call',
        description: 'Call the AP desk',
        is_action_required: true,
        top_recommendation: 'call_customer',
        recommendation_label: 'Call',
        metadata: { script: 'Ask for a date' },
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        invoice: inv1,
        invoice_number: 'INV-1001',
        customer: acme,
        customer_name: 'Acme Supply',
        action_type: 'call',
        status: 'proposed',
        is_action_required: true,
        is_ai_recommended: true,
        metadata: { script: 'Ask for a date' },
        created_at: '2026-11-23T12:00:00.000Z',
      });
      expect((await get(`${base()}/${res.body.id}`)).body.id).toBe(res.body.id);
    });

    it('refuses a missing, foreign or mismatched customer or invoice with 400', async () => {
      const foreignCustomer = await addCustomer(engine, other, 'Elsewhere Inc');
      const cases = [
        [{ action_type: 'task', description: 'x' }, 'customer'],
        [{ customer: foreignCustomer, action_type: 'task', description: 'x' }, 'customer'],
        [{ customer: borealis, invoice: inv1, action_type: 'task', description: 'x' }, 'customer'],
        [{ customer: acme, action_type: 'fax', description: 'x' }, 'action_type'],
        [{ customer: acme, action_type: 'task', description: '' }, 'description'],
        [{ customer: acme, action_type: 'task', description: 'x', response_deadline: 'soon' }, 'response_deadline'],
      ] as const;
      for (const [body, field] of cases) {
        const res = await post(base(), body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.errors[field], JSON.stringify(body)).toBeDefined();
      }
    });

    it('soft-deletes: hidden from lists, still readable, deleting again changes nothing', async () => {
      const id = await addAction(engine, company, { customer_id: acme });
      engine.clock.set('2026-11-24T08:00:00.000Z');
      const res = await call(app, 'DELETE', `${base()}/${id}`, { token });
      expect(res.status).toBe(204);
      expect((await get(base())).body.count).toBe(0);
      expect((await get(`${base()}?include_deleted=true`)).body.count).toBe(1);
      engine.clock.set('2026-11-25T08:00:00.000Z');
      expect((await call(app, 'DELETE', `${base()}/${id}`, { token })).status).toBe(204);
      expect((await get(`${base()}/${id}`)).body).toMatchObject({ is_deleted: true, deleted_at: '2026-11-24T08:00:00.000Z', updated_at: '2026-11-23T12:00:00.000Z' });
    });
  });
});
