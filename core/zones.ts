/** Wall-clock times and IANA time zones: pure functions over instants, zones and local dates. */

const DAY_MS = 86_400_000;
/** A wall-clock time HH:MM, 00:00 to 23:59. */
export const OFFSET_TIME_RE = /^([01]\d|2[0-3]):([0-5]\d)$/;
// IANA names only: Intl also accepts UTC offsets such as "+05:00", which are not zones.
const ZONE_NAME_RE = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The canonical spelling of an IANA zone ("america/new_york" -> "America/New_York"), or null when unknown. */
export function canonicalTimeZone(value: string): string | null {
  if (!ZONE_NAME_RE.test(value)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

export function isValidOffsetTime(value: string): boolean {
  return OFFSET_TIME_RE.test(value);
}

/** The wall clock in `timeZone` at `instantMs`, as epoch milliseconds of that wall time read as UTC. */
function wallClockMs(instantMs: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(instantMs))) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  return Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
}

/** The zone's offset from UTC (ms, east positive) at an instant. */
function offsetMs(instantMs: number, timeZone: string): number {
  const whole = Math.floor(instantMs / 1000) * 1000;
  return wallClockMs(whole, timeZone) - whole;
}

/**
 * The UTC instant of a wall-clock date and time in a zone. Around DST changes it resolves like
 * Temporal's "compatible" mode: a time that occurs twice (autumn) takes the earlier instant; a time
 * skipped by the spring-forward gap moves forward by the gap (02:30 becomes 03:30).
 */
export function zonedToUtc(date: string, time: string, timeZone: string): string {
  const [y, m, d] = date.split('-').map(Number);
  const [hh, mm] = time.split(':').map(Number);
  const wall = Date.UTC(y, m - 1, d, hh, mm);
  const before = offsetMs(wall - DAY_MS, timeZone);
  const after = offsetMs(wall + DAY_MS, timeZone);
  const valid = [...new Set([before, after])].map((o) => wall - o).filter((t) => wallClockMs(t, timeZone) === wall);
  const instant = valid.length ? Math.min(...valid) : wall - before;
  return new Date(instant).toISOString();
}

/** The calendar date in `timeZone` at an instant. */
export function localDate(instant: Date, timeZone: string): string {
  return new Date(wallClockMs(instant.getTime(), timeZone)).toISOString().slice(0, 10);
}
