import { addDays } from '../dates';

export interface ForecastWeek {
  week_index: number;
  code: string;
  label: string;
  start_date: string;
  end_date: string;
}

export const MIN_WEEKS = 1;
export const MAX_WEEKS = 26;
export const DEFAULT_WEEKS = 13;

export function clampWeeks(weeks: number): number {
  return Math.min(MAX_WEEKS, Math.max(MIN_WEEKS, Math.trunc(weeks)));
}

/** The first Monday strictly after `date` (a Monday request starts the window a week later). */
export function nextMonday(date: string): string {
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay(); // 0 = Sunday
  const ahead = ((8 - weekday) % 7) || 7;
  return addDays(date, ahead);
}

/** The Monday of the week holding `date` (the date itself on a Monday). */
export function mondayOf(date: string): string {
  return addDays(nextMonday(date), -7);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function shortDate(date: string): string {
  return `${MONTHS[Number(date.slice(5, 7)) - 1]} ${Number(date.slice(8, 10))}`;
}

/**
 * Weeks W1..Wn: W1 is this week from the request date to Sunday ("this week, from today": the rest
 * of the week is when a collector's cash comes first), then Monday-based weeks.
 */
export function forecastCalendar(requestDate: string, weeks: number): ForecastWeek[] {
  const monday = nextMonday(requestDate);
  return Array.from({ length: weeks }, (_, i) => {
    const start_date = i === 0 ? requestDate : addDays(monday, (i - 1) * 7);
    const end_date = i === 0 ? addDays(monday, -1) : addDays(start_date, 6);
    const label = i === 0 ? `This week, from ${shortDate(start_date)}` : `${shortDate(start_date)} - ${shortDate(end_date)}`;
    return { week_index: i + 1, code: `W${i + 1}`, label, start_date, end_date };
  });
}

/** Index of the week holding `date`, or -1 outside the window. */
export function weekIndexOf(calendar: ForecastWeek[], date: string): number {
  if (calendar.length === 0 || date < calendar[0].start_date || date > calendar[calendar.length - 1].end_date) return -1;
  return calendar.findIndex((w) => date >= w.start_date && date <= w.end_date);
}
