/**
 * Rows the reminder tests need (customers with a billing contact, invoices, an email connection
 * pointing at the loopback SMTP server), written straight through commands (see rows.ts) so these
 * tests do not depend on the other areas' endpoints.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fixedClock } from '../../core/clock';
import type { ClosingReason } from '../../core/db/schema';
import { type Engine } from '../../core/engine';
import { openEngine } from '../../core/runtime/engine';
import { newId } from '../../core/ids';
import { coreJobHandlers } from '../../core/runtime/job-handlers';
import { createWorker } from '../../core/jobs/worker';
import { TYPESCRIPT } from './cli';
import { fixture, insertBillingContactRow, insertCustomerRow, insertInvoiceRow } from './rows';

type Fixture = Pick<Engine, 'db' | 'clock' | 'secrets'>;

/** A customer, with a billing contact when `billingEmail` is given. */
export function addBillingCustomer(engine: Fixture, companyId: string, name: string, billingEmail: string | null, contactName = 'Pat Payables'): Promise<string> {
  return fixture(engine, companyId, async (tx) => {
    const id = await insertCustomerRow(tx, companyId, { name });
    if (billingEmail !== null) await insertBillingContactRow(tx, companyId, id, { name: contactName, email: billingEmail });
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
export function addReminderInvoice(engine: Fixture, companyId: string, customerId: string, input: InvoiceFixture): Promise<string> {
  return fixture(engine, companyId, (tx) =>
    insertInvoiceRow(tx, companyId, customerId, {
      invoice_number: input.number,
      invoice_date: input.invoiceDate ?? '2026-10-01',
      due_date: input.dueDate ?? '2026-10-31',
      total_amount: input.total ?? 125_000,
      paid_amount: input.paid ?? 0,
      currency: input.currency ?? 'USD',
      closing_reason: input.closingReason ?? null,
      closed_date: input.closingReason ? '2026-11-01' : null,
      payment_link: input.paymentLink ?? null,
    }),
  );
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
  const code = `require(${JSON.stringify(TYPESCRIPT)}); require(${JSON.stringify(__filename)}).workerPass(process.env.ARDESK_DB, process.env.ARDESK_NOW).catch((e) => { console.error(e); process.exit(1); });`;
  return spawn(process.execPath, ['-e', code], { env: { ...process.env, ARDESK_DB: file, ARDESK_NOW: now }, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The child's side of spawnWorkerPass. */
export async function workerPass(file: string, now: string): Promise<void> {
  const engine = await openEngine({ file, clock: fixedClock(now) });
  try {
    await createWorker(engine, { handlers: coreJobHandlers() }).runDueJobs();
  } finally {
    await engine.close();
  }
}
