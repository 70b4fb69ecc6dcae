import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, isValidDate, MAX_DATE, MIN_DATE } from '../../core/dates';
import { OFFSET_DAYS_MAX } from '../../core/sequences/rules';
import { scheduleStep } from '../../core/sequences/schedule';
import { canonicalTimeZone, isValidOffsetTime, localDate, zonedToUtc } from '../../core/zones';

describe('scheduleStep', () => {
  it('adds offset_days to the start date and reads offset_time in the sequence zone', () => {
    expect(scheduleStep('2026-11-23', { offset_days: 0, offset_time: '09:00' }, 'America/New_York')).toEqual({
      scheduled_date: '2026-11-23',
      scheduled_at: '2026-11-23T14:00:00.000Z',
    });
    expect(scheduleStep('2026-11-23', { offset_days: 7, offset_time: '16:30' }, 'America/New_York')).toEqual({
      scheduled_date: '2026-11-30',
      scheduled_at: '2026-11-30T21:30:00.000Z',
    });
  });

  it('crosses month and year ends', () => {
    expect(scheduleStep('2026-12-28', { offset_days: 5, offset_time: '08:00' }, 'UTC')).toEqual({
      scheduled_date: '2027-01-02',
      scheduled_at: '2027-01-02T08:00:00.000Z',
    });
    expect(scheduleStep('2028-02-27', { offset_days: 2, offset_time: '00:00' }, 'UTC').scheduled_date).toBe('2028-02-29');
  });

  it('gives a local date whose UTC instant falls on another day east and west of UTC', () => {
    expect(scheduleStep('2026-06-01', { offset_days: 0, offset_time: '00:00' }, 'Asia/Kolkata').scheduled_at).toBe('2026-05-31T18:30:00.000Z');
    expect(scheduleStep('2026-06-01', { offset_days: 0, offset_time: '23:59' }, 'Pacific/Honolulu').scheduled_at).toBe('2026-06-02T09:59:00.000Z');
    expect(scheduleStep('2026-11-23', { offset_days: 7, offset_time: '09:00' }, 'Australia/Sydney').scheduled_at).toBe('2026-11-29T22:00:00.000Z');
  });

  it('keeps the wall-clock time across the spring DST change (New York, 2026-03-08)', () => {
    const start = '2026-03-06';
    const before = scheduleStep(start, { offset_days: 1, offset_time: '09:00' }, 'America/New_York');
    const after = scheduleStep(start, { offset_days: 3, offset_time: '09:00' }, 'America/New_York');
    expect(before.scheduled_at).toBe('2026-03-07T14:00:00.000Z');
    expect(after.scheduled_at).toBe('2026-03-09T13:00:00.000Z');
  });

  it('keeps the wall-clock time across the autumn DST change (Berlin, 2026-10-25)', () => {
    expect(scheduleStep('2026-10-24', { offset_days: 0, offset_time: '10:00' }, 'Europe/Berlin').scheduled_at).toBe('2026-10-24T08:00:00.000Z');
    expect(scheduleStep('2026-10-24', { offset_days: 1, offset_time: '10:00' }, 'Europe/Berlin').scheduled_at).toBe('2026-10-25T09:00:00.000Z');
  });

  it('moves a time skipped by the spring gap forward by the gap', () => {
    expect(zonedToUtc('2026-03-08', '02:30', 'America/New_York')).toBe('2026-03-08T07:30:00.000Z');
    expect(zonedToUtc('2026-03-29', '02:30', 'Europe/Berlin')).toBe('2026-03-29T01:30:00.000Z');
  });

  it('takes the earlier instant for a time that occurs twice in autumn', () => {
    expect(zonedToUtc('2026-11-01', '01:30', 'America/New_York')).toBe('2026-11-01T05:30:00.000Z');
    expect(zonedToUtc('2026-10-25', '02:30', 'Europe/Berlin')).toBe('2026-10-25T00:30:00.000Z');
  });

  it('refuses a malformed start date or time', () => {
    expect(() => scheduleStep('2026-02-30', { offset_days: 0, offset_time: '09:00' }, 'UTC')).toThrow(RangeError);
    expect(() => scheduleStep('2026-02-01', { offset_days: 0, offset_time: '9:00' }, 'UTC')).toThrow(RangeError);
  });
});

describe('time zones and times', () => {
  it('accepts IANA names in any case and gives their canonical spelling', () => {
    expect(canonicalTimeZone('America/New_York')).toBe('America/New_York');
    expect(canonicalTimeZone('america/new_york')).toBe('America/New_York');
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    expect(canonicalTimeZone('Etc/GMT+5')).toBe('Etc/GMT+5');
  });

  it('rejects unknown zones and bare UTC offsets', () => {
    for (const bad of ['Mars/Olympus_Mons', 'New York', '+05:00', '-0300', '', 'America/']) expect(canonicalTimeZone(bad)).toBeNull();
  });

  it('checks HH:MM', () => {
    for (const ok of ['00:00', '09:00', '23:59']) expect(isValidOffsetTime(ok)).toBe(true);
    for (const bad of ['24:00', '9:00', '09:60', '09:00:00', 'noon']) expect(isValidOffsetTime(bad)).toBe(false);
  });

  it('gives the local date of an instant', () => {
    expect(localDate(new Date('2026-11-23T03:00:00Z'), 'America/New_York')).toBe('2026-11-22');
    expect(localDate(new Date('2026-11-23T03:00:00Z'), 'Asia/Tokyo')).toBe('2026-11-23');
  });
});

describe('schedule arithmetic is total over the accepted inputs', () => {
  const day = fc.integer({ min: 0, max: 400_000 }).map((n) => addDays(MIN_DATE, n)).filter(isValidDate);
  const time = fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 })).map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
  const zone = fc.constantFrom('UTC', 'America/New_York', 'Europe/Berlin', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'Australia/Lord_Howe');

  it('gives a valid date and instant for every start date in range, offset and zone', () => {
    fc.assert(
      fc.property(day, fc.integer({ min: 0, max: OFFSET_DAYS_MAX }), time, zone, (start, offset_days, offset_time, tz) => {
        const s = scheduleStep(start, { offset_days, offset_time }, tz);
        expect(s.scheduled_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        expect(Number.isNaN(Date.parse(s.scheduled_at))).toBe(false);
      }),
      { numRuns: 300 },
    );
    expect(scheduleStep(MAX_DATE, { offset_days: OFFSET_DAYS_MAX, offset_time: '23:59' }, 'Pacific/Kiritimati').scheduled_date).toBe('3009-12-29');
  });

  it('accepts dates only from 1900-01-01 to 2999-12-31', () => {
    expect(isValidDate(MIN_DATE)).toBe(true);
    expect(isValidDate(MAX_DATE)).toBe(true);
    for (const d of ['1899-12-31', '3000-01-01', '9999-12-31', '0000-01-01']) expect(isValidDate(d), d).toBe(false);
  });
});
