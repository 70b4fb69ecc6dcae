/**
 * Writing customers. Contacts and locations are replaced as whole sets: entries that carry the id
 * of an existing one update it in place (so invoices keep pointing at their location), entries
 * without an id are new, and the customer's other ones are removed.
 */
import { sql } from 'kysely';
import type { CommandTx, Engine, Scope } from '../engine';
import { workingDate } from '../companies/as-of';
import { runCommand } from '../engine';
import { ConflictError, type FieldErrors, ValidationError } from '../errors';
import { newId } from '../ids';
import { getCustomer, type CustomerDetailDto } from './queries';
import {
  type ContactInput,
  type CustomerFields,
  type LocationInput,
  normalizeCurrency,
  type OwnerAssignment,
  validateContacts,
  validateCustomerFields,
  validateLocations,
  validateOwnerAssignment,
} from './rules';
import { toMinor } from '../money';
import { blankToNull } from '../text';
import { chunks } from '../chunks';

export interface CustomerInput extends CustomerFields {
  contacts?: ContactInput[];
  locations?: LocationInput[];
}

function fail(errors: FieldErrors): void {
  if (Object.keys(errors).length) throw new ValidationError('The customer is invalid', errors);
}

/** Owners must be team members of this company: another company's member is as unknown as a made-up id. */
async function checkOwners(tx: CommandTx, companyId: string, input: CustomerFields): Promise<FieldErrors> {
  const errors: FieldErrors = {};
  for (const field of ['ar_owner', 'sales_owner'] as const) {
    const id = input[field];
    if (!id) continue;
    const member = await tx.db.selectFrom('team_members').select('id').where('id', '=', id.toLowerCase()).where('company_id', '=', companyId).executeTakeFirst();
    if (!member) errors[field] = ['No such team member in this company'];
  }
  return errors;
}

async function checkRemoteId(tx: CommandTx, companyId: string, remoteId: string | null, customerId: string | null): Promise<void> {
  if (!remoteId) return;
  let query = tx.db.selectFrom('customers').select('id').where('company_id', '=', companyId).where('remote_id', '=', remoteId);
  if (customerId) query = query.where('id', '<>', customerId);
  if (await query.executeTakeFirst()) throw new ConflictError(`A customer with remote_id ${remoteId} already exists`, 'duplicate_remote_id');
}

async function existingIds(tx: CommandTx, table: 'customer_contacts' | 'customer_locations', customerId: string): Promise<Set<string>> {
  const rows = await tx.db.selectFrom(table).select('id').where('customer_id', '=', customerId).execute();
  return new Set(rows.map((r) => r.id));
}

async function replaceContacts(tx: CommandTx, companyId: string, customerId: string, contacts: ContactInput[], existing: Set<string>): Promise<void> {
  const kept = new Set(contacts.flatMap((c) => (c.id ? [c.id.toLowerCase()] : [])));
  for (const id of existing) {
    if (kept.has(id)) continue;
    await tx.db.deleteFrom('customer_contacts').where('id', '=', id).execute();
    await tx.record('customer_contact', id, 'delete', { customer_id: customerId });
  }
  // Clear the billing flag first: the one-billing-contact index must hold after every statement.
  await tx.db.updateTable('customer_contacts').set({ is_billing: 0 }).where('customer_id', '=', customerId).where('is_billing', '=', 1).execute();
  for (const c of contacts) {
    const email = blankToNull(c.email);
    const fields = {
      name: c.name?.trim() || email || '',
      email,
      phone: blankToNull(c.phone),
      title: blankToNull(c.title),
      is_billing: c.is_billing ? (1 as const) : (0 as const),
    };
    if (c.id) {
      const id = c.id.toLowerCase();
      // A bounce is about the address it happened to: a new address starts out not failing.
      await tx.db.updateTable('customer_contacts').set({ email_failed_at: null, email_failure: null }).where('id', '=', id).where(sql<boolean>`email IS NOT ${email}`).execute();
      await tx.db.updateTable('customer_contacts').set({ ...fields, updated_at: tx.now }).where('id', '=', id).execute();
      await tx.record('customer_contact', id, 'update', { customer_id: customerId, ...fields });
    } else {
      const id = newId();
      await tx.db.insertInto('customer_contacts').values({ id, company_id: companyId, customer_id: customerId, ...fields, created_at: tx.now, updated_at: tx.now }).execute();
      await tx.record('customer_contact', id, 'insert', { customer_id: customerId, ...fields });
    }
  }
}

async function replaceLocations(tx: CommandTx, companyId: string, customerId: string, locations: LocationInput[], existing: Set<string>): Promise<void> {
  const kept = new Set(locations.flatMap((l) => (l.id ? [l.id.toLowerCase()] : [])));
  for (const id of existing) {
    if (kept.has(id)) continue;
    // Invoices at this location lose the reference (ON DELETE SET NULL), they are not removed.
    await tx.db.deleteFrom('customer_locations').where('id', '=', id).execute();
    await tx.record('customer_location', id, 'delete', { customer_id: customerId });
  }
  for (const l of locations) {
    const fields = {
      name: l.name.trim(),
      address_line1: blankToNull(l.address_line1),
      city: blankToNull(l.city),
      region: blankToNull(l.region),
      postal_code: blankToNull(l.postal_code),
      country: blankToNull(l.country),
    };
    if (l.id) {
      const id = l.id.toLowerCase();
      await tx.db.updateTable('customer_locations').set({ ...fields, updated_at: tx.now }).where('id', '=', id).execute();
      await tx.record('customer_location', id, 'update', { customer_id: customerId, ...fields });
    } else {
      const id = newId();
      await tx.db.insertInto('customer_locations').values({ id, company_id: companyId, customer_id: customerId, ...fields, created_at: tx.now, updated_at: tx.now }).execute();
      await tx.record('customer_location', id, 'insert', { customer_id: customerId, ...fields });
    }
  }
}

/** Validates the parts of the input that need the database, then the pure rules, all errors at once. */
async function validate(tx: CommandTx, companyId: string, input: CustomerInput, customerId: string | null): Promise<{ contacts: Set<string>; locations: Set<string> }> {
  const contacts = customerId ? await existingIds(tx, 'customer_contacts', customerId) : new Set<string>();
  const locations = customerId ? await existingIds(tx, 'customer_locations', customerId) : new Set<string>();
  const errors: FieldErrors = {
    ...validateCustomerFields(input, customerId === null),
    ...(input.contacts ? validateContacts(input.contacts, contacts) : {}),
    ...(input.locations ? validateLocations(input.locations, locations) : {}),
  };
  fail({ ...(await checkOwners(tx, companyId, input)), ...errors });
  return { contacts, locations };
}

/** Inserts a customer inside an open command (the import uses this too); returns its id. */
export async function insertCustomer(tx: CommandTx, companyId: string, input: CustomerInput & { name: string }): Promise<string> {
  const existing = await validate(tx, companyId, input, null);
  const remoteId = blankToNull(input.remote_id);
  await checkRemoteId(tx, companyId, remoteId, null);
  let currency = input.currency === undefined ? null : normalizeCurrency(input.currency);
  if (!currency) {
    const company = await tx.db.selectFrom('companies').select('currency').where('id', '=', companyId).executeTakeFirstOrThrow();
    currency = company.currency;
  }
  const row = {
    id: newId(),
    company_id: companyId,
    name: input.name.trim(),
    is_person: input.is_person ? (1 as const) : (0 as const),
    ar_owner_id: input.ar_owner?.toLowerCase() ?? null,
    sales_owner_id: input.sales_owner?.toLowerCase() ?? null,
    remote_id: remoteId,
    currency,
    payment_terms_days: input.payment_terms_days ?? 30,
    notes: blankToNull(input.notes),
    created_at: tx.now,
    updated_at: tx.now,
  };
  await tx.db.insertInto('customers').values(row).execute();
  const { id, company_id, created_at, updated_at, ...data } = row;
  await tx.record('customer', id, 'insert', data);
  if (input.contacts) await replaceContacts(tx, companyId, id, input.contacts, existing.contacts);
  if (input.locations) await replaceLocations(tx, companyId, id, input.locations, existing.locations);
  return id;
}

export async function createCustomer(engine: Pick<Engine, 'db' | 'clock' | 'database'>, scope: Scope, input: CustomerInput & { name: string }): Promise<CustomerDetailDto> {
  const day = workingDate(engine, scope.companyId);
  return runCommand(engine, 'create_customer', scope, async (tx) => getCustomer(tx.db, scope.companyId, await insertCustomer(tx, scope.companyId, input), day));
}

/** Changes only the fields given; contacts and locations, when given, replace the whole set. */
export async function updateCustomer(engine: Pick<Engine, 'db' | 'clock' | 'database'>, scope: Scope, customerId: string, input: CustomerInput): Promise<CustomerDetailDto> {
  const day = workingDate(engine, scope.companyId);
  return runCommand(engine, 'update_customer', scope, async (tx) => {
    const current = await getCustomer(tx.db, scope.companyId, customerId, day);
    const existing = await validate(tx, scope.companyId, input, current.id);
    const changes: Record<string, string | number | null> = {};
    if (input.name !== undefined) changes.name = input.name.trim();
    if (input.is_person !== undefined) changes.is_person = input.is_person ? 1 : 0;
    if (input.ar_owner !== undefined) changes.ar_owner_id = input.ar_owner?.toLowerCase() ?? null;
    if (input.sales_owner !== undefined) changes.sales_owner_id = input.sales_owner?.toLowerCase() ?? null;
    if (input.remote_id !== undefined) {
      changes.remote_id = blankToNull(input.remote_id);
      await checkRemoteId(tx, scope.companyId, changes.remote_id, current.id);
    }
    if (input.payment_terms_days !== undefined) changes.payment_terms_days = input.payment_terms_days;
    if (input.currency !== undefined) changes.currency = normalizeCurrency(input.currency);
    if (input.notes !== undefined) changes.notes = blankToNull(input.notes);
    const touched = Object.keys(changes).length > 0 || input.contacts !== undefined || input.locations !== undefined;
    if (touched) {
      await tx.db
        .updateTable('customers')
        .set({ ...changes, updated_at: tx.now })
        .where('id', '=', current.id)
        .execute();
      await tx.record('customer', current.id, 'update', changes);
    }
    if (input.contacts) await replaceContacts(tx, scope.companyId, current.id, input.contacts, existing.contacts);
    if (input.locations) await replaceLocations(tx, scope.companyId, current.id, input.locations, existing.locations);
    return getCustomer(tx.db, scope.companyId, current.id, day);
  });
}

/**
 * Gives customers an AR owner (or none) in one transaction: the picked ones, or every customer
 * matching a rule (a country of one of its locations, a range of open balance). Customers that
 * already have that owner are matched but not rewritten. A dry run counts what would change and
 * changes nothing.
 */
export async function assignArOwner(
  engine: Pick<Engine, 'db' | 'clock'>,
  scope: Scope,
  input: OwnerAssignment & { dry_run?: boolean },
): Promise<{ matched: number; updated: number }> {
  fail(validateOwnerAssignment(input));
  const owner = input.ar_owner?.toLowerCase() ?? null;
  return runCommand(engine, 'assign_ar_owner', scope, async (tx) => {
    fail(await checkOwners(tx, scope.companyId, { ar_owner: owner }));
    let query = tx.db
      .selectFrom('customers as c')
      .leftJoin('customer_open_totals as o', (j) => j.onRef('o.company_id', '=', 'c.company_id').onRef('o.customer_id', '=', 'c.id'))
      .select(['c.id', 'c.ar_owner_id'])
      .where('c.company_id', '=', scope.companyId);
    if (input.customer_ids) {
      const ids = [...new Set(input.customer_ids.map((id) => id.toLowerCase()))];
      query = query.where('c.id', 'in', ids);
      const found = await query.execute();
      const known = new Set(found.map((r) => r.id));
      const unknown = ids.filter((id) => !known.has(id));
      if (unknown.length) fail({ customer_ids: [`No such customer in this company: ${unknown.join(', ')}`] });
    }
    const rule = input.rule;
    if (rule) {
      const country = rule.country?.trim().toLowerCase();
      if (country) {
        query = query.where(({ exists, selectFrom }) =>
          exists(
            selectFrom('customer_locations as l')
              .select(sql`1`.as('one'))
              .whereRef('l.customer_id', '=', 'c.id')
              .where(sql<boolean>`lower(trim(l.country)) = ${country}`),
          ),
        );
      }
      if (rule.min_open_balance !== undefined) query = query.where(sql<boolean>`coalesce(o.open_balance, 0) >= ${toMinor(rule.min_open_balance)}`);
      if (rule.max_open_balance !== undefined) query = query.where(sql<boolean>`coalesce(o.open_balance, 0) <= ${toMinor(rule.max_open_balance)}`);
      if (rule.unassigned_only) query = query.where('c.ar_owner_id', 'is', null);
    }
    const matched = await query.execute();
    const changing = matched.filter((r) => r.ar_owner_id !== owner).map((r) => r.id);
    if (input.dry_run) return { matched: matched.length, updated: changing.length };
    for (const chunk of chunks(changing)) {
      await tx.db.updateTable('customers').set({ ar_owner_id: owner, updated_at: tx.now }).where('id', 'in', chunk).execute();
    }
    await tx.recordMany(changing.map((id) => ({ entity: 'customer', entityId: id, op: 'update' as const, data: { ar_owner_id: owner } })));
    return { matched: matched.length, updated: changing.length };
  });
}
