/**
 * A company made from nothing, by a signed-in user (the app's company switcher, the first sign-in
 * of a fresh install, `ardesk company create`, POST /api/v1/companies/): its name, currency, time
 * zone, country and what its documents print, in one command. Its maker is its owner and joins its
 * team, as the first account's maker does.
 */
import { insertCompany, insertMembership } from '../companies/companies';
import type { Role } from '../db/schema';
import { type DocumentDetailsInput, updateDocumentDetails, validateDetails } from '../documents/details';
import { type Actor, type Engine, runCommand } from '../engine';
import { type FieldErrors, ValidationError } from '../errors';
import { addFounderToTeam } from '../team/team';
import { canonicalTimeZone } from '../zones';

export interface NewCompanyInput {
  name: string;
  currency?: string;
  time_zone?: string | null;
  country?: string | null;
  details?: DocumentDetailsInput;
}

export interface NewCompany {
  id: string;
  name: string;
  currency: string;
  time_zone: string | null;
  country: string | null;
  role: Role;
}

const regions = new Intl.DisplayNames(['en'], { type: 'region' });

/** An ISO 3166-1 alpha-2 code Intl names ("us" -> "US"), or null. */
export function canonicalCountry(value: string): string | null {
  const code = value.trim().toUpperCase();
  if (!/^[A-Z]{2}$/.test(code)) return null;
  const name = regions.of(code);
  return name && name !== code && name !== 'Unknown Region' ? code : null;
}

/** An ISO 4217 code Intl knows ("eur" -> "EUR"), or null. */
export function canonicalCurrency(value: string): string | null {
  const code = value.trim().toUpperCase();
  return /^[A-Z]{3}$/.test(code) && Intl.supportedValuesOf('currency').includes(code) ? code : null;
}

/** The company as it will be stored, or the reasons it cannot be, field by field. */
export function checkNewCompany(input: NewCompanyInput): { company: Omit<NewCompany, 'id' | 'role'>; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const name = input.name.trim();
  if (!name) errors.name = ['Is required'];
  else if (name.length > 200) errors.name = ['Use at most 200 characters'];
  const currency = canonicalCurrency(input.currency ?? 'USD');
  if (!currency) errors.currency = ['Must be a currency code such as USD, EUR or GBP'];
  const zone = input.time_zone?.trim() ? canonicalTimeZone(input.time_zone.trim()) : null;
  if (input.time_zone?.trim() && !zone) errors.time_zone = ['Must be a time zone such as America/New_York or Europe/Berlin'];
  const country = input.country?.trim() ? canonicalCountry(input.country) : null;
  if (input.country?.trim() && !country) errors.country = ['Must be a two-letter country code such as US, GB or DE'];
  Object.assign(errors, validateDetails(input.details ?? {}));
  return { company: { name, currency: currency ?? 'USD', time_zone: zone, country }, errors };
}

export async function createCompany(engine: Pick<Engine, 'db' | 'clock'>, actor: Actor & { userId: string }, input: NewCompanyInput): Promise<NewCompany> {
  const { company, errors } = checkNewCompany(input);
  if (Object.keys(errors).length) throw new ValidationError('The company is invalid', errors);
  return runCommand(engine, 'create_company', { actor, companyId: null }, async (tx) => {
    const id = await insertCompany(tx, company.name, company.currency, undefined, company);
    await insertMembership(tx, id, actor.userId, 'owner');
    await addFounderToTeam(tx, id, actor.userId);
    const details = input.details ?? {};
    // Its document details in the same transaction (a savepoint of this command).
    if (Object.values(details).some((v) => v !== undefined && v !== null && v !== '')) await updateDocumentDetails({ db: tx.db, clock: engine.clock }, { actor, companyId: id }, details);
    return { id, ...company, role: 'owner' as const };
  });
}
