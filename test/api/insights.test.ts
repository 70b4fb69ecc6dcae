import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../core/http/app';
import type { InsightType } from '../../core/insights/payloads';
import { addCustomer, addInvoice, SAMPLE_PAYLOADS } from '../support/actions-fixtures';
import { addCompany, addUser, type App, call, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { addMember } from '../support/rows';

describe('intelligence API', () => {
  let engine: TestEngine;
  let app: App;
  let users: Record<'demo' | 'colleague' | 'viewer' | 'outsider', string>;
  let tokens: Record<'demo' | 'colleague' | 'viewer' | 'outsider', string>;
  let company: string;
  let other: string;
  let acme: string;
  let borealis: string;
  let inv1: string;
  let inv2: string;
  let tick: number;

  // Users and tokens once per file (password hashing is the slow part); fresh companies per test.
  beforeAll(async () => {
    engine = await testEngine('2026-11-23T12:00:00.000Z');
    app = createApp(engine);
    users = {
      demo: await addUser(engine, 'demo', []),
      colleague: await addUser(engine, 'colleague', []),
      viewer: await addUser(engine, 'viewer', []),
      outsider: await addUser(engine, 'outsider', []),
    };
    tokens = {
      demo: await loginAs(app, 'demo'),
      colleague: await loginAs(app, 'colleague'),
      viewer: await loginAs(app, 'viewer'),
      outsider: await loginAs(app, 'outsider'),
    };
  });
  afterAll(() => engine.dispose());

  beforeEach(async () => {
    tick = 0;
    engine.clock.set('2026-11-23T12:00:00.000Z');
    company = await addCompany(engine, 'Acme Holdings');
    other = await addCompany(engine, 'Other Co');
    await addMember(engine, company, users.demo, 'owner');
    await addMember(engine, company, users.colleague, 'collector');
    await addMember(engine, company, users.viewer, 'viewer');
    await addMember(engine, other, users.outsider, 'owner');
    acme = await addCustomer(engine, company, 'Acme Supply');
    borealis = await addCustomer(engine, company, 'Borealis Foods');
    inv1 = await addInvoice(engine, company, acme, 'INV-1001');
    inv2 = await addInvoice(engine, company, borealis, 'INV-2002');
  });

  const list = (query: string, token = tokens.demo) => call(app, 'GET', `/api/intelligence/insights${query}`, { token });
  const ids = (res: { body: { results: Array<{ id: string }> } }) => res.body.results.map((i) => i.id);

  /** Records an insight through the create extension, one minute after the previous one. */
  async function addInsight(insightType: InsightType, targetType: string, targetId?: string, companyId = company, token = tokens.demo): Promise<string> {
    engine.clock.set(new Date(Date.parse('2026-11-23T12:00:00.000Z') + ++tick * 60_000).toISOString());
    const res = await call(app, 'POST', `/api/companies/${companyId}/intelligence/insights`, {
      token,
      body: { target_type: targetType, target_id: targetId, insight_type: insightType, payload_json: SAMPLE_PAYLOADS[insightType] },
    });
    if (res.status !== 201) throw new Error(`insight not created: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.id;
  }

  describe('list scoping', () => {
    it('is empty without company_id, for a non-member and for an unknown company; 400 for a malformed company_id', async () => {
      await addInsight('customer_signal', 'customer', acme);
      expect((await list('')).body).toMatchObject({ results: [], count: 0 });
      expect((await list(`?company_id=${company}`, tokens.outsider)).body).toMatchObject({ results: [], count: 0 });
      expect((await list('?company_id=0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a')).body.results).toEqual([]);
      const bad = await list('?company_id=acme');
      expect(bad.status).toBe(400);
      expect(bad.body.errors.company_id).toBeDefined();
      expect((await call(app, 'GET', `/api/intelligence/insights?company_id=${company}`)).status).toBe(401);
    });

    it('lists the company’s active insights newest first for a member, viewers included', async () => {
      const first = await addInsight('customer_conversation_summary', 'customer', acme);
      const second = await addInsight('invoice_pay_date_prediction', 'invoice', inv1);
      const outsiderCustomer = await addCustomer(engine, other, 'Elsewhere Inc');
      await addInsight('customer_signal', 'customer', outsiderCustomer, other, tokens.outsider);

      const res = await list(`?company_id=${company}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ count: 2, limit: 100, offset: 0 });
      expect(ids(res)).toEqual([second, first]);
      expect(res.body.results[1]).toMatchObject({
        id: first,
        company,
        target_type: 'customer',
        target_id: acme,
        customer: acme,
        invoice: null,
        insight_type: 'customer_conversation_summary',
        payload_json: SAMPLE_PAYLOADS.customer_conversation_summary,
        valid_to: null,
        is_active: true,
        my_feedback: null,
      });
      expect(ids(await list(`?company_id=${company}`, tokens.viewer))).toEqual([second, first]);
    });
  });

  describe('nothing to report', () => {
    it('reportable_only=true leaves out a signal that found nothing, a plan to only monitor and a summary of no conversation; the default still lists them with their reason', async () => {
      const post = async (insightType: InsightType, targetType: string, targetId: string, payload: Record<string, unknown>) => {
        const res = await call(app, 'POST', `/api/companies/${company}/intelligence/insights`, { token: tokens.demo, body: { target_type: targetType, target_id: targetId, insight_type: insightType, payload_json: payload } });
        expect(res.status).toBe(201);
        return res.body.id as string;
      };
      const quiet = await post('customer_signal', 'customer', acme, { entity: { type: 'customer', id: acme }, signal: null, reason: 'No change worth acting on' });
      const monitor = await post('customer_strategy_plan', 'customer', borealis, { strategy_plan: { strategy: 'monitor', summary: 'Monitor: nothing is past due' } });
      const loud = await post('invoice_signal', 'invoice', inv1, { entity: { type: 'invoice', id: inv1 }, signal: { type: 'dispute_opened', severity: 'medium', title: 'Invoice disputed', detected_at: '2026-11-20' } });
      const plan = await post('customer_strategy_plan', 'customer', acme, { strategy_plan: { strategy: 'friendly_reminder', summary: 'Friendly reminder' } });
      const silent = await post('customer_conversation_summary', 'customer', borealis, { ...SAMPLE_PAYLOADS.customer_conversation_summary, summary: '' });
      expect(new Set(ids(await list(`?company_id=${company}`)))).toEqual(new Set([quiet, monitor, loud, plan, silent]));
      const feed = await list(`?company_id=${company}&reportable_only=true`);
      expect(new Set(ids(feed))).toEqual(new Set([loud, plan]));
      expect(feed.body.count).toBe(2);
      expect((await list(`?company_id=${company}&reportable_only=maybe`)).status).toBe(400);
    });
  });

  describe('filters', () => {
    let summary: string;
    let custSignal: string;
    let invSignal: string;
    let portfolio: string;
    let prediction1: string;
    let prediction2: string;

    beforeEach(async () => {
      summary = await addInsight('customer_conversation_summary', 'customer', acme);
      custSignal = await addInsight('customer_signal', 'customer', borealis);
      invSignal = await addInsight('invoice_signal', 'invoice', inv1);
      portfolio = await addInsight('portfolio_signal', 'portfolio');
      prediction1 = await addInsight('invoice_pay_date_prediction', 'invoice', inv1);
      prediction2 = await addInsight('invoice_pay_date_prediction', 'invoice', inv2);
    });

    const q = (params: string) => list(`?company_id=${company}&${params}`);

    it('insight_type matches partially and case-insensitively: signal finds every signal type', async () => {
      expect(ids(await q('insight_type=signal'))).toEqual([portfolio, invSignal, custSignal]);
      expect(ids(await q('insight_type=PAY_DATE'))).toEqual([prediction2, prediction1]);
      expect(ids(await q('insight_type=customer_conversation_summary'))).toEqual([summary]);
      expect(ids(await q('insight_type=%25'))).toEqual([]);
    });

    it('filters by target_type, target_id, customer_id and invoice_id', async () => {
      expect(ids(await q('target_type=invoice'))).toEqual([prediction2, prediction1, invSignal]);
      expect(ids(await q('target_type=portfolio'))).toEqual([portfolio]);
      expect(ids(await q(`target_id=${inv1}`))).toEqual([prediction1, invSignal]);
      expect(ids(await q(`target_id=${company}`))).toEqual([portfolio]);
      // A customer's insights include those about its invoices.
      expect(ids(await q(`customer_id=${acme}`))).toEqual([prediction1, invSignal, summary]);
      expect(ids(await q(`invoice_id=${inv2}`))).toEqual([prediction2]);
      expect(ids(await q(`customer_id=${borealis}&insight_type=signal`))).toEqual([custSignal]);
    });

    it('answers 400 for an unknown target_type, a malformed id or active_only value', async () => {
      for (const params of ['target_type=supplier', 'customer_id=x', 'invoice_id=1', 'active_only=yes', 'limit=0', 'offset=-1']) {
        const res = await q(params);
        expect(res.status, params).toBe(400);
        expect(res.headers.get('content-type')).toContain('application/problem+json');
      }
    });

    it('pages with limit and offset, clamping limit at 500', async () => {
      const all = ids(await q(''));
      expect(all).toHaveLength(6);
      const page = await q('limit=2&offset=2');
      expect(page.body).toMatchObject({ count: 6, limit: 2, offset: 2 });
      expect(ids(page)).toEqual(all.slice(2, 4));
      expect(ids(await q('limit=2&offset=6'))).toEqual([]);
      expect((await q('limit=5000')).body.limit).toBe(500);
    });

    it('a new insight of the same type on the same target supersedes the active one; active_only=false shows both', async () => {
      const newer = await addInsight('invoice_pay_date_prediction', 'invoice', inv1);
      expect(ids(await q(`target_id=${inv1}&insight_type=pay_date`))).toEqual([newer]);
      const all = await q(`target_id=${inv1}&insight_type=pay_date&active_only=false`);
      expect(ids(all)).toEqual([newer, prediction1]);
      expect(all.body.results[1]).toMatchObject({ is_active: false, valid_to: all.body.results[0].valid_from });
      const closed = await engine.db.selectFrom('changes').select(['op', 'data']).where('command', '=', 'create_insight').where('entity_id', '=', prediction1).execute();
      expect(closed.map((c) => c.op)).toEqual(['insert', 'update']);
      // Other targets and types keep their active insight.
      expect(ids(await q(`target_id=${inv2}`))).toEqual([prediction2]);
      expect(ids(await q(`target_id=${inv1}&insight_type=invoice_signal`))).toEqual([invSignal]);
    });
  });

  describe('one insight', () => {
    it('returns the full payload to a member and 404 to anyone else or for unknown ids', async () => {
      const id = await addInsight('customer_strategy_plan', 'customer', acme);
      const res = await call(app, 'GET', `/api/intelligence/insights/${id}`, { token: tokens.demo });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id, payload_json: SAMPLE_PAYLOADS.customer_strategy_plan, is_active: true });
      const upper = await call(app, 'GET', `/api/intelligence/insights/${id.toUpperCase()}`, { token: tokens.demo });
      expect(upper.body.id).toBe(id);
      for (const [token, path] of [
        [tokens.outsider, id],
        [tokens.demo, '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a'],
        [tokens.demo, 'not-a-uuid'],
      ]) {
        const miss = await call(app, 'GET', `/api/intelligence/insights/${path}`, { token });
        expect(miss.status).toBe(404);
        expect(miss.body.code).toBe('not_found');
      }
    });
  });

  describe('feedback', () => {
    const feedback = (companyId: string, id: string, body: unknown, token = tokens.demo) =>
      call(app, 'POST', `/api/companies/${companyId}/intelligence/insights/${id}/feedback`, { token, body });

    it('keeps one record per user per insight: 201 first, 200 on overwrite, comment replaced', async () => {
      const id = await addInsight('customer_signal', 'customer', acme);
      engine.clock.set('2026-11-24T09:00:00.000Z');
      const first = await feedback(company, id, { rating: 'up', comment: 'Spot on' });
      expect(first.status).toBe(201);
      expect(first.body).toEqual({
        id: first.body.id,
        insight: id,
        rating: 'up',
        comment: 'Spot on',
        user: users.demo,
        created_at: '2026-11-24T09:00:00.000Z',
        updated_at: '2026-11-24T09:00:00.000Z',
      });

      engine.clock.set('2026-11-25T09:00:00.000Z');
      const second = await feedback(company, id, { rating: 'down' });
      expect(second.status).toBe(200);
      expect(second.body).toMatchObject({ id: first.body.id, rating: 'down', comment: null, created_at: '2026-11-24T09:00:00.000Z', updated_at: '2026-11-25T09:00:00.000Z' });

      const colleague = await feedback(company, id, { rating: 'up', comment: 'Useful' }, tokens.colleague);
      expect(colleague.status).toBe(201);

      const rows = await engine.db.selectFrom('insight_feedback').select(['user_id', 'rating']).where('insight_id', '=', id).orderBy('user_id').execute();
      expect(rows).toEqual(
        [
          { user_id: users.demo, rating: 'down' },
          { user_id: users.colleague, rating: 'up' },
        ].sort((a, b) => a.user_id.localeCompare(b.user_id)),
      );

      const mine = await call(app, 'GET', `/api/intelligence/insights/${id}`, { token: tokens.demo });
      expect(mine.body.my_feedback).toEqual({ rating: 'down', comment: null, updated_at: '2026-11-25T09:00:00.000Z' });
      const theirs = await list(`?company_id=${company}`, tokens.colleague);
      expect(theirs.body.results[0].my_feedback).toMatchObject({ rating: 'up', comment: 'Useful' });
    });

    it('validates the rating', async () => {
      const id = await addInsight('customer_signal', 'customer', acme);
      for (const body of [{}, { rating: 'meh' }, { rating: 'up', comment: 5 }]) {
        const res = await feedback(company, id, body);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validation_error');
      }
    });

    it('404 for an insight of another company or an unknown one; 403 for non-members and viewers', async () => {
      const mine = await addInsight('customer_signal', 'customer', acme);
      const outsiderCustomer = await addCustomer(engine, other, 'Elsewhere Inc');
      const theirs = await addInsight('customer_signal', 'customer', outsiderCustomer, other, tokens.outsider);
      expect((await feedback(company, theirs, { rating: 'up' })).status).toBe(404);
      expect((await feedback(company, '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a', { rating: 'up' })).status).toBe(404);
      expect((await feedback(other, theirs, { rating: 'up' })).status).toBe(403);
      expect((await feedback(company, mine, { rating: 'up' }, tokens.viewer)).status).toBe(403);
      expect(await engine.db.selectFrom('insight_feedback').select('id').where('insight_id', 'in', [mine, theirs]).execute()).toEqual([]);
    });
  });

  describe('create (extension)', () => {
    const create = (body: unknown) => call(app, 'POST', `/api/companies/${company}/intelligence/insights`, { token: tokens.demo, body });

    it('links an invoice insight to the invoice and its customer; a portfolio insight targets the company', async () => {
      const res = await create({ target_type: 'invoice', target_id: inv2, insight_type: 'invoice_conversation_summary', payload_json: SAMPLE_PAYLOADS.invoice_conversation_summary });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ target_type: 'invoice', target_id: inv2, invoice: inv2, customer: borealis, valid_from: '2026-11-23T12:00:00.000Z', valid_to: null });
      const port = await create({ target_type: 'portfolio', insight_type: 'portfolio_signal', payload_json: SAMPLE_PAYLOADS.portfolio_signal });
      expect(port.body).toMatchObject({ target_id: company, customer: null, invoice: null });
    });

    it('refuses bad payloads, unknown types, mismatched or foreign targets with 400', async () => {
      const outsiderCustomer = await addCustomer(engine, other, 'Elsewhere Inc');
      const summary = SAMPLE_PAYLOADS.customer_conversation_summary;
      const cases: Array<[unknown, string]> = [
        [{ target_type: 'customer', target_id: acme, insight_type: 'customer_conversation_summary', payload_json: { ...summary, tone: 'furious' } }, 'payload_json.tone'],
        [{ target_type: 'customer', target_id: acme, insight_type: 'customer_conversation_summary', payload_json: { ...summary, summary: 'word '.repeat(19) } }, 'payload_json.summary'],
        [{ target_type: 'invoice', target_id: inv1, insight_type: 'invoice_conversation_summary', payload_json: { ...SAMPLE_PAYLOADS.invoice_conversation_summary, stress_level: 11 } }, 'payload_json.stress_level'],
        [{ target_type: 'customer', target_id: acme, insight_type: 'churn_score', payload_json: {} }, 'insight_type'],
        [{ target_type: 'invoice', target_id: inv1, insight_type: 'customer_signal', payload_json: SAMPLE_PAYLOADS.customer_signal }, 'target_type'],
        [{ target_type: 'customer', target_id: outsiderCustomer, insight_type: 'customer_signal', payload_json: SAMPLE_PAYLOADS.customer_signal }, 'target_id'],
        [{ target_type: 'customer', insight_type: 'customer_signal', payload_json: SAMPLE_PAYLOADS.customer_signal }, 'target_id'],
        [{ target_type: 'customer', target_id: acme, insight_type: 'customer_signal', payload_json: [] }, 'payload_json'],
      ];
      for (const [body, field] of cases) {
        const res = await create(body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.errors[field], JSON.stringify(res.body)).toBeDefined();
      }
      expect((await list(`?company_id=${company}&active_only=false`)).body.count).toBe(0);
    });
  });
});
