/**
 * "Viewed but did not act" (issue 39): a customer who opened their portal link and, a week on, has
 * neither paid nor said anything gets a customer signal, and the strategy turns from another email
 * to a call. The rule on hand-made facts, then through a real database: the portal's own view
 * record, the facts read from SQLite, a refresh, the insights written.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addDays } from '../../core/dates';
import { runCommand, systemActor } from '../../core/engine';
import type { Communication, CustomerFacts } from '../../core/intelligence/facts';
import { refreshIntelligence } from '../../core/intelligence/runner';
import { customerSignal, SIGNAL_THRESHOLDS, viewedWithoutActing } from '../../core/intelligence/signals';
import { chooseStrategy } from '../../core/intelligence/strategy';
import { mintPortalLink, resolvePortalLink } from '../../core/portal/links';
import { recordView, submitPromise } from '../../core/portal/submit';
import { addCompany } from '../support/api';
import { type TestEngine, testEngine } from '../support/engine';
import { ledger } from '../support/ledger-fixtures';
import { customerFacts, openInvoice } from '../support/facts-fixtures';

const TODAY = '2026-11-23';

const invoice = openInvoice;

const inbound = (occurredAt: string): Communication => ({
  id: `c-${occurredAt}`,
  invoiceId: null,
  kind: 'email',
  direction: 'inbound',
  subject: 'Re: invoice',
  body: 'We are looking into it.',
  occurredAt,
  authorName: null,
  promiseDate: null,
  promiseAmount: null,
  reading: null,
});

const customer = customerFacts;

describe('viewed but did not act (rules)', () => {
  const idle = SIGNAL_THRESHOLDS.portalIdleDays;

  it('counts from the first look after the last word or payment, once a week has passed, while something is past due', () => {
    const first = addDays(TODAY, -idle);
    expect(viewedWithoutActing(customer({ portalViews: [first, addDays(TODAY, -2)] }), TODAY)).toEqual({ firstView: first, lastView: addDays(TODAY, -2), views: 2, overdue: 1 });
    // Not yet a week.
    expect(viewedWithoutActing(customer({ portalViews: [addDays(TODAY, -idle + 1)] }), TODAY)).toBeNull();
    // They wrote after looking, or paid something: they acted.
    expect(viewedWithoutActing(customer({ portalViews: [first], communications: [inbound(`${addDays(first, 1)}T09:00:00.000Z`)] }), TODAY)).toBeNull();
    expect(viewedWithoutActing(customer({ portalViews: [first], openInvoices: [invoice({ lastPaymentDate: addDays(first, 2) })] }), TODAY)).toBeNull();
    // A look on the day they wrote counts as acted on; a later look not acted on starts the count again.
    const wrote = addDays(TODAY, -20);
    expect(viewedWithoutActing(customer({ portalViews: [wrote], communications: [inbound(`${wrote}T15:00:00.000Z`)] }), TODAY)).toBeNull();
    expect(viewedWithoutActing(customer({ portalViews: [wrote, addDays(TODAY, -10)], communications: [inbound(`${wrote}T15:00:00.000Z`)] }), TODAY)).toMatchObject({ firstView: addDays(TODAY, -10), views: 1 });
    // Nothing past due: looking is all there is to do.
    expect(viewedWithoutActing(customer({ portalViews: [first], openInvoices: [invoice({ dueDate: addDays(TODAY, 5) })] }), TODAY)).toBeNull();
    // Facts made without a portal.
    expect(viewedWithoutActing(customer({ portalViews: undefined }), TODAY)).toBeNull();
  });

  it('raises the customer signal and turns the strategy from another email to a call', () => {
    const looked = customer({ portalViews: [addDays(TODAY, -10)] });
    const without = customer();
    const signalOf = (c: CustomerFacts) => customerSignal({ customer: c, daysLate: [], brokenPromises: [], today: TODAY }).payload.signal as { type: string; severity: string; description: string; detected_at: string } | null;
    expect(signalOf(without)).toBeNull();
    expect(signalOf(looked)).toMatchObject({
      type: 'viewed_without_acting',
      severity: 'medium',
      description: 'Harbor Foods opened the payment portal on November 13, 2026 and has not paid, promised or written since, while 1 invoice is past due.',
      detected_at: addDays(TODAY, -10 + idle),
    });
    const strategy = (c: CustomerFacts, viewedIdleSince: string | null) => chooseStrategy({ customer: c, tone: 'unknown', promise: null, brokenPromise: false, silent: false, viewedIdleSince, today: TODAY });
    expect(strategy(without, null).key).toBe('friendly_reminder');
    expect(strategy(looked, addDays(TODAY, -10))).toEqual({ key: 'change_channel', reasons: ['Opened the payment portal on November 13, 2026 and has not acted since', '$1,000.00 overdue'] });
    // A dispute or a promise still comes first: the look changes nothing there.
    expect(strategy(customer({ openInvoices: [invoice({ disputed: true })] }), addDays(TODAY, -10)).key).toBe('resolve_dispute');
  });
});

describe('viewed but did not act (through a real database)', () => {
  let engine: TestEngine;
  beforeEach(async () => {
    engine = await testEngine(`${addDays(TODAY, -10)}T12:00:00.000Z`);
  });
  afterEach(() => engine.dispose());

  const active = (companyId: string, type: string) =>
    (engine.database.sqlite.prepare('SELECT payload_json FROM insights WHERE company_id = ? AND insight_type = ? AND valid_to IS NULL').all(companyId, type) as Array<{ payload_json: string }>).map((r) => JSON.parse(r.payload_json));

  it('a look at the portal ten days ago with nothing since makes the plan a call; a promise made there puts it on hold', async () => {
    const worlds = [];
    for (const name of ['Looked', 'Never looked']) {
      const company = await addCompany(engine, name);
      const l = ledger(engine, company);
      const customerId = await l.customer({ name: `${name} Ltd`, contacts: [{ name: 'Pat', email: 'ap@customer.test', phone: '+1 555 0100', is_billing: true }] });
      const open = await l.invoice({ customer: customerId, number: `${name[0]}-1`, total: 250, dueDate: '2026-10-31' });
      worlds.push({ company, customerId, open });
    }
    const [looked, never] = worlds;
    const minted = await runCommand(engine, 'mint', { actor: systemActor, companyId: looked.company }, (tx) => mintPortalLink(tx, looked.company, looked.customerId));
    const link = (await resolvePortalLink(engine.db, minted.token, engine.clock.now().toISOString()))!;
    await recordView(engine, link, addDays(TODAY, -10));

    engine.clock.set(`${TODAY}T12:00:00.000Z`);
    for (const w of worlds) await refreshIntelligence(engine, w.company);
    expect(active(looked.company, 'customer_signal')[0].signal).toMatchObject({ type: 'viewed_without_acting', detected_at: addDays(TODAY, -10 + SIGNAL_THRESHOLDS.portalIdleDays) });
    expect(active(never.company, 'customer_signal')[0].signal?.type).not.toBe('viewed_without_acting');
    expect(active(looked.company, 'customer_strategy_plan')[0].strategy_plan).toMatchObject({ strategy: 'change_channel', reasoning: ['Opened the payment portal on November 13, 2026 and has not acted since', '$250.00 overdue'] });
    expect(active(never.company, 'customer_strategy_plan')[0].strategy_plan.strategy).toBe('friendly_reminder');
    // The look is no contact: the overdue invoice is chased as if it had not happened, and no summary quotes it.
    const proposed = (w: { company: string; open: string }) =>
      (engine.database.sqlite.prepare("SELECT trigger_key FROM actions WHERE company_id = ? AND status = 'proposed' ORDER BY trigger_key").all(w.company) as Array<{ trigger_key: string }>).map((a) =>
        a.trigger_key.replace(w.open, 'OPEN'),
      );
    expect(proposed(looked)).toEqual(proposed(never));
    expect(proposed(looked)).toEqual([expect.stringMatching(/^past_due_no_touch:OPEN:1_30/)]);
    expect(JSON.stringify(active(looked.company, 'customer_conversation_summary'))).not.toContain('portal');

    // The customer comes back and promises a date on the portal: that is acting.
    await submitPromise(engine, { ...link, viewedOn: TODAY }, { invoiceIds: [looked.open], date: addDays(TODAY, 7), amount: null, message: null });
    await refreshIntelligence(engine, looked.company);
    expect(active(looked.company, 'customer_signal')[0].signal?.type).not.toBe('viewed_without_acting');
    expect(active(looked.company, 'customer_strategy_plan')[0].strategy_plan.strategy).toBe('hold_for_promise');
  });
});
