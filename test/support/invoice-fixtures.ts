/**
 * Rows for invoice tests, written straight into the real database in recorded commands: customers,
 * team members, labels and invoices in any state (open, paid, written off...) on chosen dates.
 */
import { createApp } from '../../core/http/app';
import type { ClosingReason } from '../../core/db/schema';
import { addDays } from '../../core/dates';
import { runCommand, systemActor } from '../../core/engine';
import { newId } from '../../core/ids';
import { toMinor } from '../../core/money';
import { addCompany, addUser, type App, loginAs } from './api';
import { type TestEngine, testEngine } from './engine';

export const TODAY = '2026-11-23';

/** A due date `days` days past due as of TODAY (negative: not yet due). */
export function pastDue(days: number): string {
  return addDays(TODAY, -days);
}

export async function addTeamMember(engine: TestEngine, companyId: string, name: string, role: 'ar' | 'sales' | 'manager' = 'ar'): Promise<string> {
  const id = newId();
  await runCommand(engine, 'test_team_member', { actor: systemActor, companyId }, async (tx) => {
    const row = { id, company_id: companyId, user_id: null, name, email: null, role, is_active: 1 as const, created_at: tx.now, updated_at: tx.now };
    await tx.db.insertInto('team_members').values(row).execute();
    await tx.record('team_member', id, 'insert', row);
  });
  return id;
}

export interface CustomerFixture {
  name: string;
  isPerson?: boolean;
  arOwnerId?: string | null;
  salesOwnerId?: string | null;
  paymentTermsDays?: number;
  currency?: string;
}

export async function addCustomer(engine: TestEngine, companyId: string, fixture: CustomerFixture): Promise<string> {
  const id = newId();
  await runCommand(engine, 'test_customer', { actor: systemActor, companyId }, async (tx) => {
    const row = {
      id,
      company_id: companyId,
      name: fixture.name,
      is_person: (fixture.isPerson ? 1 : 0) as 0 | 1,
      ar_owner_id: fixture.arOwnerId ?? null,
      sales_owner_id: fixture.salesOwnerId ?? null,
      remote_id: null,
      currency: fixture.currency ?? 'USD',
      payment_terms_days: fixture.paymentTermsDays ?? 30,
      notes: null,
      created_at: tx.now,
      updated_at: tx.now,
    };
    await tx.db.insertInto('customers').values(row).execute();
    await tx.record('customer', id, 'insert', row);
  });
  return id;
}

export async function addLabel(engine: TestEngine, companyId: string, name: string, color = '#3366ff'): Promise<string> {
  const id = newId();
  await runCommand(engine, 'test_label', { actor: systemActor, companyId }, async (tx) => {
    const row = { id, company_id: companyId, name, color, created_at: tx.now, updated_at: tx.now };
    await tx.db.insertInto('labels').values(row).execute();
    await tx.record('label', id, 'insert', row);
  });
  return id;
}

export interface InvoiceFixture {
  number: string;
  dueDate: string;
  invoiceDate?: string;
  /** Major units. */
  total?: number;
  paid?: number;
  closing?: ClosingReason | null;
  closedDate?: string | null;
  labels?: string[];
}

export async function addInvoice(engine: TestEngine, companyId: string, customerId: string, fixture: InvoiceFixture): Promise<string> {
  const id = newId();
  await runCommand(engine, 'test_invoice', { actor: systemActor, companyId }, async (tx) => {
    const customer = await tx.db.selectFrom('customers').select(['name', 'currency']).where('id', '=', customerId).executeTakeFirstOrThrow();
    const total = toMinor(fixture.total ?? 100);
    const paid = toMinor(fixture.paid ?? 0);
    const row = {
      id,
      company_id: companyId,
      customer_id: customerId,
      customer_name: customer.name,
      invoice_number: fixture.number,
      invoice_date: fixture.invoiceDate ?? addDays(fixture.dueDate, -30),
      due_date: fixture.dueDate,
      currency: customer.currency,
      total_amount: total,
      paid_amount: paid,
      balance: total - paid,
      closing_reason: fixture.closing ?? null,
      closed_date: fixture.closing ? (fixture.closedDate ?? fixture.dueDate) : null,
      transaction_type: 'invoice',
      created_at: tx.now,
      updated_at: tx.now,
    };
    await tx.db.insertInto('invoices').values(row).execute();
    await tx.record('invoice', id, 'insert', row);
    for (const labelId of fixture.labels ?? []) {
      await tx.db.insertInto('invoice_labels').values({ company_id: companyId, invoice_id: id, label_id: labelId, created_at: tx.now }).execute();
    }
  });
  return id;
}

export interface InvoiceWorld {
  engine: TestEngine;
  app: App;
  company: string;
  /** A second company the user also belongs to: its ids must be 404 from the first. */
  other: string;
  token: string;
  viewerToken: string;
  dispose(): Promise<void>;
}

/** A fresh engine on TODAY at noon UTC, two companies, an owner (demo) and a viewer (watcher). */
export async function invoiceWorld(): Promise<InvoiceWorld> {
  const engine = await testEngine(`${TODAY}T12:00:00.000Z`);
  const app = createApp(engine);
  const company = await addCompany(engine, 'Acme Supply');
  const other = await addCompany(engine, 'Borealis Foods');
  await addUser(engine, 'demo', [
    [company, 'owner'],
    [other, 'owner'],
  ]);
  await addUser(engine, 'watcher', [[company, 'viewer']]);
  return { engine, app, company, other, token: await loginAs(app, 'demo'), viewerToken: await loginAs(app, 'watcher'), dispose: () => engine.dispose() };
}
