/**
 * Portal links: minted per customer (a send mints one for the email it goes in; a collector can ask
 * for one), valid for the company's link days (60 by default), revoked all at once per customer.
 * The token is handed out once, at minting; only its hash is kept.
 */
import type { Db } from '../db/connection';
import { type CommandTx, type Engine, runCommand, type Scope } from '../engine';
import { NotFoundError, ValidationError } from '../errors';
import { newId } from '../ids';
import { hashPortalToken, isTokenShape, linkState, newPortalToken, sameDigest } from './tokens';

export const DEFAULT_LINK_DAYS = 60;
export const MAX_LINK_DAYS = 365;

/** The address of a link's page under the portal's base address (the server customers reach). */
export function portalUrl(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/portal/${token}`;
}

export async function linkDays(db: Db | CommandTx['db'], companyId: string): Promise<number> {
  const row = await db.selectFrom('portal_settings').select('link_days').where('company_id', '=', companyId).executeTakeFirst();
  return row?.link_days ?? DEFAULT_LINK_DAYS;
}

/** Mints a link inside a running command; the token is in the answer only. */
export async function mintPortalLink(tx: CommandTx, companyId: string, customerId: string): Promise<{ token: string; expiresAt: string }> {
  const token = newPortalToken();
  const days = await linkDays(tx.db, companyId);
  const expiresAt = new Date(Date.parse(tx.now) + days * 86_400_000).toISOString();
  const row = { id: newId(), company_id: companyId, customer_id: customerId, token_hash: hashPortalToken(token), expires_at: expiresAt, revoked_at: null, viewed_on: null, created_by: tx.actor.name, created_at: tx.now };
  await tx.db.insertInto('portal_links').values(row).execute();
  await tx.record('portal_link', row.id, 'insert', row);
  return { token, expiresAt };
}

async function assertCustomer(tx: CommandTx, companyId: string, customerId: string): Promise<void> {
  const customer = await tx.db.selectFrom('customers').select('id').where('company_id', '=', companyId).where('id', '=', customerId.toLowerCase()).executeTakeFirst();
  if (!customer) throw new NotFoundError('Customer', customerId);
}

/** A collector's new link for a customer (earlier links stay valid until they expire or are revoked). */
export async function createPortalLink(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope, customerId: string, baseUrl: string): Promise<{ url: string; expires_at: string }> {
  const { token, expiresAt } = await runCommand(engine, 'create_portal_link', scope, async (tx) => {
    await assertCustomer(tx, scope.companyId, customerId);
    return mintPortalLink(tx, scope.companyId, customerId.toLowerCase());
  });
  return { url: portalUrl(baseUrl, token), expires_at: expiresAt };
}

/** Revokes every link of the customer still valid; how many. */
export async function revokePortalLinks(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope, customerId: string): Promise<number> {
  return runCommand(engine, 'revoke_portal_links', scope, async (tx) => {
    await assertCustomer(tx, scope.companyId, customerId);
    const links = await tx.db
      .selectFrom('portal_links')
      .select('id')
      .where('company_id', '=', scope.companyId)
      .where('customer_id', '=', customerId.toLowerCase())
      .where('revoked_at', 'is', null)
      .execute();
    for (const { id } of links) {
      await tx.db.updateTable('portal_links').set({ revoked_at: tx.now }).where('id', '=', id).execute();
      await tx.record('portal_link', id, 'update', { revoked_at: tx.now });
    }
    return links.length;
  });
}

export async function setLinkDays(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope, days: number): Promise<number> {
  if (!Number.isInteger(days) || days < 1 || days > MAX_LINK_DAYS) throw new ValidationError('The portal settings are invalid', { link_days: [`A whole number of days from 1 to ${MAX_LINK_DAYS}`] });
  return runCommand(engine, 'set_portal_settings', scope, async (tx) => {
    const row = { company_id: scope.companyId, link_days: days, updated_at: tx.now };
    await tx.db.insertInto('portal_settings').values(row).onConflict((oc) => oc.column('company_id').doUpdateSet({ link_days: days, updated_at: tx.now })).execute();
    await tx.record('portal_settings', scope.companyId, 'update', row);
    return days;
  });
}

export interface OpenLink {
  id: string;
  companyId: string;
  customerId: string;
  viewedOn: string | null;
}

/** The valid link of a presented token, or null for an unknown, expired or revoked one (all answered alike). */
export async function resolvePortalLink(db: Db, token: string, now: string): Promise<OpenLink | null> {
  if (!isTokenShape(token)) return null;
  const hash = hashPortalToken(token);
  const row = await db.selectFrom('portal_links').select(['id', 'company_id', 'customer_id', 'token_hash', 'expires_at', 'revoked_at', 'viewed_on']).where('token_hash', '=', hash).executeTakeFirst();
  if (!row || !sameDigest(row.token_hash, hash) || linkState(row, now) !== 'valid') return null;
  return { id: row.id, companyId: row.company_id, customerId: row.customer_id, viewedOn: row.viewed_on };
}
