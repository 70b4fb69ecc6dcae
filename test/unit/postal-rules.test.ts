import { describe, expect, it } from 'vitest';
import { countryCode, documentDefaults, postalLines } from '../../core/documents/postal';

const seattle = { address_line1: '4500 Union Bay Pl NE', city: 'Seattle', region: 'WA', postal_code: '98162', country: 'US' };

describe('addresses by country', () => {
  it('writes a US or Canadian city line as "City, Region Postcode"', () => {
    expect(postalLines(seattle)).toEqual(['4500 Union Bay Pl NE', 'Seattle, WA 98162', 'US']);
    expect(postalLines({ ...seattle, city: 'Toronto', region: 'ON', postal_code: 'M5V 2T6', country: 'Canada' })[1]).toBe('Toronto, ON M5V 2T6');
    expect(postalLines({ ...seattle, country: 'United States' })[1]).toBe('Seattle, WA 98162');
  });

  it('writes the postcode first elsewhere, on its own line in the UK, and leaves out what is missing', () => {
    expect(postalLines({ address_line1: 'Invalidenstr. 1', city: 'Berlin', region: null, postal_code: '10115', country: 'DE' })).toEqual(['Invalidenstr. 1', '10115 Berlin', 'DE']);
    expect(postalLines({ address_line1: '10 Downing St', city: 'London', region: null, postal_code: 'SW1A 2AA', country: 'GB' })).toEqual(['10 Downing St', 'London', 'SW1A 2AA', 'GB']);
    expect(postalLines({ address_line1: null, city: 'Seattle', region: null, postal_code: null, country: 'US' })).toEqual(['Seattle', 'US']);
    expect(postalLines({ address_line1: null, city: null, region: null, postal_code: null, country: null })).toEqual([]);
  });

  it('reads a country as a code', () => {
    expect(countryCode(' usa ')).toBe('US');
    expect(countryCode('U.S.A.')).toBe('US');
    expect(countryCode('de')).toBe('DE');
    expect(countryCode('Atlantis')).toBeNull();
  });
});

describe("documents' paper and dates from the company's country", () => {
  it('prints on Letter in the US and Canada, A4 elsewhere and when the country is not known', () => {
    expect(documentDefaults('US')).toEqual({ paper: 'Letter', locale: 'en-US' });
    expect(documentDefaults('CA')).toEqual({ paper: 'Letter', locale: 'en-CA' });
    expect(documentDefaults('GB')).toEqual({ paper: 'A4', locale: 'en-GB' });
    expect(documentDefaults('DE').paper).toBe('A4');
    expect(documentDefaults(null)).toEqual({ paper: 'A4', locale: 'en-US' });
  });

  it('writes dates the way the country does', () => {
    const format = (locale: string) => new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date('2026-11-23T00:00:00Z'));
    expect(format(documentDefaults('US').locale)).toBe('Nov 23, 2026');
    expect(format(documentDefaults('GB').locale)).toBe('23 Nov 2026');
  });
});
