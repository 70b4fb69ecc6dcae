/** Who belongs to which company, with which role: what every sign-in and every company path checks. */
import type { Db } from '../db/connection';
import type { Role } from '../db/schema';

export interface CompanyRef {
  id: string;
  name: string;
  role: Role;
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
