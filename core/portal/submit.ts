/**
 * What a customer does in the portal, each one named command (so it is a change record that syncs
 * like any write): the portal opened, a promise, a dispute, a report of payment, a proposed billing
 * contact. Every submission is kept (portal_submissions) and is a communication from the customer,
 * one per invoice it names ("Wrote via the portal: …", their words as the body): an inbound note,
 * which the timeline and the Actions inbox show as written via the portal. A promise or a report
 * of payment holds those invoices through the promise dates the hold rules read, and is a
 * remittance advice for cash application (core/bank/remittance.ts); a dispute opens one on each
 * invoice named (core/disputes). An invoice id that is not one of the customer's open
 * invoices is answered as not found, whatever else the form says.
 */
import { recordRemittanceAdvice } from '../bank/remittance';
import { insertCommunication } from '../communications/store';
import type { PortalSubmissionKind } from '../db/schema';
import { longDate } from '../dates';
import { openDisputeIn } from '../disputes/disputes';
import { type CommandTx, type Engine, runCommand, type Scope } from '../engine';
import { NotFoundError } from '../errors';
import { refreshHolds } from '../holds/store';
import { newId } from '../ids';
import { formatMoney } from '../money';
import { withdrawProposals } from '../supersede/withdraw';
import { type ContactForm, DISPUTE_CATEGORIES, type DisputeForm, type PaidForm, paidHoldUntil, type PromiseForm } from './forms';
import type { OpenLink } from './links';
import { REASON_MAX } from '../disputes/disputes';

export interface PortalFile {
  name: string;
  type: 'application/pdf' | 'image/png' | 'image/jpeg';
  data: Uint8Array;
}

/** Where the portal subject line starts: the Actions inbox and the timeline read it as written via the portal. */
export const PORTAL_SUBJECT = 'Wrote via the portal';

interface Named {
  id: string;
  invoice_number: string;
  currency: string;
}

async function customerName(tx: CommandTx, link: OpenLink): Promise<string> {
  const row = await tx.db.selectFrom('customers').select('name').where('company_id', '=', link.companyId).where('id', '=', link.customerId).executeTakeFirst();
  if (!row) throw new NotFoundError('Customer', link.customerId);
  return row.name;
}

/** The customer's open invoices among `ids`: every id must be one, else not found (another customer's id reveals nothing). */
async function ownOpenInvoices(tx: CommandTx, link: OpenLink, ids: string[]): Promise<Named[]> {
  const rows = ids.length
    ? await tx.db
        .selectFrom('invoices')
        .select(['id', 'invoice_number', 'currency'])
        .where('company_id', '=', link.companyId)
        .where('customer_id', '=', link.customerId)
        .where('closing_reason', 'is', null)
        .where('balance', '>', 0)
        .where('id', 'in', ids)
        .orderBy('due_date')
        .orderBy('invoice_number')
        .execute()
    : [];
  if (rows.length !== ids.length) throw new NotFoundError('Invoice', ids.find((id) => !rows.some((r) => r.id === id)) ?? '');
  return rows;
}

/** The portal's commands run as the customer: no user, their name on what they wrote. */
function asCustomer(link: OpenLink, name: string): Scope {
  return { companyId: link.companyId, actor: { userId: null, name } };
}

async function keepFile(tx: CommandTx, link: OpenLink, file: PortalFile | null): Promise<string | null> {
  if (!file) return null;
  const row = {
    id: newId(),
    company_id: link.companyId,
    customer_id: link.customerId,
    file_name: file.name,
    media_type: file.type,
    size: file.data.byteLength,
    content_base64: Buffer.from(file.data).toString('base64'),
    created_at: tx.now,
  };
  await tx.db.insertInto('portal_files').values(row).execute();
  // The change record names the file; its content (up to 10 MB) stays in its row only.
  const { content_base64: _content, ...named } = row;
  await tx.record('portal_file', row.id, 'insert', named);
  return row.id;
}

interface Submission {
  kind: PortalSubmissionKind;
  invoices: Named[];
  details: Record<string, unknown>;
  fileId: string | null;
  subject: string;
  words: string;
  /** The promise date the communications carry (a promise, or the hold of a report of payment). */
  promiseDate: string | null;
  promiseAmount: number | null;
  file: PortalFile | null;
}

async function record(tx: CommandTx, link: OpenLink, s: Submission): Promise<string> {
  const row = {
    id: newId(),
    company_id: link.companyId,
    customer_id: link.customerId,
    link_id: link.id,
    kind: s.kind,
    invoice_ids: JSON.stringify(s.invoices.map((i) => i.id)),
    details: JSON.stringify(s.details),
    file_id: s.fileId,
    decided_by: null,
    created_at: tx.now,
    updated_at: tx.now,
  };
  await tx.db.insertInto('portal_submissions').values(row).execute();
  await tx.record('portal_submission', row.id, 'insert', row);
  const attachments = s.file ? JSON.stringify([{ name: s.file.name, size: s.file.data.byteLength }]) : null;
  for (const invoice of s.invoices.length ? s.invoices : [null]) {
    await insertCommunication(tx, {
      id: newId(),
      company_id: link.companyId,
      customer_id: link.customerId,
      invoice_id: invoice?.id ?? null,
      kind: 'note',
      direction: 'inbound',
      subject: `${PORTAL_SUBJECT}: ${s.subject}`,
      body: s.words,
      occurred_at: tx.now,
      author_user_id: null,
      author_name: tx.actor.name,
      email_connection_id: null,
      message_id: null,
      created_at: tx.now,
      promise_date: s.promiseDate,
      promise_amount: s.invoices.length === 1 ? s.promiseAmount : null,
      attachments,
    });
    if (invoice && s.promiseDate) await withdrawProposals(tx, link.companyId, { kind: 'promise', customerId: link.customerId, invoiceId: invoice.id, date: s.promiseDate });
  }
  await refreshHolds(tx, link.companyId, [link.customerId]);
  return row.id;
}

function numbers(invoices: Named[]): string {
  return invoices.map((i) => i.invoice_number).join(', ');
}

/** The subject of the note a customer's look at their portal leaves (the intelligence engine reads these: core/intelligence/facts.ts). */
export const PORTAL_VIEW_SUBJECT = 'Viewed the portal';

/** Opening the link, recorded once a day: "Viewed the portal" in the customer's timeline (an internal note: not a contact). */
export async function recordView(engine: Pick<Engine, 'db' | 'clock'>, link: OpenLink, today: string): Promise<void> {
  if (link.viewedOn === today) return;
  await runCommand(engine, 'portal_viewed', { companyId: link.companyId, actor: { userId: null, name: null } }, async (tx) => {
    const name = await customerName(tx, link);
    const updated = await tx.db.updateTable('portal_links').set({ viewed_on: today }).where('id', '=', link.id).where((eb) => eb.or([eb('viewed_on', 'is', null), eb('viewed_on', '!=', today)])).executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) return;
    await tx.record('portal_link', link.id, 'update', { viewed_on: today });
    await insertCommunication(tx, {
      id: newId(),
      company_id: link.companyId,
      customer_id: link.customerId,
      invoice_id: null,
      kind: 'note',
      direction: 'internal',
      subject: PORTAL_VIEW_SUBJECT,
      body: `${name} opened their portal link on ${longDate(today)}.`,
      occurred_at: tx.now,
      author_user_id: null,
      author_name: name,
      email_connection_id: null,
      message_id: null,
      created_at: tx.now,
    });
  });
}

async function asTheCustomer<T>(engine: Pick<Engine, 'db' | 'clock'>, link: OpenLink, command: string, body: (tx: CommandTx) => Promise<T>): Promise<T> {
  const name = await engine.db.selectFrom('customers').select('name').where('company_id', '=', link.companyId).where('id', '=', link.customerId).executeTakeFirst();
  if (!name) throw new NotFoundError('Customer', link.customerId);
  return runCommand(engine, command, asCustomer(link, name.name), body);
}

export async function submitPromise(engine: Pick<Engine, 'db' | 'clock'>, link: OpenLink, form: PromiseForm): Promise<string> {
  return asTheCustomer(engine, link, 'portal_promise', async (tx) => {
    const invoices = await ownOpenInvoices(tx, link, form.invoiceIds);
    const amount = form.amount === null ? '' : ` (${formatMoney(form.amount, invoices[0].currency)})`;
    const said = `I'll pay ${numbers(invoices)} on ${longDate(form.date)}${amount}.`;
    return record(tx, link, {
      kind: 'promise',
      invoices,
      details: { date: form.date, amount: form.amount, message: form.message },
      fileId: null,
      subject: `I'll pay on ${longDate(form.date)}`,
      words: form.message ? `${said}\n${form.message}` : said,
      promiseDate: form.date,
      promiseAmount: form.amount,
      file: null,
    });
  });
}

export async function submitDispute(engine: Pick<Engine, 'db' | 'clock'>, link: OpenLink, form: DisputeForm, file: PortalFile | null): Promise<string> {
  return asTheCustomer(engine, link, 'portal_dispute', async (tx) => {
    const invoices = await ownOpenInvoices(tx, link, form.invoiceIds);
    const category = DISPUTE_CATEGORIES[form.category];
    const scope = asCustomer(link, tx.actor.name ?? '');
    for (const invoice of invoices) {
      const open = await tx.db.selectFrom('disputes').select('id').where('company_id', '=', link.companyId).where('invoice_id', '=', invoice.id).where('status', '=', 'open').executeTakeFirst();
      if (!open) await openDisputeIn(tx, scope, { invoice_id: invoice.id, reason: `${category}: ${form.message}`.slice(0, REASON_MAX) });
    }
    const fileId = await keepFile(tx, link, file);
    return record(tx, link, {
      kind: 'dispute',
      invoices,
      details: { category: form.category, message: form.message },
      fileId,
      subject: `questions ${numbers(invoices)} (${category.toLowerCase()})`,
      words: form.message,
      promiseDate: null,
      promiseAmount: null,
      file,
    });
  });
}

export async function submitPaid(engine: Pick<Engine, 'db' | 'clock'>, link: OpenLink, form: PaidForm, file: PortalFile | null, today: string): Promise<string> {
  return asTheCustomer(engine, link, 'portal_paid', async (tx) => {
    const invoices = await ownOpenInvoices(tx, link, form.invoiceIds);
    const fileId = await keepFile(tx, link, file);
    // Offered to cash application: the matching takes it as a hint for a credit of that amount.
    await recordRemittanceAdvice(tx, link.companyId, { customerId: link.customerId, invoiceIds: invoices.map((i) => i.id), paidOn: form.date, amount: form.amount, reference: form.reference });
    const paid = formatMoney(form.amount, invoices[0].currency);
    const words = `I've paid ${paid} for ${numbers(invoices)} on ${longDate(form.date)}${form.reference ? `, reference ${form.reference}` : ''}.`;
    return record(tx, link, {
      kind: 'paid',
      invoices,
      details: { date: form.date, amount: form.amount, currency: invoices[0].currency, reference: form.reference },
      fileId,
      subject: `I've paid ${paid}`,
      words,
      promiseDate: paidHoldUntil(form.date, today),
      promiseAmount: form.amount,
      file,
    });
  });
}

export async function submitContact(engine: Pick<Engine, 'db' | 'clock'>, link: OpenLink, form: ContactForm): Promise<string> {
  return asTheCustomer(engine, link, 'portal_contact', async (tx) => {
    const words = `Please send our invoices to ${form.name} <${form.email}>${form.phone ? `, phone ${form.phone}` : ''}.${form.message ? `\n${form.message}` : ''}`;
    return record(tx, link, {
      kind: 'contact',
      invoices: [],
      details: { name: form.name, email: form.email, phone: form.phone, message: form.message },
      fileId: null,
      subject: 'please update our billing contact',
      words,
      promiseDate: null,
      promiseAmount: null,
      file: null,
    });
  });
}
