import type { Db } from '../db/connection';
import type { Role } from '../db/schema';
import { type CommandTx } from '../engine';
import { newId } from '../ids';

export interface CompanyRef {
  id: string;
  name: string;
  role: Role;
}

export async function insertCompany(tx: CommandTx, name: string, currency = 'USD', id = newId()): Promise<string> {
  await tx.db.insertInto('companies').values({ id, name, currency, created_at: tx.now, updated_at: tx.now }).execute();
  await tx.record('company', id, 'insert', { name, currency });
  return id;
}

export async function insertMembership(tx: CommandTx, companyId: string, userId: string, role: Role): Promise<void> {
  const id = newId();
  await tx.db.insertInto('memberships').values({ id, company_id: companyId, user_id: userId, role, created_at: tx.now }).execute();
  await tx.record('membership', id, 'insert', { company_id: companyId, user_id: userId, role });
}

export async function companiesOfUser(db: Db, userId: string): Promise<CompanyRef[]> {
  return db
    .selectFrom('memberships as m')
    .innerJoin('companies as c', 'c.id', 'm.company_id')
    .select(['c.id', 'c.name', 'm.role'])
    .where('m.user_id', '=', userId)
    .orderBy('c.name')
    .orderBy('c.id')
    .execute();
}

export async function membershipOf(db: Db, userId: string, companyId: string): Promise<{ role: Role } | undefined> {
  return db.selectFrom('memberships').select('role').where('user_id', '=', userId).where('company_id', '=', companyId).executeTakeFirst();
}
