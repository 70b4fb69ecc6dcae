/**
 * Approved calls and tasks waiting to be done, as the Queue lists them: who has the work, whom to
 * call (the customer's contacts with a phone number) and why the engine proposed it.
 */
import type { Db } from '../db/connection';
import type { ActionType } from '../db/schema';
import { type EvidenceItem, parseEvidence } from '../insights/evidence';
import { fromMinor } from '../money';
import { parseMetadata } from './queries';
import { chunks } from '../chunks';

export interface TaskContact {
  name: string;
  phone: string;
  title: string | null;
  is_billing: boolean;
}

export interface ActionTask {
  id: string;
  action_type: Exclude<ActionType, 'email'>;
  description: string;
  customer: string;
  customer_name: string;
  invoice: string | null;
  invoice_number: string | null;
  /** The invoice's open balance in major units of its currency; null for a task about the customer as a whole. */
  balance: number | null;
  currency: string | null;
  due_date: string | null;
  assignee: string | null;
  assignee_name: string | null;
  approved_at: string;
  talking_points: string[];
  contacts: TaskContact[];
  evidence: EvidenceItem[];
}

/** The company's approved calls and tasks, the caller's own first (`memberId`), then oldest approval first. */
export async function listActionTasks(db: Db, companyId: string, memberId: string | null): Promise<ActionTask[]> {
  const rows = await db
    .selectFrom('actions as a')
    .innerJoin('customers as c', 'c.id', 'a.customer_id')
    .leftJoin('invoices as i', 'i.id', 'a.invoice_id')
    .select(['a.id', 'a.action_type', 'a.description', 'a.customer_id', 'c.name as customer_name', 'a.invoice_id', 'i.invoice_number', 'i.balance', 'i.currency', 'i.due_date', 'a.metadata', 'a.evidence', 'a.updated_at'])
    .where('a.company_id', '=', companyId)
    .where('a.status', '=', 'processing')
    .where('a.action_type', 'in', ['call', 'task'])
    .where('a.deleted_at', 'is', null)
    .orderBy('a.updated_at')
    .orderBy('a.id')
    .execute();
  const customerIds = [...new Set(rows.map((r) => r.customer_id))];
  const contacts = new Map<string, TaskContact[]>();
  for (const chunk of chunks(customerIds)) {
    const found = await db
      .selectFrom('customer_contacts')
      .select(['customer_id', 'name', 'phone', 'title', 'is_billing'])
      .where('company_id', '=', companyId)
      .where('customer_id', 'in', chunk)
      .where('phone', 'is not', null)
      .where('phone', '!=', '')
      .orderBy('is_billing', 'desc')
      .orderBy('created_at')
      .execute();
    for (const c of found) {
      const list = contacts.get(c.customer_id) ?? [];
      list.push({ name: c.name, phone: c.phone as string, title: c.title, is_billing: c.is_billing === 1 });
      contacts.set(c.customer_id, list);
    }
  }
  const tasks = rows.map((r): ActionTask => {
    const metadata = parseMetadata(r.metadata);
    const assignee = metadata.assignee as { id?: unknown; name?: unknown } | null | undefined;
    const points = Array.isArray(metadata.talking_points) ? metadata.talking_points.filter((p): p is string => typeof p === 'string') : [];
    return {
      id: r.id,
      action_type: r.action_type === 'task' ? 'task' : 'call',
      description: r.description,
      customer: r.customer_id,
      customer_name: r.customer_name,
      invoice: r.invoice_id,
      invoice_number: r.invoice_number,
      balance: r.balance === null ? null : fromMinor(r.balance),
      currency: r.currency,
      due_date: r.due_date,
      assignee: typeof assignee?.id === 'string' ? assignee.id : null,
      assignee_name: typeof assignee?.name === 'string' ? assignee.name : null,
      approved_at: r.updated_at,
      talking_points: points,
      contacts: contacts.get(r.customer_id) ?? [],
      evidence: parseEvidence(r.evidence),
    };
  });
  // Stable sort: the caller's own work first, the rest in approval order.
  return memberId ? tasks.sort((a, b) => Number(b.assignee === memberId) - Number(a.assignee === memberId)) : tasks;
}

/** The caller's own team member in the company, if any. */
export async function ownMemberId(db: Db, companyId: string, userId: string | null): Promise<string | null> {
  if (!userId) return null;
  const row = await db.selectFrom('team_members').select('id').where('company_id', '=', companyId).where('user_id', '=', userId).orderBy('is_active', 'desc').orderBy('id').executeTakeFirst();
  return row?.id ?? null;
}
