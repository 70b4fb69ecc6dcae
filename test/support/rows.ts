/**
 * Row writers shared by the area fixtures (actions, invoices, ledger, reminders, sequences, activity):
 * each fills the columns a test does not care about, writes the row inside the caller's command and
 * records it, so a table's shape is spelled out once for all tests. The area fixtures keep their
 * own inputs and defaults and call these.
 */
import type { Insertable } from 'kysely';
import { insertMembership } from '../../core/companies/companies';
import type { ActionsTable, CommunicationsTable, CustomersTable, InvoicesTable, Role, TeamMemberRole } from '../../core/db/schema';
import { type CommandTx, type Engine, runCommand, systemActor } from '../../core/engine';
import { newId } from '../../core/ids';

type FixtureEngine = Pick<Engine, 'db' | 'clock'>;

/** Runs `fn` as one recorded system command in the company. */
export function fixture<T>(engine: FixtureEngine, companyId: string, fn: (tx: CommandTx) => Promise<T>): Promise<T> {
  return runCommand(engine, 'test_fixture', { actor: systemActor, companyId }, fn);
}

/** Membership for an existing user: lets a suite hash passwords and log in once, then use a fresh company per test. */
export async function addMember(engine: FixtureEngine, companyId: string, userId: string, role: Role): Promise<void> {
  await fixture(engine, companyId, (tx) => insertMembership(tx, companyId, userId, role));
}

export async function insertTeamMemberRow(tx: CommandTx, companyId: string, fields: { name: string; role?: TeamMemberRole; user_id?: string | null }): Promise<string> {
  const row = { id: newId(), company_id: companyId, user_id: fields.user_id ?? null, name: fields.name, email: null, role: fields.role ?? 'ar', is_active: 1 as const, created_at: tx.now, updated_at: tx.now };
  await tx.db.insertInto('team_members').values(row).execute();
  await tx.record('team_member', row.id, 'insert', row);
  return row.id;
}

export type CustomerRow = Partial<Omit<Insertable<CustomersTable>, 'id' | 'company_id'>> & { name: string };

/** A company customer in USD on 30-day terms unless `fields` say otherwise. */
export async function insertCustomerRow(tx: CommandTx, companyId: string, fields: CustomerRow): Promise<string> {
  const row = {
    id: newId(),
    company_id: companyId,
    is_person: 0 as const,
    ar_owner_id: null,
    sales_owner_id: null,
    remote_id: null,
    currency: 'USD',
    payment_terms_days: 30,
    notes: null,
    created_at: tx.now,
    updated_at: tx.now,
    ...fields,
  };
  await tx.db.insertInto('customers').values(row).execute();
  await tx.record('customer', row.id, 'insert', row);
  return row.id;
}

export async function insertBillingContactRow(tx: CommandTx, companyId: string, customerId: string, contact: { name: string; email: string }): Promise<string> {
  const row = { id: newId(), company_id: companyId, customer_id: customerId, name: contact.name, email: contact.email, phone: null, title: null, is_billing: 1 as const, created_at: tx.now, updated_at: tx.now };
  await tx.db.insertInto('customer_contacts').values(row).execute();
  await tx.record('customer_contact', row.id, 'insert', row);
  return row.id;
}

export type InvoiceRow = Partial<Omit<Insertable<InvoicesTable>, 'id' | 'company_id' | 'customer_id' | 'customer_name'>> &
  Pick<Insertable<InvoicesTable>, 'invoice_number' | 'invoice_date' | 'due_date' | 'total_amount'>;

/**
 * An invoice of the customer (amounts in cents): unpaid unless `paid_amount` is given, the balance
 * what is left, in the customer's currency unless `currency` is given, customer_name copied as the
 * invoices area does.
 */
export async function insertInvoiceRow(tx: CommandTx, companyId: string, customerId: string, fields: InvoiceRow): Promise<string> {
  const customer = await tx.db.selectFrom('customers').select(['name', 'currency']).where('id', '=', customerId).executeTakeFirstOrThrow();
  const paid = fields.paid_amount ?? 0;
  const row = {
    id: newId(),
    company_id: companyId,
    customer_id: customerId,
    customer_name: customer.name,
    currency: customer.currency,
    paid_amount: paid,
    balance: fields.total_amount - paid,
    closing_reason: null,
    closed_date: null,
    transaction_type: 'invoice',
    created_at: tx.now,
    updated_at: tx.now,
    ...fields,
  };
  await tx.db.insertInto('invoices').values(row).execute();
  await tx.record('invoice', row.id, 'insert', row);
  return row.id;
}

export type ActionFixture = Partial<Omit<ActionsTable, 'metadata'>> & { customer_id: string; metadata?: Record<string, unknown> };

/** An action in any state, with any timestamps: the only way to build history rows with past dates. */
export async function insertActionRow(tx: CommandTx, companyId: string, values: ActionFixture): Promise<string> {
  const row: ActionsTable = {
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
    evidence: '[]',
    trigger_key: null,
    value_at_risk: null,
    ...values,
    id: values.id ?? newId(),
    metadata: JSON.stringify(values.metadata ?? {}),
  };
  await tx.db.insertInto('actions').values(row).execute();
  await tx.record('action', row.id, 'insert', { ...row });
  return row.id;
}

export type CommunicationRow = Partial<Omit<Insertable<CommunicationsTable>, 'id' | 'company_id'>> & Pick<Insertable<CommunicationsTable>, 'customer_id' | 'kind' | 'occurred_at'>;

/** A communication with the customer, outbound unless `fields` say otherwise. */
export async function insertCommunicationRow(tx: CommandTx, companyId: string, fields: CommunicationRow): Promise<string> {
  const row = {
    id: newId(),
    company_id: companyId,
    invoice_id: null,
    direction: 'outbound' as const,
    subject: null,
    body: null,
    author_user_id: null,
    author_name: null,
    email_connection_id: null,
    message_id: null,
    created_at: tx.now,
    ...fields,
  };
  await tx.db.insertInto('communications').values(row).execute();
  await tx.record('communication', row.id, 'insert', row);
  return row.id;
}
