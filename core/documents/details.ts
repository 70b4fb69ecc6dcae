/**
 * Company details for documents: what a company prints on its invoice copies and statements.
 * One row per company (0190); a company that never saved any gets the defaults (its name, and the
 * paper and date style of its country: Letter and en-US in the US) so documents can always be made.
 */
import type { Db } from '../db/connection';
import type { CompanyDocumentDetailsTable, LogoType, Paper } from '../db/schema';
import { type CommandTx, type Engine, runCommand, type Scope } from '../engine';
import { type FieldErrors, NotFoundError, ValidationError } from '../errors';
import { blankToNull } from '../text';
import { type BrandColours, brandColours, parseHexColour } from './colours';
import { boundLogo, LogoRefused } from './logo';
import { documentDefaults } from './postal';

export const MAX_LOGO_BYTES = 1024 * 1024;
export const PAPERS = ['A4', 'Letter'] as const satisfies readonly Paper[];
export const LOGO_TYPES = ['image/png', 'image/jpeg', 'image/svg+xml'] as const satisfies readonly LogoType[];
export const DETAIL_LIMITS = { legal_name: 200, address: 500, tax_id: 60, payment_instructions: 1000, portal_link: 500, footer: 500, locale: 35 } as const;

export interface DocumentDetails {
  /** The name printed on documents: the legal name, else the company's name in ardesk. */
  company_name: string;
  legal_name: string | null;
  address: string | null;
  tax_id: string | null;
  payment_instructions: string | null;
  portal_link: string | null;
  footer: string | null;
  /** Brand colours as chosen ('#rrggbb'), and the shades drawn so text stays readable. */
  brand_primary: string | null;
  brand_accent: string | null;
  brand_colours: BrandColours;
  locale: string;
  paper: Paper;
  logo: { type: LogoType; bytes: number } | null;
  updated_at: string | null;
}

/** The details with the logo's file, for drawing. */
export interface DocumentDetailsWithLogo extends DocumentDetails {
  logoData: Buffer | null;
}

export interface DocumentDetailsInput {
  legal_name?: string | null;
  address?: string | null;
  tax_id?: string | null;
  payment_instructions?: string | null;
  portal_link?: string | null;
  footer?: string | null;
  brand_primary?: string | null;
  brand_accent?: string | null;
  locale?: string;
  paper?: Paper;
}

const BRAND_FIELDS = ['brand_primary', 'brand_accent'] as const;

/** A locale Intl knows (canonical form, e.g. 'en-gb' -> 'en-GB'), or null. */
export function canonicalLocale(value: string): string | null {
  try {
    const [canonical] = Intl.getCanonicalLocales(value.trim());
    if (!canonical) return null;
    return Intl.DateTimeFormat.supportedLocalesOf([canonical]).length ? canonical : null;
  } catch {
    return null;
  }
}

/** An http(s) URL, the only links a document should print for a customer to follow. */
export function isWebLink(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

export function validateDetails(input: DocumentDetailsInput): FieldErrors {
  const errors: FieldErrors = {};
  for (const key of ['legal_name', 'address', 'tax_id', 'payment_instructions', 'portal_link', 'footer'] as const) {
    const value = input[key];
    if (value && value.trim().length > DETAIL_LIMITS[key]) errors[key] = [`Use at most ${DETAIL_LIMITS[key]} characters`];
  }
  const link = blankToNull(input.portal_link);
  if (link && !errors.portal_link && !isWebLink(link)) errors.portal_link = ['Must be a web address starting with https://'];
  for (const key of BRAND_FIELDS) {
    const value = blankToNull(input[key]);
    if (value && parseHexColour(value) === null) errors[key] = ['Must be a colour written as # and six hex digits, such as #0B5CAD'];
  }
  if (input.locale !== undefined && canonicalLocale(input.locale) === null) errors.locale = ['Must be a language and region such as en-US, en-GB or de-DE'];
  return errors;
}

/**
 * What kind of image a file really is, from its first bytes (PNG and JPEG signatures) or, for SVG,
 * its markup; null for anything else, whatever name or type it was sent with.
 */
export function sniffLogo(data: Uint8Array): LogoType | null {
  if (data.length >= 8 && [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((b, i) => data[i] === b)) return 'image/png';
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'image/jpeg';
  const head = Buffer.from(data.subarray(0, 4096)).toString('utf8').replace(/^\uFEFF/, '').trimStart();
  if (/^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE svg[^>]*>\s*)?<svg[\s>]/i.test(head)) return 'image/svg+xml';
  return null;
}

/** Why a logo file is refused, in words, or null when it is a PNG, JPEG or SVG of at most 1 MB. */
export function logoProblem(data: Uint8Array): string | null {
  if (data.length === 0) return 'The logo file is empty';
  if (data.length > MAX_LOGO_BYTES) return `The logo is ${(data.length / MAX_LOGO_BYTES).toFixed(1)} MB; use an image of at most 1 MB`;
  if (sniffLogo(data) === null) return 'The logo must be a PNG, JPEG or SVG image';
  return null;
}

type Row = CompanyDocumentDetailsTable;

function shape(company: { name: string; country: string | null }, row: Row | undefined): DocumentDetailsWithLogo {
  const defaults = documentDefaults(company.country);
  const logoData = row?.logo_base64 ? Buffer.from(row.logo_base64, 'base64') : null;
  return {
    company_name: row?.legal_name ?? company.name,
    legal_name: row?.legal_name ?? null,
    address: row?.address ?? null,
    tax_id: row?.tax_id ?? null,
    payment_instructions: row?.payment_instructions ?? null,
    portal_link: row?.portal_link ?? null,
    footer: row?.footer ?? null,
    brand_primary: row?.brand_primary ?? null,
    brand_accent: row?.brand_accent ?? null,
    brand_colours: brandColours(row?.brand_primary ?? null, row?.brand_accent ?? null),
    locale: row?.locale ?? defaults.locale,
    paper: row?.paper ?? defaults.paper,
    logo: logoData && row?.logo_type ? { type: row.logo_type, bytes: logoData.length } : null,
    updated_at: row?.updated_at ?? null,
    logoData,
  };
}

export async function documentDetailsWithLogo(db: Db, companyId: string): Promise<DocumentDetailsWithLogo> {
  const company = await db.selectFrom('companies').select(['name', 'country']).where('id', '=', companyId).executeTakeFirst();
  if (!company) throw new NotFoundError('Company', companyId);
  const row = await db.selectFrom('company_document_details').selectAll().where('company_id', '=', companyId).executeTakeFirst();
  return shape(company, row);
}

export async function documentDetails(db: Db, companyId: string): Promise<DocumentDetails> {
  const { logoData: _file, ...details } = await documentDetailsWithLogo(db, companyId);
  return details;
}

/** Inserts the company's row with its country's defaults when it has none, inside the caller's command. */
async function ensureRow(tx: CommandTx, companyId: string): Promise<void> {
  const company = await tx.db.selectFrom('companies').select('country').where('id', '=', companyId).executeTakeFirst();
  const defaults = documentDefaults(company?.country);
  await tx.db
    .insertInto('company_document_details')
    .values({ company_id: companyId, locale: defaults.locale, paper: defaults.paper, created_at: tx.now, updated_at: tx.now })
    .onConflict((oc) => oc.column('company_id').doNothing())
    .execute();
}

/** Saves the fields given (blank text clears a field); fields left out keep their value. */
export async function updateDocumentDetails(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope, input: DocumentDetailsInput): Promise<DocumentDetails> {
  const errors = validateDetails(input);
  if (Object.keys(errors).length) throw new ValidationError('The company details are invalid', errors);
  await runCommand(engine, 'update_document_details', scope, async (tx) => {
    await ensureRow(tx, scope.companyId);
    const set: Partial<Row> = {};
    for (const key of ['legal_name', 'address', 'tax_id', 'payment_instructions', 'portal_link', 'footer'] as const) {
      if (input[key] !== undefined) set[key] = blankToNull(input[key]);
    }
    for (const key of BRAND_FIELDS) {
      const value = input[key] === undefined ? undefined : blankToNull(input[key]);
      if (value !== undefined) set[key] = value === null ? null : parseHexColour(value);
    }
    if (input.locale !== undefined) set.locale = canonicalLocale(input.locale) as string;
    if (input.paper !== undefined) set.paper = input.paper;
    await tx.db.updateTable('company_document_details').set({ ...set, updated_at: tx.now }).where('company_id', '=', scope.companyId).execute();
    await tx.record('company_document_details', scope.companyId, 'update', set);
  });
  return documentDetails(engine.db, scope.companyId);
}

/**
 * Stores the logo after checking it is really a PNG, JPEG or SVG of at most 1 MB, decoded within
 * bounds (logo.ts) and kept as a PNG of at most 1200 x 400: what is stored, synced and drawn is
 * never the file as sent.
 */
export async function setLogo(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope, data: Uint8Array): Promise<DocumentDetails> {
  const problem = logoProblem(data);
  if (problem) throw new ValidationError(problem, undefined, 'invalid_logo');
  const png = await boundLogo(data, sniffLogo(data) as LogoType).catch((err: unknown) => {
    throw err instanceof LogoRefused ? new ValidationError(err.message, undefined, 'invalid_logo') : err;
  });
  await runCommand(engine, 'set_document_logo', scope, async (tx) => {
    await ensureRow(tx, scope.companyId);
    await tx.db
      .updateTable('company_document_details')
      .set({ logo_base64: png.toString('base64'), logo_type: 'image/png', updated_at: tx.now })
      .where('company_id', '=', scope.companyId)
      .execute();
    await tx.record('company_document_details', scope.companyId, 'update', { logo_type: 'image/png', logo_bytes: png.length });
  });
  return documentDetails(engine.db, scope.companyId);
}

export async function removeLogo(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope): Promise<DocumentDetails> {
  await runCommand(engine, 'remove_document_logo', scope, async (tx) => {
    await tx.db.updateTable('company_document_details').set({ logo_base64: null, logo_type: null, updated_at: tx.now }).where('company_id', '=', scope.companyId).execute();
    await tx.record('company_document_details', scope.companyId, 'update', { logo_type: null });
  });
  return documentDetails(engine.db, scope.companyId);
}
