/**
 * The Actions page and the customer page at a million invoices (about 100k live actions and 365k
 * active insights). Each inbox tab counted and paged its actions through (company, status) and
 * then read every row for the other flags; a customer's actions and insights were walked in
 * creation order over the whole company. These indexes hold exactly what those lists filter and
 * sort by, on live rows only: the counts read the index alone and a page reads its rows in order.
 * The customer's active insights index replaces the narrower one it extends.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE INDEX actions_inbox ON actions(company_id, status, is_action_required, is_ai_recommended, created_at, id) WHERE deleted_at IS NULL`.execute(db);
  await sql`CREATE INDEX actions_awaiting ON actions(company_id, status, top_recommendation, created_at, id) WHERE deleted_at IS NULL`.execute(db);
  await sql`CREATE INDEX actions_customer_recent ON actions(company_id, customer_id, created_at, id) WHERE deleted_at IS NULL`.execute(db);
  await sql`CREATE INDEX insights_customer_recent ON insights(company_id, customer_id, valid_from, id) WHERE valid_to IS NULL`.execute(db);
  await sql`DROP INDEX insights_customer_active`.execute(db);
}
