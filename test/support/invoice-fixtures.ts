/**
 * Rows for invoice tests, written straight into the real database in recorded commands: customers,
 * team members, labels and invoices in any state (open, paid, written off...) on chosen dates.
 */
import { createApp } from '../../core/http/app';
import type { ClosingReason, LabelMeaning } from '../../core/db/schema';
import { addDays } from '../../core/dates';
import { runCommand, systemActor } from '../../core/engine';
import { newId } from '../../core/ids';
import { toMinor } from '../../core/money';
import { addCompany, addUser, type App, loginAs } from './api';
import { type TestEngine, testEngine } from './engine';
import { fixture, insertCustomerRow, insertInvoiceRow, insertTeamMemberRow } from './rows';

export const TODAY = '2026-11-23';

/** A due date `days` days past due as of TODAY (negative: not yet due). */
export function pastDue(days: number): string {
  return addDays(TODAY, -days);
}

export function addTeamMember(engine: TestEngine, companyId: string, name: string, role: 'ar' | 'sales' | 'manager' = 'ar'): Promise<string> {
  return fixture(engine, companyId, (tx) => insertTeamMemberRow(tx, companyId, { name, role }));
}

export interface CustomerFixture {
  name: string;
  isPerson?: boolean;
  arOwnerId?: string | null;
  salesOwnerId?: string | null;
  paymentTermsDays?: number;
  currency?: string;
}

export function addCustomer(engine: TestEngine, companyId: string, input: CustomerFixture): Promise<string> {
  return fixture(engine, companyId, (tx) =>
    insertCustomerRow(tx, companyId, {
      name: input.name,
      is_person: input.isPerson ? 1 : 0,
      ar_owner_id: input.arOwnerId ?? null,
      sales_owner_id: input.salesOwnerId ?? null,
      currency: input.currency ?? 'USD',
      payment_terms_days: input.paymentTermsDays ?? 30,
    }),
  );
}

export async function addLabel(engine: TestEngine, companyId: string, name: string, color = '#3366ff', meaning: LabelMeaning | null = null): Promise<string> {
  const id = newId();
  await runCommand(engine, 'test_label', { actor: systemActor, companyId }, async (tx) => {
    const row = { id, company_id: companyId, name, color, meaning, created_at: tx.now, updated_at: tx.now };
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

/** An invoice in the customer's currency, issued 30 days before it is due unless `invoiceDate` is given. */
export function addInvoice(engine: TestEngine, companyId: string, customerId: string, input: InvoiceFixture): Promise<string> {
  return fixture(engine, companyId, async (tx) => {
    const id = await insertInvoiceRow(tx, companyId, customerId, {
      invoice_number: input.number,
      invoice_date: input.invoiceDate ?? addDays(input.dueDate, -30),
      due_date: input.dueDate,
      total_amount: toMinor(input.total ?? 100),
      paid_amount: toMinor(input.paid ?? 0),
      closing_reason: input.closing ?? null,
      closed_date: input.closing ? (input.closedDate ?? input.dueDate) : null,
    });
    for (const labelId of input.labels ?? []) {
      await tx.db.insertInto('invoice_labels').values({ company_id: companyId, invoice_id: id, label_id: labelId, created_at: tx.now }).execute();
    }
    return id;
  });
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
