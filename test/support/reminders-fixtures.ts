/**
 * Rows the reminder tests need (customers with a billing contact, invoices, an email connection
 * pointing at the loopback SMTP server), written straight through commands so these tests do not
 * depend on the other areas' endpoints.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fixedClock } from '../../core/clock';
import { insertMembership } from '../../core/companies/companies';
import type { ClosingReason, Role } from '../../core/db/schema';
import { createEngine, type Engine, runCommand, systemActor } from '../../core/engine';
import { newId } from '../../core/ids';
import { coreJobHandlers } from '../../core/jobs/handlers';
import { createWorker } from '../../core/jobs/worker';

type Fixture = Pick<Engine, 'db' | 'clock' | 'secrets'>;

function fixture<T>(engine: Fixture, companyId: string, fn: Parameters<typeof runCommand<T>>[3]): Promise<T> {
  return runCommand(engine, 'test_fixture', { actor: systemActor, companyId }, fn);
}

/** Membership for an existing user, so a suite logs in once and uses fresh companies per test. */
export async function addMember(engine: Fixture, companyId: string, userId: string, role: Role): Promise<void> {
  await fixture(engine, companyId, (tx) => insertMembership(tx, companyId, userId, role));
}

/** A customer, with a billing contact when `billingEmail` is given. */
export async function addBillingCustomer(engine: Fixture, companyId: string, name: string, billingEmail: string | null, contactName = 'Pat Payables'): Promise<string> {
  return fixture(engine, companyId, async (tx) => {
    const id = newId();
    const row = { id, company_id: companyId, name, is_person: 0 as const, ar_owner_id: null, sales_owner_id: null, remote_id: null, currency: 'USD', payment_terms_days: 30, notes: null, created_at: tx.now, updated_at: tx.now };
    await tx.db.insertInto('customers').values(row).execute();
    await tx.record('customer', id, 'insert', row);
    if (billingEmail !== null) {
      const contact = { id: newId(), company_id: companyId, customer_id: id, name: contactName, email: billingEmail, phone: null, title: null, is_billing: 1 as const, created_at: tx.now, updated_at: tx.now };
      await tx.db.insertInto('customer_contacts').values(contact).execute();
      await tx.record('customer_contact', contact.id, 'insert', contact);
    }
    return id;
  });
}

export interface InvoiceFixture {
  number: string;
  total?: number;
  paid?: number;
  invoiceDate?: string;
  dueDate?: string;
  currency?: string;
  closingReason?: ClosingReason | null;
  paymentLink?: string | null;
}

/** An invoice; amounts in cents. */
export async function addReminderInvoice(engine: Fixture, companyId: string, customerId: string, input: InvoiceFixture): Promise<string> {
  return fixture(engine, companyId, async (tx) => {
    const customer = await tx.db.selectFrom('customers').select('name').where('id', '=', customerId).executeTakeFirstOrThrow();
    const total = input.total ?? 125_000;
    const paid = input.paid ?? 0;
    const id = newId();
    const row = {
      id,
      company_id: companyId,
      customer_id: customerId,
      customer_name: customer.name,
      customer_location_id: null,
      invoice_number: input.number,
      invoice_date: input.invoiceDate ?? '2026-10-01',
      due_date: input.dueDate ?? '2026-10-31',
      total_amount: total,
      paid_amount: paid,
      balance: total - paid,
      currency: input.currency ?? 'USD',
      closing_reason: input.closingReason ?? null,
      closed_date: input.closingReason ? '2026-11-01' : null,
      payment_link: input.paymentLink ?? null,
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

/** The company's default SMTP connection, its password sealed with the engine's key. */
export async function addSmtpConnection(
  engine: Fixture,
  companyId: string,
  smtp: { host: string; port: number },
  options: { auth?: { user: string; pass: string }; isDefault?: boolean; isActive?: boolean; fromEmail?: string } = {},
): Promise<string> {
  return fixture(engine, companyId, async (tx) => {
    const row = {
      id: newId(),
      company_id: companyId,
      user_id: null,
      name: 'Collections mailbox',
      from_email: options.fromEmail ?? 'ar@acme.example',
      from_name: 'Acme Receivables',
      smtp_host: smtp.host,
      smtp_port: smtp.port,
      smtp_secure: 0 as const,
      smtp_username: options.auth?.user ?? null,
      smtp_password_enc: options.auth ? engine.secrets.encrypt(options.auth.pass) : null,
      is_default: (options.isDefault ?? true) ? (1 as const) : (0 as const),
      is_active: (options.isActive ?? true) ? (1 as const) : (0 as const),
      allow_shared_sending: 1 as const,
      created_at: tx.now,
      updated_at: tx.now,
    };
    await tx.db.insertInto('email_connections').values(row).execute();
    const { smtp_password_enc: _secret, ...data } = row;
    await tx.record('email_connection', row.id, 'insert', data);
    return row.id;
  });
}

/**
 * One worker pass in a separate process over the same database file, with the clock fixed at
 * `now`: a worker that can be killed (SIGKILL) at any instant, like a crash or a power cut.
 */
export function spawnWorkerPass(file: string, now: string): ChildProcess {
  const code = `require('tsx/cjs'); require(${JSON.stringify(__filename)}).workerPass(process.env.ARDESK_DB, process.env.ARDESK_NOW).catch((e) => { console.error(e); process.exit(1); });`;
  return spawn(process.execPath, ['-e', code], { env: { ...process.env, ARDESK_DB: file, ARDESK_NOW: now }, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The child's side of spawnWorkerPass. */
export async function workerPass(file: string, now: string): Promise<void> {
  const engine = await createEngine({ file, clock: fixedClock(now) });
  try {
    await createWorker(engine, { handlers: coreJobHandlers() }).runDueJobs();
  } finally {
    await engine.close();
  }
}
