/**
 * Rows the action and insight tests need (customers, invoices, team members, actions in any state),
 * written straight through commands so these tests do not depend on the other areas' endpoints.
 */
import { insertMembership } from '../../core/companies/companies';
import type { ActionsTable, Role } from '../../core/db/schema';
import { runCommand, systemActor } from '../../core/engine';
import { newId } from '../../core/ids';
import type { TestEngine } from './engine';

function fixture<T>(engine: TestEngine, companyId: string, fn: Parameters<typeof runCommand<T>>[3]): Promise<T> {
  return runCommand(engine, 'test_fixture', { actor: systemActor, companyId }, fn);
}

/** Membership for an existing user: lets a suite hash passwords and log in once, then use a fresh company per test. */
export async function addMember(engine: TestEngine, companyId: string, userId: string, role: Role): Promise<void> {
  await fixture(engine, companyId, (tx) => insertMembership(tx, companyId, userId, role));
}

export async function addCustomer(engine: TestEngine, companyId: string, name: string): Promise<string> {
  return fixture(engine, companyId, async (tx) => {
    const id = newId();
    const row = { id, company_id: companyId, name, is_person: 0 as const, ar_owner_id: null, sales_owner_id: null, remote_id: null, currency: 'USD', payment_terms_days: 30, notes: null, created_at: tx.now, updated_at: tx.now };
    await tx.db.insertInto('customers').values(row).execute();
    await tx.record('customer', id, 'insert', row);
    return id;
  });
}

export async function addInvoice(engine: TestEngine, companyId: string, customerId: string, invoiceNumber: string): Promise<string> {
  return fixture(engine, companyId, async (tx) => {
    const customer = await tx.db.selectFrom('customers').select('name').where('id', '=', customerId).executeTakeFirstOrThrow();
    const id = newId();
    const row = {
      id,
      company_id: companyId,
      customer_id: customerId,
      customer_name: customer.name,
      customer_location_id: null,
      invoice_number: invoiceNumber,
      invoice_date: '2026-10-01',
      due_date: '2026-10-31',
      total_amount: 125_000,
      paid_amount: 0,
      balance: 125_000,
      currency: 'USD',
      closing_reason: null,
      closed_date: null,
      payment_link: null,
      next_follow_up_date: null,
      remote_id: null,
      transaction_type: 'invoice',
      parent_invoice_id: null,
      progress_percentage: null,
      last_touch_at: null,
      last_touched_by: null,
      created_at: tx.now,
      updated_at: tx.now,
    };
    await tx.db.insertInto('invoices').values(row).execute();
    await tx.record('invoice', id, 'insert', row);
    return id;
  });
}

export async function addTeamMember(engine: TestEngine, companyId: string, name: string, userId: string | null = null): Promise<string> {
  return fixture(engine, companyId, async (tx) => {
    const id = newId();
    const row = { id, company_id: companyId, user_id: userId, name, email: null, role: 'ar' as const, is_active: 1 as const, created_at: tx.now, updated_at: tx.now };
    await tx.db.insertInto('team_members').values(row).execute();
    await tx.record('team_member', id, 'insert', row);
    return id;
  });
}

export type ActionFixture = Partial<Omit<ActionsTable, 'metadata'>> & { customer_id: string; metadata?: Record<string, unknown> };

/** An action in any state, with any timestamps: the only way to build history rows with past dates. */
export async function addAction(engine: TestEngine, companyId: string, values: ActionFixture): Promise<string> {
  return fixture(engine, companyId, async (tx) => {
    const id = values.id ?? newId();
    const row: ActionsTable = {
      id,
      company_id: companyId,
      invoice_id: null,
      action_type: 'email',
      status: 'proposed',
      description: 'Send a friendly reminder',
      recommendation_label: null,
      trigger_event_label: null,
      is_action_required: 0,
      top_recommendation: null,
      is_ai_recommended: 1,
      response_deadline: null,
      channel_id: null,
      external_id: null,
      executed_at: null,
      executed_by: null,
      deleted_at: null,
      created_at: tx.now,
      updated_at: tx.now,
      ...values,
      metadata: JSON.stringify(values.metadata ?? {}),
    };
    await tx.db.insertInto('actions').values(row).execute();
    await tx.record('action', id, 'insert', { ...row });
    return id;
  });
}

/** One valid payload per insight_type, shaped as the spec describes. */
export const SAMPLE_PAYLOADS = {
  customer_conversation_summary: {
    summary: 'Customer confirmed receipt, awaiting AP approval, promised payment by month end',
    tone: 'cooperative',
    active_court: 'Customer',
    action: 'Follow up with AP on December 1 if unpaid',
    action_breakdown: { email: 1, call: 0 },
    last_touch: { channel: 'email', at: '2026-11-20T14:00:00Z', by: 'Dana Demo' },
    commitment_date: '2026-11-30',
    predicted_pay_date: '2026-12-02',
    evidence_trace: ['Email 2026-11-20: "We will pay by the 30th"'],
    unrelated_items: ['New product catalogue request'],
  },
  invoice_conversation_summary: {
    stress_level: 6,
    active_topic: 'Missing purchase order number',
    desired_outcome: 'Invoice approved and paid',
    blocker: 'AP needs a PO reference on the invoice',
    last_touch: { channel: 'call', at: '2026-11-19T10:00:00Z' },
  },
  customer_signal: { entity: { id: 'c1', name: 'Acme Supply' }, signal: { kind: 'payment_delay', days: 12 } },
  invoice_signal: { entity: { id: 'i1' }, signal: null, reason: 'No material change since the last review' },
  portfolio_signal: { entity: { scope: 'portfolio' }, signal: { kind: 'dso_up', delta_days: 4 } },
  invoice_pay_date_prediction: {
    predicted_date: '2026-12-05',
    basis: 'promise',
    evidence_sources: ['communication_thread', 'payment_history'],
    alternative_scenarios: [{ date: '2026-12-15', probability: 0.2 }],
  },
  customer_strategy_plan: { strategy_plan: { strategy: 'firm_reminder', email: { tone: 'firm' }, call: { when: 'day 3' }, internal: { task: 'Check PO' } } },
};
