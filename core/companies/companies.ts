import type { Role } from '../db/schema';
import { type CommandTx } from '../engine';
import { newId } from '../ids';

export async function insertCompany(tx: CommandTx, name: string, currency = 'USD', id = newId(), place: { time_zone?: string | null; country?: string | null } = {}): Promise<string> {
  const located = { time_zone: place.time_zone ?? null, country: place.country ?? null };
  await tx.db.insertInto('companies').values({ id, name, currency, ...located, created_at: tx.now, updated_at: tx.now }).execute();
  await tx.record('company', id, 'insert', { name, currency, ...located });
  return id;
}

export async function insertMembership(tx: CommandTx, companyId: string, userId: string, role: Role): Promise<void> {
  const id = newId();
  await tx.db.insertInto('memberships').values({ id, company_id: companyId, user_id: userId, role, created_at: tx.now }).execute();
  await tx.record('membership', id, 'insert', { company_id: companyId, user_id: userId, role });
}
