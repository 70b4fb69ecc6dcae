/** The events as a feed, for scripts that cannot receive webhooks: read after a cursor, oldest first. */
import type { Db } from '../db/connection';
import { ValidationError } from '../errors';
import type { EventType } from './events';

export interface EventDto {
  id: string;
  type: EventType;
  created_at: string;
  company_id: string;
  data: Record<string, unknown>;
}

export interface EventPage {
  data: EventDto[];
  /** Pass as `after` to read on; the same cursor when nothing new came. */
  next_cursor: string;
}

/** A cursor is the last event's position, opaque to scripts ("0" or absent: from the start). */
function position(after: string | undefined): number {
  if (after === undefined || after === '') return 0;
  if (!/^\d{1,15}$/.test(after)) throw new ValidationError('The cursor is not one this feed gave', { after: ['Pass the next_cursor of an earlier page, or leave it out to start from the first event'] });
  return Number(after);
}

export async function readEvents(db: Db, companyId: string, options: { after?: string; limit: number; types?: string[] }): Promise<EventPage> {
  const from = position(options.after);
  let query = db.selectFrom('events').select(['seq', 'id', 'type', 'created_at', 'company_id', 'data']).where('company_id', '=', companyId).where('seq', '>', from);
  if (options.types?.length) query = query.where('type', 'in', options.types);
  const rows = await query.orderBy('seq').limit(options.limit).execute();
  return {
    data: rows.map((r) => ({ id: r.id, type: r.type as EventType, created_at: r.created_at, company_id: r.company_id, data: JSON.parse(r.data) as Record<string, unknown> })),
    next_cursor: String(rows.at(-1)?.seq ?? from),
  };
}

/** Whether an event after the cursor exists (a long poll's question, asked as the feed is read). */
export async function hasEventsAfter(db: Db, companyId: string, after: string | undefined): Promise<boolean> {
  const row = await db.selectFrom('events').select('seq').where('company_id', '=', companyId).where('seq', '>', position(after)).limit(1).executeTakeFirst();
  return row !== undefined;
}
