import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../core/http/app';
import { LAST_TOUCH_QUIET_DAYS } from '../../core/sequences/rules';
import { ACTION_TYPES, CATEGORIES } from '../../renderer/src/actions/labels';
import { CALL_OUTCOMES } from '../../renderer/src/components/callOutcomes';
import { servedDocument } from '../support/api-client';
import { SORTS } from '../../renderer/src/desk/filters';
import { PAYMENT_STATUS_WORDS } from '../../renderer/src/desk/payments';
import { INSIGHT_TARGETS } from '../../renderer/src/insights/describe';
import { CHANNELS, holdWords, QUEUE_CATEGORIES } from '../../renderer/src/queue/words';
import { ENROLLMENT_FILTERS, SEQUENCE_STATUSES, STEP_TYPES } from '../../renderer/src/sequences/words';
import { IMPORT_STATUS_WORDS, IMPORT_STATUSES } from '../../renderer/src/settings/import-mapping';
import { addCompany, addUser, call, loginAs } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';

type Json = Record<string, any>;

/**
 * The options the app's pages offer, against the enums of the server's own OpenAPI document (built
 * from the zod schemas the routes validate with): a value the server adds, renames or drops fails
 * here, not as a refused request in a collector's hands.
 */
describe("the app's options are the server's enums", () => {
  let doc: Json;
  beforeAll(async () => {
    doc = (await servedDocument()) as Json;
  });

  const values = (schema: Json): string[] => (schema.enum ?? []).filter((v: unknown) => v !== null);
  const query = (path: string, name: string) => values(doc.paths[path].get.parameters.find((p: Json) => p.in === 'query' && p.name === name).schema);
  const field = (component: string, name: string) => values(doc.components.schemas[component].properties[name]);
  const same = (offered: readonly string[], server: string[]) => expect([...offered].sort()).toEqual([...server].sort());

  it('the import wizard offers every payment status the server has, and only those', () => {
    expect(field('Payment', 'status')).toEqual(['PAID', 'PARTIAL', 'PENDING', 'FAILED', 'VOIDED']);
    same(IMPORT_STATUSES, field('Payment', 'status'));
    same(Object.keys(IMPORT_STATUS_WORDS), field('Payment', 'status'));
    same(Object.keys(PAYMENT_STATUS_WORDS), field('Payment', 'status'));
  });

  it("the actions page's tabs and type filter", () => {
    same([...CATEGORIES, 'alternatives'], query('/api/companies/{company_id}/actions', 'category'));
    same(ACTION_TYPES, field('Action', 'action_type'));
  });

  it("the queue's tabs and channel filter, the sequences' status and step type, the enrollments' filter", () => {
    same(QUEUE_CATEGORIES, query('/api/companies/{company_id}/sequences/queue', 'category'));
    same(CHANNELS, field('ScheduledStep', 'step_type'));
    same(STEP_TYPES, field('SequenceStep', 'step_type'));
    same(SEQUENCE_STATUSES, field('Sequence', 'status'));
    same(ENROLLMENT_FILTERS, query('/api/companies/{company_id}/sequence-enrollments', 'status'));
  });

  it("a logged call's outcomes", () => {
    same(CALL_OUTCOMES, field('NewCommunication', 'outcome'));
  });

  it("the insights feed's target filter and the desk's sort keys", () => {
    same(INSIGHT_TARGETS, query('/api/intelligence/insights', 'target_type'));
    expect(query('/api/companies/{company_id}/invoices', 'sort')).toEqual(expect.arrayContaining([...SORTS]));
  });
});

describe("the queue's quiet days come from the core", () => {
  let engine: TestEngine;
  afterAll(() => engine?.dispose());

  it('the queue list carries LAST_TOUCH_QUIET_DAYS, and a held row names it', async () => {
    engine = await testEngine('2026-11-23T12:00:00.000Z');
    const app = createApp(engine);
    const company = await addCompany(engine, 'Home');
    await addUser(engine, 'demo', [[company, 'owner']]);
    const token = await loginAs(app, 'demo');
    const res = await call(app, 'GET', `/api/companies/${company}/sequences/queue?category=upcoming`, { token });
    expect(res.status).toBe(200);
    expect(res.body.quiet_days).toBe(LAST_TOUCH_QUIET_DAYS);
    expect(holdWords({ hold_reason: 'recent_contact', pause_reason: null }, res.body.quiet_days)).toBe(`Held: the customer was contacted by hand in the last ${LAST_TOUCH_QUIET_DAYS} days`);
  });
});
