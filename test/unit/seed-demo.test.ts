import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, daysBetween } from '../../core/dates';
import { followPromises } from '../../core/promises/followup';
import { customerPromises } from '../../core/promises/rates';
import type { ClosingReason } from '../../core/db/schema';
import { INSIGHT_TYPE_NAMES, type InsightType, validateInsightPayload, wordCount } from '../../core/insights/payloads';
import { agingBucket, CONCRETE_STATUSES, invoiceStatus, AGING_BUCKETS } from '../../core/invoices/status';
import { seedDatabase, seedDemo, type SeedReport } from '../../core/seed';
import { unknownPlaceholders } from '../../core/sequences/templates';
import { type TestEngine, testEngine } from '../support/engine';

type Row = Record<string, any>;

describe('the demo workspace', () => {
  let engine: TestEngine;
  let report: SeedReport;
  let first: string;
  let second: string;
  const all = (sql: string, ...params: unknown[]) => engine.database.sqlite.prepare(sql).all(...params) as Row[];
  const one = (sql: string, ...params: unknown[]) => engine.database.sqlite.prepare(sql).get(...params) as Row;

  beforeAll(async () => {
    engine = await testEngine('2026-11-23T12:00:00.000Z');
    report = await seedDemo(engine);
    [first, second] = report.companies.map((c) => c.id);
  });
  afterAll(() => engine.dispose());

  it('has two companies, demo in both and outsider in the second only', () => {
    expect(report.companies.map((c) => c.name)).toEqual(['Acme Industrial Supply', 'Bluebird Catering Co.']);
    const members = all(`SELECT u.username, m.company_id, m.role FROM memberships m JOIN users u ON u.id = m.user_id ORDER BY u.username, m.role`);
    expect(members.filter((m) => m.username === 'demo').map((m) => m.company_id).sort()).toEqual([first, second].sort());
    expect(members.filter((m) => m.username === 'outsider').map((m) => m.company_id)).toEqual([second]);
  });

  it('gives the first company at least 40 customers, companies and persons, each with a billing email, a location and a remote id', () => {
    const customers = all(`SELECT * FROM customers WHERE company_id = ?`, first);
    expect(customers.length).toBeGreaterThanOrEqual(40);
    expect(customers.some((c) => c.is_person === 1)).toBe(true);
    expect(customers.some((c) => c.is_person === 0)).toBe(true);
    expect(new Set(customers.map((c) => c.remote_id)).size).toBe(customers.length);
    expect(customers.filter((c) => c.ar_owner_id !== null).length).toBeGreaterThan(customers.length * 0.8);
    expect(customers.filter((c) => c.sales_owner_id !== null).length).toBeGreaterThan(customers.length * 0.7);
    const billing = all(`SELECT customer_id, email FROM customer_contacts WHERE company_id = ? AND is_billing = 1`, first);
    expect(billing).toHaveLength(customers.length);
    for (const b of billing) expect(b.email).toMatch(/^[a-z.']+@([a-z0-9-]+\.)?example\.com$/);
    expect(one(`SELECT count(DISTINCT customer_id) AS n FROM customer_locations WHERE company_id = ?`, first).n).toBe(customers.length);
    const owners = all(`SELECT role, count(*) AS n FROM team_members WHERE company_id = ? GROUP BY role ORDER BY role`, first);
    expect(owners.map((o) => o.role)).toEqual(['ar', 'manager', 'sales']);
  });

  it('holds at least 300 realistic invoices over every status and aging bucket', () => {
    const invoices = all(`SELECT * FROM invoices WHERE company_id = ?`, first);
    expect(invoices.length).toBeGreaterThanOrEqual(300);
    const today = '2026-11-23';
    const statuses = new Set(invoices.map((i) => invoiceStatus(i as { due_date: string; closing_reason: ClosingReason | null }, today)));
    expect([...statuses].sort()).toEqual([...CONCRETE_STATUSES].sort());
    const open = invoices.filter((i) => i.closing_reason === null);
    expect(new Set(open.map((i) => agingBucket(i as { due_date: string; closing_reason: null }, today)))).toEqual(new Set(AGING_BUCKETS));
    for (const i of invoices) {
      expect(i.invoice_number).toMatch(/^INV-\d{5}$/);
      expect(i.total_amount).toBeGreaterThanOrEqual(18_000);
      expect(i.total_amount).toBeLessThanOrEqual(4_800_000);
      expect([30, 45]).toContain(daysBetween(i.invoice_date, i.due_date));
      expect(i.invoice_date <= today).toBe(true);
    }
    expect(new Set(invoices.map((i) => i.total_amount % 100)).size).toBeGreaterThan(50);
    const children = invoices.filter((i) => i.parent_invoice_id !== null);
    expect(children.length).toBeGreaterThan(0);
    for (const child of children) {
      const parent = invoices.find((i) => i.id === child.parent_invoice_id)!;
      expect(parent.customer_id).toBe(child.customer_id);
      expect(child.progress_percentage).toBeGreaterThan(0);
      expect(child.progress_percentage).toBeLessThanOrEqual(100);
    }
  });

  it('covers every status and aging bucket whatever the date', async () => {
    for (const now of ['2024-02-29T09:00:00.000Z', '2031-07-04T23:30:00.000Z']) {
      const other = await testEngine(now);
      try {
        const seeded = await seedDemo(other);
        const today = now.slice(0, 10);
        const rows = other.database.sqlite.prepare(`SELECT due_date, closing_reason FROM invoices WHERE company_id = ?`).all(seeded.companies[0].id) as Array<{
          due_date: string;
          closing_reason: ClosingReason | null;
        }>;
        expect(new Set(rows.map((r) => invoiceStatus(r, today))).size).toBe(CONCRETE_STATUSES.length);
        expect(new Set(rows.filter((r) => !r.closing_reason).map((r) => agingBucket(r, today))).size).toBe(AGING_BUCKETS.length);
      } finally {
        await other.dispose();
      }
    }
  });

  it('has a payment history across methods and statuses', () => {
    const methods = all(`SELECT DISTINCT payment_method AS m FROM payments WHERE company_id = ?`, first).map((r) => r.m);
    expect(methods.sort()).toEqual(['ACH', 'CHECK', 'CREDIT_CARD', 'WIRE']);
    const statuses = all(`SELECT DISTINCT status AS s FROM payments WHERE company_id = ?`, first).map((r) => r.s);
    for (const s of ['PAID', 'PARTIAL', 'PENDING', 'FAILED']) expect(statuses).toContain(s);
  });

  it('labels invoices with at least four labels', () => {
    const used = all(`SELECT l.name, count(*) AS n FROM invoice_labels il JOIN labels l ON l.id = il.label_id WHERE il.company_id = ? GROUP BY l.name`, first);
    for (const name of ['Disputed', 'Promise to pay', 'Escalated', 'VIP']) expect(used.find((u) => u.name === name)?.n).toBeGreaterThan(0);
  });

  it('has email connections, the default one on the loopback relay with an encrypted password', () => {
    const connections = all(`SELECT * FROM email_connections WHERE company_id = ?`, first);
    expect(connections.length).toBeGreaterThanOrEqual(2);
    const def = connections.find((c) => c.is_default === 1)!;
    expect(def).toMatchObject({ smtp_host: '127.0.0.1', smtp_port: 2525, is_active: 1 });
    expect(def.smtp_password_enc).not.toContain('demo-smtp-password');
    expect(engine.secrets.decrypt(def.smtp_password_enc)).toBe('demo-smtp-password');
  });

  it('has an active sequence of reminder, call and task steps, with enrollments and scheduled steps in several states', () => {
    const sequences = all(`SELECT * FROM sequences WHERE company_id = ?`, first);
    const active = sequences.find((s) => s.status === 'active')!;
    expect(sequences.map((s) => s.status).sort()).toEqual(['active', 'archived', 'draft']);
    const steps = all(`SELECT * FROM sequence_steps WHERE sequence_id = ? ORDER BY position`, active.id);
    expect(steps.length).toBeGreaterThanOrEqual(3);
    expect(new Set(steps.map((s) => s.step_type))).toEqual(new Set(['reminder', 'call', 'task']));
    expect(steps[0].subject_template).toContain('{{invoice_number}}');
    for (const s of steps) for (const t of [s.subject_template, s.body_plain_template, s.body_html_template, s.instructions]) expect(unknownPlaceholders(t)).toEqual([]);
    const enrollments = all(`SELECT status FROM sequence_enrollments WHERE sequence_id = ?`, active.id).map((e) => e.status);
    expect(new Set(enrollments)).toEqual(new Set(['active', 'completed']));
    const states = new Set(all(`SELECT status FROM scheduled_steps WHERE company_id = ?`, first).map((s) => s.status));
    for (const s of ['scheduled', 'ready', 'sent', 'completed', 'cancelled', 'failed']) expect(states).toContain(s);
    const sent = all(`SELECT s.email_subject, m.subject FROM scheduled_steps s JOIN communications m ON m.id = s.communication_id WHERE s.status = 'sent'`);
    expect(sent.length).toBeGreaterThan(0);
    for (const s of sent) {
      expect(s.email_subject).toBe(s.subject);
      expect(s.subject).toMatch(/INV-\d{5}/);
    }
  });

  it('has promises judged as the daily follow-up judges them, kept and broken, so the kept rate reads a figure, and none of them an item in today\'s inbox', async () => {
    const judged = (company: string, outcome: string) => one(`SELECT count(*) AS n FROM promise_followups WHERE company_id = ? AND outcome = ?`, company, outcome).n as number;
    expect(judged(first, 'kept')).toBeGreaterThan(0);
    expect(judged(first, 'broken')).toBeGreaterThan(0);
    // The second company's curated customers paid late in full only twice in the window: both kept.
    expect(judged(second, 'kept')).toBeGreaterThan(0);
    expect(one(`SELECT count(*) AS n FROM promise_followups WHERE action_id IS NOT NULL`).n).toBe(0);
    // Nothing left to judge: the follow-up at the first start finds every past promise done.
    for (const company of [first, second]) expect(await followPromises(engine, company)).toEqual({ kept: 0, broken: 0, void: 0, items: 0 });
    // Each promise judged against the payments the ledger holds: kept ones paid by their day plus the grace, broken ones after.
    const rows = all(`SELECT f.outcome, f.promised_date, (SELECT max(p.payment_date) FROM payments p WHERE p.invoice_id = f.invoice_id AND p.status = 'PAID') AS paid_on FROM promise_followups f`);
    for (const r of rows) expect(r.paid_on <= addDays(r.promised_date, 3), `${r.outcome} promise of ${r.promised_date} paid ${r.paid_on}`).toBe(r.outcome === 'kept');
    const customer = one(`SELECT customer_id FROM promise_followups WHERE company_id = ? LIMIT 1`, first).customer_id as string;
    expect((await customerPromises(engine.db, first, customer)).kept_rate).not.toBeNull();
  });

  it('has actions in every state, with their approval log and one soft-deleted', () => {
    const actions = all(`SELECT * FROM actions WHERE company_id = ?`, first);
    expect(new Set(actions.map((a) => a.status))).toEqual(new Set(['proposed', 'scheduled', 'processing', 'completed', 'cancelled']));
    expect(actions.some((a) => a.status === 'proposed' && a.is_action_required === 1 && a.is_ai_recommended === 1)).toBe(true);
    expect(actions.some((a) => a.status === 'proposed' && a.top_recommendation === 'wait_for_customer')).toBe(true);
    expect(actions.filter((a) => a.deleted_at !== null)).toHaveLength(1);
    for (const a of actions.filter((x) => x.status === 'completed')) expect(a.executed_at).not.toBeNull();
    const operations = new Set(all(`SELECT operation FROM action_approvals WHERE company_id = ?`, first).map((r) => r.operation));
    expect(operations).toEqual(new Set(['approve', 'reject', 'cancel', 'send', 'complete']));
    for (const a of actions.filter((x) => x.status === 'processing')) expect(JSON.parse(a.metadata).final_content).toEqual(expect.any(String));
  });

  it('has insights of every type, each payload shaped as the spec describes', () => {
    const insights = all(`SELECT * FROM insights WHERE company_id = ?`, first);
    expect(new Set(insights.map((i) => i.insight_type))).toEqual(new Set(INSIGHT_TYPE_NAMES));
    for (const i of insights) {
      const payload = JSON.parse(i.payload_json);
      expect(() => validateInsightPayload(i.insight_type as InsightType, i.target_type, payload), `${i.insight_type} ${i.payload_json}`).not.toThrow();
      if (i.insight_type === 'customer_conversation_summary') expect(wordCount(payload.summary)).toBeLessThanOrEqual(18);
    }
    const signals = insights.filter((i) => i.insight_type.endsWith('_signal')).map((i) => JSON.parse(i.payload_json));
    expect(signals.some((s) => s.signal === null && typeof s.reason === 'string')).toBe(true);
    expect(signals.some((s) => s.signal !== null)).toBe(true);
    expect(insights.some((i) => i.valid_to !== null)).toBe(true);
    expect(one(`SELECT count(*) AS n FROM insight_feedback WHERE company_id = ?`, first).n).toBeGreaterThan(0);
  });

  it('takes its insights and AI proposals from the intelligence engine, each with evidence', () => {
    const insights = all(`SELECT id, evidence FROM insights WHERE company_id = ?`, first);
    for (const i of insights) expect(JSON.parse(i.evidence).length, i.id).toBeGreaterThan(0);
    const written = new Set(all(`SELECT entity_id FROM changes WHERE company_id = ? AND command = 'refresh_intelligence' AND entity = 'insight' AND op = 'insert'`, first).map((r) => r.entity_id));
    expect(insights.every((i) => written.has(i.id))).toBe(true);
    const proposals = all(`SELECT evidence FROM actions WHERE company_id = ? AND trigger_key IS NOT NULL`, first);
    expect(proposals.length).toBeGreaterThan(0);
    for (const p of proposals) expect(JSON.parse(p.evidence).length).toBeGreaterThan(0);
  });

  it('has communications that are the last touch of their invoices (contact with the customer, not an internal note)', () => {
    const kinds = new Set(all(`SELECT kind FROM communications WHERE company_id = ?`, first).map((r) => r.kind));
    expect(kinds).toEqual(new Set(['email', 'call', 'note']));
    const touched = all(
      `SELECT i.last_touch_at, (SELECT max(occurred_at) FROM communications c WHERE c.invoice_id = i.id AND c.direction <> 'internal') AS latest,
              (SELECT max(executed_at) FROM actions a WHERE a.invoice_id = i.id AND a.action_type <> 'task') AS executed
       FROM invoices i WHERE i.company_id = ? AND i.last_touch_at IS NOT NULL`,
      first,
    );
    expect(touched.length).toBeGreaterThanOrEqual(10);
    for (const t of touched) expect(t.last_touch_at).toBe([t.latest, t.executed].filter(Boolean).sort().at(-1));
    expect(one(`SELECT max(occurred_at) AS m FROM communications`).m < '2026-11-23T12:00:00.000Z').toBe(true);
  });

  it('keeps weekly aging snapshots for the last twelve weeks', () => {
    const snapshots = all(`SELECT * FROM aging_snapshots WHERE company_id = ? ORDER BY snapshot_date`, first);
    expect(snapshots).toHaveLength(12);
    expect(snapshots.at(-1)!.snapshot_date).toBe('2026-11-16');
    for (const s of snapshots) expect(s.total_amount).toBe(s.current_amount + s.d1_30_amount + s.d31_60_amount + s.d61_90_amount + s.d91_over_amount);
  });

  it('gives the second company a smaller ledger', () => {
    expect(one(`SELECT count(*) AS n FROM customers WHERE company_id = ?`, second).n).toBe(8);
    expect(one(`SELECT count(*) AS n FROM invoices WHERE company_id = ?`, second).n).toBe(40);
    expect(one(`SELECT count(*) AS n FROM email_connections WHERE company_id = ? AND is_default = 1`, second).n).toBe(1);
  });

  it('keeps every foreign key', () => {
    expect(engine.database.sqlite.pragma('foreign_key_check')).toEqual([]);
  });

  it('is refused on a workspace that already has users, leaving it untouched', async () => {
    await expect(seedDemo(engine)).rejects.toMatchObject({ status: 409, code: 'already_initialized' });
    expect(one(`SELECT count(*) AS n FROM companies`).n).toBe(2);
  });

  it('puts a larger ledger into the first company when asked', async () => {
    const other = await testEngine();
    try {
      const seeded = await seedDatabase(other, { demo: true, invoices: 2_000, customers: 300 });
      expect(seeded.companies[0].ledger).toMatchObject({ invoices: 2_000, customers: 300 });
      expect(seeded.companies[1].ledger).toMatchObject({ invoices: 40, customers: 8 });
      const small = await testEngine();
      try {
        // The demo never shrinks below its own sizes.
        const minimal = await seedDatabase(small, { demo: true, invoices: 10, customers: 5 });
        expect(minimal.companies[0].ledger).toMatchObject({ invoices: 360, customers: 48 });
      } finally {
        await small.dispose();
      }
    } finally {
      await other.dispose();
    }
  });
});
