/**
 * ISO 11649 structured creditor references ("RF" + two check digits + up to 21 letters and
 * digits) that ardesk prints on invoices and statements, so a customer who copies one makes a
 * payment the matching finds without doubt. An invoice's reference carries its number ("I" and
 * the number's letters and digits); a statement's carries its customer ("C" and 16 hex digits of
 * the customer's id, enough to tell customers apart).
 */

const MAX_BODY = 21;

/** The number a reference's characters stand for (A=10 ... Z=35), reduced mod 97 piece by piece. */
function mod97(text: string): number {
  let rest = 0;
  for (const ch of text) {
    const value = /[0-9]/.test(ch) ? ch : String(ch.charCodeAt(0) - 55);
    for (const digit of value) rest = (rest * 10 + Number(digit)) % 97;
  }
  return rest;
}

/** The reference for `body` (letters and digits, at most 21), e.g. RF18539007547034 for 539007547034. */
export function makeRf(body: string): string {
  const clean = body.toUpperCase();
  if (!/^[A-Z0-9]{1,21}$/.test(clean)) throw new Error(`An RF reference body is 1 to ${MAX_BODY} letters and digits, not "${body}"`);
  const check = 98 - mod97(`${clean}RF00`);
  return `RF${String(check).padStart(2, '0')}${clean}`;
}

/** Whether `reference` (spaces allowed, any case) is a valid ISO 11649 reference. */
export function isValidRf(reference: string): boolean {
  const compact = reference.replace(/\s+/g, '').toUpperCase();
  if (!/^RF\d{2}[A-Z0-9]{1,21}$/.test(compact)) return false;
  return mod97(`${compact.slice(4)}${compact.slice(0, 4)}`) === 1;
}

/** Printed in groups of four, as banks and invoices show it: "RF71 IINV 1023 1". */
export function formatRf(reference: string): string {
  return reference.replace(/(.{4})(?=.)/g, '$1 ');
}

/** An invoice's reference, or null when its number has more letters and digits than fit. */
export function invoiceRf(invoiceNumber: string): string | null {
  const body = `I${invoiceNumber.toUpperCase().replace(/[^A-Z0-9]/g, '')}`;
  return body.length > 1 && body.length <= MAX_BODY ? makeRf(body) : null;
}

/** The part of a customer id a statement's reference carries: its last 16 hex digits (the random ones of a UUIDv7). */
export function customerRfPart(customerId: string): string {
  return customerId.replace(/-/g, '').slice(-16).toUpperCase();
}

/** A statement's reference: it names the customer whose statement it is. */
export function statementRf(customerId: string): string {
  return makeRf(`C${customerRfPart(customerId)}`);
}

export type RfMeaning = { kind: 'invoice'; number: string; reference: string } | { kind: 'customer'; part: string; reference: string };

/** What a valid reference of ardesk's means; null for another creditor's or a malformed one. */
export function readRf(reference: string): RfMeaning | null {
  if (!isValidRf(reference)) return null;
  const compact = reference.replace(/\s+/g, '').toUpperCase();
  const body = compact.slice(4);
  if (body.startsWith('I') && body.length > 1) return { kind: 'invoice', number: body.slice(1), reference: compact };
  if (/^C[0-9A-F]{16}$/.test(body)) return { kind: 'customer', part: body.slice(1), reference: compact };
  return null;
}

/**
 * Every valid reference of ardesk's in a text (a structured field or free remittance text): "RF"
 * and its check digits, then the longest run of characters (spaces between groups allowed) that
 * checks out.
 */
export function findRfs(text: string): RfMeaning[] {
  const found: RfMeaning[] = [];
  const upper = text.toUpperCase();
  for (const match of upper.matchAll(/RF\d{2}(?:\s?[A-Z0-9]){1,21}/g)) {
    const compact = match[0].replace(/\s+/g, '');
    for (let end = compact.length; end > 4; end--) {
      const meaning = readRf(compact.slice(0, end));
      if (meaning) {
        if (!found.some((f) => f.reference === meaning.reference)) found.push(meaning);
        break;
      }
    }
  }
  return found;
}
