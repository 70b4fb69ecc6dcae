/** The delivery log of one endpoint, as Settings and the API show it. */
import type { Db } from '../db/connection';

export async function listDeliveries(db: Db, companyId: string, endpointId: string, limit: number) {
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.seq', 'd.event_seq')
    .select(['d.id', 'd.event_id', 'e.type as event_type', 'd.status', 'd.attempts', 'd.next_attempt_at', 'd.last_attempt_at', 'd.response_status', 'd.response_ms', 'd.error', 'd.created_at', 'd.delivered_at'])
    .where('d.company_id', '=', companyId)
    .where('d.endpoint_id', '=', endpointId)
    .orderBy('d.created_at', 'desc')
    .orderBy('d.event_seq', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ...r, next_attempt_at: r.status === 'pending' ? r.next_attempt_at : null }));
}
