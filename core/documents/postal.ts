/**
 * Postal conventions by country: how a document writes an address's city line, and the paper and
 * date style a company's documents take when it has not chosen them. Pure.
 */
import type { Paper } from '../db/schema';

export interface PostalAddress {
  address_line1: string | null;
  city: string | null;
  region: string | null;
  postal_code: string | null;
  country: string | null;
}

const NAMES: Record<string, string> = { USA: 'US', 'UNITED STATES': 'US', 'UNITED STATES OF AMERICA': 'US', CANADA: 'CA', 'UNITED KINGDOM': 'GB', UK: 'GB', AUSTRALIA: 'AU' };

/** An ISO 3166 alpha-2 code for what an address or a company says its country is, or null. */
export function countryCode(country: string | null | undefined): string | null {
  const value = country?.trim().toUpperCase().replace(/\./g, '');
  if (!value) return null;
  return NAMES[value] ?? (/^[A-Z]{2}$/.test(value) ? value : null);
}

/** Countries that write "City, Region Postcode" (Seattle, WA 98162). */
const CITY_REGION_CODE = new Set(['US', 'CA', 'AU']);
/** Countries that write the postcode on its own line after the town (London / SW1A 1AA). */
const CODE_OWN_LINE = new Set(['GB', 'IE']);

/** The address's lines as the country writes them; elsewhere "Postcode City Region" (10115 Berlin). */
export function postalLines(a: PostalAddress): string[] {
  const code = countryCode(a.country);
  const join = (parts: Array<string | null>, sep = ' ') => parts.filter(Boolean).join(sep);
  let cityLines: string[];
  if (code && CITY_REGION_CODE.has(code)) cityLines = [join([a.city, join([a.region, a.postal_code])], ', ')];
  else if (code && CODE_OWN_LINE.has(code)) cityLines = [join([a.city, a.region], ', '), a.postal_code ?? ''];
  else cityLines = [join([a.postal_code, a.city, a.region])];
  return [a.address_line1, ...cityLines, a.country].filter((line): line is string => Boolean(line));
}

/** Letter-size countries (the rest of the world prints on A4). */
const LETTER = new Set(['US', 'CA', 'MX', 'PH', 'CL', 'CO', 'VE']);

/** The paper and the locale (dates, amounts) of a company's documents until it chooses: by its country. */
export function documentDefaults(country: string | null | undefined): { paper: Paper; locale: string } {
  const code = countryCode(country);
  if (!code) return { paper: 'A4', locale: 'en-US' };
  let locale = 'en-US';
  try {
    const [candidate] = Intl.DateTimeFormat.supportedLocalesOf([`en-${code}`]);
    if (candidate) locale = candidate;
  } catch {
    // An unknown code keeps en-US.
  }
  return { paper: LETTER.has(code) ? 'Letter' : 'A4', locale };
}
