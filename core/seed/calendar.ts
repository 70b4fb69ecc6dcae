import { addDays } from '../dates';

/**
 * Days as integers relative to the seed's "today" (0 = today, -1 = yesterday): the generator
 * works in those, and turns them into ISO strings through precomputed tables, because building a
 * Date per row costs more than the SQLite insert at a million rows.
 */
export class Calendar {
  private readonly dates: string[];
  private readonly first: number;
  private readonly times: string[];

  constructor(
    readonly today: string,
    first = -1500,
    last = 400,
  ) {
    this.first = first;
    this.dates = [];
    for (let d = first; d <= last; d++) this.dates.push(addDays(today, d));
    this.times = [];
    for (let m = 0; m < 1440; m++) this.times.push(`T${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}:00.000Z`);
  }

  date(day: number): string {
    const s = this.dates[day - this.first];
    if (s === undefined) throw new RangeError(`day ${day} is outside the seed calendar`);
    return s;
  }

  /** An ISO UTC timestamp on `day` at `minute` minutes after midnight UTC. */
  stamp(day: number, minute: number): string {
    return this.date(day) + this.times[minute];
  }
}

/**
 * The UTC instant of a wall-clock time in an IANA zone (e.g. 09:00 in America/New_York), as the
 * sequence scheduler stores scheduled_at. Two passes settle the offset across DST changes.
 */
export function zonedTimeToUtc(date: string, time: string, timeZone: string): string {
  const wall = Date.parse(`${date}T${time}:00Z`);
  let guess = wall;
  for (let i = 0; i < 2; i++) guess = wall - offsetMs(guess, timeZone);
  return new Date(guess).toISOString();
}

function offsetMs(instant: number, timeZone: string): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
      .formatToParts(new Date(instant))
      .map((p) => [p.type, p.value]),
  );
  const asUtc = Date.UTC(+parts.year, +parts.month - 1, +parts.day, +parts.hour, +parts.minute, +parts.second);
  return asUtc - Math.floor(instant / 1000) * 1000;
}
