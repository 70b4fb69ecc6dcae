/**
 * An invoice's last touch is the last contact with the customer (issue 24): an internal note (a
 * dispute's note, a collector's note to the team) is not one, nor a task action done (a review, a
 * write-off). The triggers now skip internal communications and task actions, and invoices whose
 * last touch was one of those get it back from their latest contact: a communication to or from
 * the customer, or an executed email or call action (none: no touch).
 */
import { type Kysely, sql } from 'kysely';

const TRIGGER = [
  `DROP TRIGGER communications_last_touch`,
  `CREATE TRIGGER communications_last_touch AFTER INSERT ON communications
WHEN NEW.invoice_id IS NOT NULL AND NEW.direction <> 'internal' BEGIN
  UPDATE invoices SET last_touch_at = NEW.occurred_at, last_touched_by = NEW.author_name
  WHERE id = NEW.invoice_id AND (last_touch_at IS NULL OR last_touch_at <= NEW.occurred_at);
END`,
  `DROP TRIGGER actions_last_touch`,
  `CREATE TRIGGER actions_last_touch AFTER UPDATE OF executed_at ON actions
WHEN NEW.invoice_id IS NOT NULL AND NEW.executed_at IS NOT NULL AND NEW.action_type <> 'task' BEGIN
  UPDATE invoices SET last_touch_at = NEW.executed_at, last_touched_by = NEW.executed_by
  WHERE id = NEW.invoice_id AND (last_touch_at IS NULL OR last_touch_at <= NEW.executed_at);
END`,
];

/**
 * Gives back their latest contact to the invoices whose last touch is an internal note or a task
 * action done; driven by those (few), not by the invoices.
 */
export async function repairLastTouch(db: Kysely<any>): Promise<void> {
  await sql`UPDATE invoices SET (last_touch_at, last_touched_by) = (
  SELECT t.at, t.by FROM (
    SELECT c.occurred_at AS at, c.author_name AS by FROM communications c WHERE c.invoice_id = invoices.id AND c.direction <> 'internal'
    UNION ALL
    SELECT a.executed_at, a.executed_by FROM actions a WHERE a.invoice_id = invoices.id AND a.executed_at IS NOT NULL AND a.action_type <> 'task'
  ) t ORDER BY t.at DESC LIMIT 1)
WHERE id IN (
    SELECT n.invoice_id FROM communications n WHERE n.invoice_id IS NOT NULL AND n.direction = 'internal'
    UNION SELECT k.invoice_id FROM actions k WHERE k.invoice_id IS NOT NULL AND k.action_type = 'task' AND k.executed_at IS NOT NULL)
  AND (EXISTS (SELECT 1 FROM communications n WHERE n.invoice_id = invoices.id AND n.direction = 'internal' AND n.occurred_at = invoices.last_touch_at)
    OR EXISTS (SELECT 1 FROM actions k WHERE k.invoice_id = invoices.id AND k.action_type = 'task' AND k.executed_at = invoices.last_touch_at))`.execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of TRIGGER) await sql.raw(statement).execute(db);
  await repairLastTouch(db);
}
