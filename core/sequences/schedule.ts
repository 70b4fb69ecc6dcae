/**
 * When a sequence step fires: a step fires on (enrollment start date + offset_days) at
 * offset_time, read in the sequence's time zone, and is stored as a UTC instant.
 */
import { addDays, isValidDate } from '../dates';
import { isValidOffsetTime, zonedToUtc } from '../zones';

export interface StepTiming {
  offset_days: number;
  offset_time: string;
}

export interface Schedule {
  /** The local date the step fires on, in the sequence's zone. */
  scheduled_date: string;
  /** The UTC instant it fires at. */
  scheduled_at: string;
}

/** When a step of an enrollment starting on `startDate` fires. */
export function scheduleStep(startDate: string, step: StepTiming, timeZone: string): Schedule {
  if (!isValidDate(startDate)) throw new RangeError(`invalid start date ${startDate}`);
  if (!isValidOffsetTime(step.offset_time)) throw new RangeError(`invalid offset_time ${step.offset_time}`);
  const scheduled_date = addDays(startDate, step.offset_days);
  return { scheduled_date, scheduled_at: zonedToUtc(scheduled_date, step.offset_time, timeZone) };
}
