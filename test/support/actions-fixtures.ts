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
