/**
 * The facts the contact rule (rule.ts) reads, gathered for some customers of one company: the chase
 * facts (holds/store.ts: disputes, promises, replies), the invoices asked about, a person's pause of
 * an enrollment, and the emails that went out in the last two days. `recheckContact` is the check at
 * the moment of sending: one write transaction that reads the facts and records its answer in the
 * change log, so a hold committed before it is seen, and the order of the two can be judged later.
 */
import { sql } from 'kysely';
import { chunks } from '../chunks';
import type { Db } from '../db/connection';
import { type CommandTx, type Engine, runCommand, systemActor } from '../engine';
import { stopWords } from '../holds/holds';
import { chaseFacts } from '../holds/store';
import { newId } from '../ids';
import { CONTACT_HOLD_KINDS, type ContactAnswer, type ContactFacts, ContactHeldError, type ContactHoldKind, type ContactRequest, decideContact, reasonWords } from './rule';

type Reader = Db | CommandTx['db'];

/** Local days run at most 14 hours ahead of UTC and 12 behind: an older email is on no one's today. */
const DAY_WINDOW_MS = 2 * 86_400_000;

/** The contact facts of each customer named (ids already the company's), about these invoices. */
export async function contactFacts(db: Reader, companyId: string, customerIds: string[], invoiceIds: string[], now: string): Promise<Map<string, ContactFacts>> {
  const out = new Map<string, ContactFacts>();
  const chase = await chaseFacts(db, companyId, customerIds);
  const settings = await contactSettings(db, companyId);
  for (const [id, facts] of chase) out.set(id, { chase: facts, invoices: [], pause: null, doNotContact: null, graceDays: settings.promiseGraceDays, noOverride: settings.noOverride, emailsSent: [] });
  const today = now.slice(0, 10);
  for (const ids of chunks([...out.keys()])) {
    // A person's stop on the customer comes first: it names who and why, and an enrollment's pause says less.
    const stops = await db
      .selectFrom('customers')
      .select(['id', 'contact_stop', 'contact_stop_reason', 'contact_stop_by', 'contact_stop_at'])
      .where('company_id', '=', companyId)
      .where('id', 'in', ids)
      .where('contact_stop', 'is not', null)
      .execute();
    for (const r of stops) {
      const f = out.get(r.id)!;
      const words = stopWords(r, today);
      if (r.contact_stop === 'do_not_contact') f.doNotContact = words;
      else f.pause = words;
    }
  }
  for (const ids of chunks([...new Set(invoiceIds)])) {
    const rows = await db
      .selectFrom('invoices')
      .select(['id', 'customer_id', 'invoice_number', 'due_date', 'closing_reason', 'balance'])
      .where('company_id', '=', companyId)
      .where('id', 'in', ids)
      .execute();
    for (const r of rows) out.get(r.customer_id)?.invoices.push({ id: r.id, invoiceNumber: r.invoice_number, dueDate: r.due_date, closed: r.closing_reason !== null || r.balance <= 0 });
  }
  const since = new Date(Date.parse(now) - DAY_WINDOW_MS).toISOString();
  for (const ids of chunks([...out.keys()])) {
    // One query for the two customer-level facts the chase facts lack: a person's pause and the emails that went out.
    // An email a job sent knows when that job was asked for (its request): its siblings of one request are told apart by it.
    const rows = await sql<{ customer_id: string; kind: 'pause' | 'email'; value: string; decided_at: string | null }>`
      SELECT customer_id, 'pause' AS kind, paused_reason AS value, NULL AS decided_at FROM sequence_enrollments
       WHERE company_id = ${companyId} AND customer_id IN (${sql.join(ids)}) AND status = 'active' AND paused_kind = 'manual' AND paused_reason IS NOT NULL
      UNION ALL
      SELECT c.customer_id, 'email', c.occurred_at, j.created_at FROM communications c
        LEFT JOIN email_outbox o ON o.message_id = c.message_id AND o.communication_id = c.id LEFT JOIN jobs j ON j.id = o.job_id
       WHERE c.company_id = ${companyId} AND c.customer_id IN (${sql.join(ids)}) AND c.kind = 'email' AND c.direction = 'outbound' AND c.occurred_at >= ${since}`.execute(db);
    for (const r of rows.rows) {
      const f = out.get(r.customer_id);
      if (!f) continue;
      if (r.kind === 'pause') f.pause ??= r.value;
      else f.emailsSent.push({ at: r.value, decidedAt: r.decided_at });
    }
  }
  return out;
}

export interface ContactSettings {
  /** Days a promise still holds after its date. */
  promiseGraceDays: number;
  /** The hold kinds an owner forbids sending through. */
  noOverride: ContactHoldKind[];
}

/** The company's contact settings. */
export async function contactSettings(db: Reader, companyId: string): Promise<ContactSettings> {
  const row = await db.selectFrom('companies').select(['promise_grace_days', 'contact_no_override']).where('id', '=', companyId).executeTakeFirst();
  return { promiseGraceDays: row?.promise_grace_days ?? 0, noOverride: row ? holdKinds(row.contact_no_override) : [] };
}

/** The hold kinds of a stored JSON list, those the rule knows. */
function holdKinds(json: string): ContactHoldKind[] {
  try {
    const v: unknown = JSON.parse(json);
    return Array.isArray(v) ? CONTACT_HOLD_KINDS.filter((k) => v.includes(k)) : [];
  } catch {
    return [];
  }
}

/** The rule's answer to each of several requests, in their order, from one gathering of facts. */
export async function checkContacts(db: Reader, companyId: string, requests: Array<{ customerId: string; request: ContactRequest }>, now: string): Promise<ContactAnswer[]> {
  const facts = await contactFacts(
    db,
    companyId,
    requests.map((r) => r.customerId),
    requests.flatMap((r) => r.request.invoiceIds),
    now,
  );
  return requests.map(({ customerId, request }) => {
    const f = facts.get(customerId);
    return f ? decideContact(f, request, now) : { allowed: false, invoiceIds: [], held: [], reason: 'Held: the customer no longer exists.' };
  });
}

export async function checkContact(db: Reader, companyId: string, customerId: string, request: ContactRequest, now: string): Promise<ContactAnswer> {
  return (await checkContacts(db, companyId, [{ customerId, request }], now))[0];
}

/** What a send asks at the moment of sending. */
export interface ContactAsk {
  companyId: string;
  customerId: string;
  request: ContactRequest;
}

/**
 * The check right before SMTP, after everything else is ready: in a write transaction of its own,
 * so it sees every hold committed before it and none after, and recorded ('contact_check' in the
 * change log, with its time and order). Anything held at this moment, even one invoice of several
 * the email lists, stops the whole email: its text was written before the hold. Throws
 * ContactHeldError when held.
 */
export async function recheckContact(engine: Pick<Engine, 'db' | 'clock'>, ask: ContactAsk): Promise<ContactAnswer> {
  const answer = await runCommand(engine, 'check_contact', { actor: systemActor, companyId: ask.companyId }, async (tx) => {
    const a = await checkContact(tx.db, ask.companyId, ask.customerId, ask.request, tx.now);
    const held = a.held.length > 0 ? { ...a, allowed: false, invoiceIds: [], reason: reasonWords(a.held, false) } : a;
    await tx.record('contact_check', newId(), 'insert', {
      customer_id: ask.customerId,
      channel: ask.request.channel,
      invoice_ids: ask.request.invoiceIds,
      allowed: held.allowed,
      held: held.held.map((h) => h.kind),
      checked_at: tx.now,
    });
    return held;
  });
  if (!answer.allowed) throw new ContactHeldError(answer);
  return answer;
}
