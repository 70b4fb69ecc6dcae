/** Issue 40: the pure rules of a company made from nothing and of the setup codes its teammates sign in with. */
import { describe, expect, it } from 'vitest';
import { generateSetupCode, hashSetupCode, normalizeSetupCode } from '../../core/auth/setup-codes';
import { canonicalCountry, canonicalCurrency, checkNewCompany } from '../../core/onboarding/company';
import { teamRoleOf } from '../../core/team/join';

describe('a new company', () => {
  it('stores codes in their canonical spelling and refuses unknown ones field by field', () => {
    expect(checkNewCompany({ name: '  Nordlicht  ', currency: 'eur', time_zone: 'europe/berlin', country: 'de' })).toEqual({
      company: { name: 'Nordlicht', currency: 'EUR', time_zone: 'Europe/Berlin', country: 'DE' },
      errors: {},
    });
    expect(checkNewCompany({ name: 'Plain' }).company).toEqual({ name: 'Plain', currency: 'USD', time_zone: null, country: null });
    expect(Object.keys(checkNewCompany({ name: ' ', currency: 'XYZ1', time_zone: 'Mars/Base', country: 'ZZ', details: { portal_link: 'ftp://x' } }).errors).sort()).toEqual([
      'country',
      'currency',
      'name',
      'portal_link',
      'time_zone',
    ]);
    expect([canonicalCountry('gb'), canonicalCountry('XX'), canonicalCountry('USA')]).toEqual(['GB', null, null]);
    expect([canonicalCurrency('jpy'), canonicalCurrency('ABC')]).toEqual(['JPY', null]);
  });

  it('puts owners, managers and collectors on the team, and not viewers', () => {
    expect(['owner', 'manager', 'collector', 'viewer'].map((r) => teamRoleOf(r as 'owner'))).toEqual(['manager', 'manager', 'ar', null]);
  });
});

describe('setup codes', () => {
  it('are three groups of four unambiguous characters, different each time', () => {
    const codes = new Set(Array.from({ length: 200 }, generateSetupCode));
    expect(codes.size).toBe(200);
    for (const code of codes) expect(code).toMatch(/^[A-HJKMNP-TV-Z2-9]{4}-[A-HJKMNP-TV-Z2-9]{4}-[A-HJKMNP-TV-Z2-9]{4}$/);
  });

  it('read the same however they are typed, and hash to the same sha256', () => {
    expect(normalizeSetupCode(' k7qf-m2xd 9prt ')).toBe('K7QFM2XD9PRT');
    expect(hashSetupCode('k7qf m2xd-9prt')).toBe(hashSetupCode('K7QF-M2XD-9PRT'));
    expect(hashSetupCode('K7QF-M2XD-9PRT')).not.toBe(hashSetupCode('K7QF-M2XD-9PRU'));
  });
});
