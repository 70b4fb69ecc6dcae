/**
 * Webhook endpoints: an owner registers where a company's events go. The signing secret is made
 * here, kept encrypted, and shown once (at creation and on rotation); nothing else returns it.
 */
import { type Engine, runCommand, type Scope } from '../engine';
import { NotFoundError, ValidationError } from '../errors';
import { newId } from '../ids';
import type { Db } from '../db/connection';
import { EVENT_TYPES } from './events';
import type { WebhookHostRule } from './destination';
import { urlRefusal } from './destination';
import { newWebhookSecret } from './signature';

type Box = Pick<Engine, 'db' | 'clock' | 'secrets'> & Partial<Pick<Engine, 'writeWait'>>;

export interface WebhookInput {
  url: string;
  events: string[];
  description?: string;
}

export interface WebhookEndpointDto {
  id: string;
  url: string;
  events: string[];
  description: string;
  created_at: string;
  updated_at: string;
  failing_since: string | null;
  disabled_at: string | null;
  disabled_reason: string | null;
}

type Row = {
  id: string;
  url: string;
  events: string;
  description: string;
  created_at: string;
  updated_at: string;
  failing_since: string | null;
  disabled_at: string | null;
  disabled_reason: string | null;
};

const COLUMNS = ['id', 'url', 'events', 'description', 'created_at', 'updated_at', 'failing_since', 'disabled_at', 'disabled_reason'] as const;

const toDto = (row: Row): WebhookEndpointDto => ({ ...row, events: JSON.parse(row.events) as string[] });

/** The event list as given, checked: known types or "*", none twice. */
export function checkedEvents(events: string[]): string[] {
  const known = new Set<string>([...EVENT_TYPES, '*']);
  const unknown = events.filter((e) => !known.has(e));
  if (events.length === 0) throw new ValidationError('Choose at least one event', { events: ['Choose at least one event, or "*" for all'] });
  if (unknown.length) throw new ValidationError(`Unknown event ${unknown.join(', ')}`, { events: [`Unknown: ${unknown.join(', ')}. Known: ${EVENT_TYPES.join(', ')}, or "*"`] });
  return [...new Set(events)];
}

function checkedUrl(rule: WebhookHostRule, url: string): string {
  const refusal = urlRefusal(rule, url.trim());
  if (refusal) throw new ValidationError(refusal, { url: [refusal] });
  return url.trim();
}

async function findRow(db: Db, companyId: string, id: string): Promise<Row> {
  const row = await db.selectFrom('webhook_endpoints').select(COLUMNS).where('company_id', '=', companyId).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
  if (!row) throw new NotFoundError('Webhook', id);
  return row;
}

export async function listWebhooks(db: Db, companyId: string): Promise<WebhookEndpointDto[]> {
  const rows = await db.selectFrom('webhook_endpoints').select(COLUMNS).where('company_id', '=', companyId).where('deleted_at', 'is', null).orderBy('created_at').execute();
  return rows.map(toDto);
}

export async function getWebhook(db: Db, companyId: string, id: string): Promise<WebhookEndpointDto> {
  return toDto(await findRow(db, companyId, id));
}

export async function createWebhook(engine: Box, scope: Scope, rule: WebhookHostRule, input: WebhookInput): Promise<WebhookEndpointDto & { secret: string }> {
  const url = checkedUrl(rule, input.url);
  const events = checkedEvents(input.events);
  const secret = newWebhookSecret();
  return runCommand(engine, 'create_webhook', scope, async (tx) => {
    const row = {
      id: newId(),
      company_id: scope.companyId,
      url,
      events: JSON.stringify(events),
      description: input.description?.trim() ?? '',
      secret_enc: engine.secrets.encrypt(secret),
      created_at: tx.now,
      updated_at: tx.now,
      failing_since: null,
      disabled_at: null,
      disabled_reason: null,
      deleted_at: null,
    };
    await tx.db.insertInto('webhook_endpoints').values(row).execute();
    const { secret_enc: _, ...recorded } = row;
    await tx.record('webhook_endpoint', row.id, 'insert', recorded);
    return { ...toDto(row), secret };
  });
}

/** Changes the address, events or description; re-enables a disabled endpoint when asked (`enabled: true`). */
export async function updateWebhook(engine: Box, scope: Scope, rule: WebhookHostRule, id: string, input: Partial<WebhookInput> & { enabled?: boolean }): Promise<WebhookEndpointDto> {
  const set: Record<string, unknown> = {};
  if (input.url !== undefined) set.url = checkedUrl(rule, input.url);
  if (input.events !== undefined) set.events = JSON.stringify(checkedEvents(input.events));
  if (input.description !== undefined) set.description = input.description.trim();
  if (input.enabled === true) Object.assign(set, { disabled_at: null, disabled_reason: null, failing_since: null });
  return runCommand(engine, 'update_webhook', scope, async (tx) => {
    await findRow(tx.db, scope.companyId, id);
    await tx.db.updateTable('webhook_endpoints').set({ ...set, updated_at: tx.now }).where('id', '=', id).execute();
    await tx.record('webhook_endpoint', id, 'update', set);
    return toDto(await findRow(tx.db, scope.companyId, id));
  });
}

/** Deletes the endpoint; its pending deliveries are dropped (the log stays readable by id until then). */
export async function deleteWebhook(engine: Box, scope: Scope, id: string): Promise<void> {
  await runCommand(engine, 'delete_webhook', scope, async (tx) => {
    await findRow(tx.db, scope.companyId, id);
    await tx.db.updateTable('webhook_endpoints').set({ deleted_at: tx.now, updated_at: tx.now }).where('id', '=', id).execute();
    await tx.db.updateTable('webhook_deliveries').set({ status: 'failed', error: 'The webhook was deleted' }).where('endpoint_id', '=', id).where('status', '=', 'pending').execute();
    await tx.record('webhook_endpoint', id, 'delete', {});
  });
}

/** A new secret, shown once; deliveries from now on are signed with it. */
export async function rotateWebhookSecret(engine: Box, scope: Scope, id: string): Promise<{ secret: string }> {
  const secret = newWebhookSecret();
  await runCommand(engine, 'rotate_webhook_secret', scope, async (tx) => {
    await findRow(tx.db, scope.companyId, id);
    await tx.db.updateTable('webhook_endpoints').set({ secret_enc: engine.secrets.encrypt(secret), updated_at: tx.now }).where('id', '=', id).execute();
    await tx.record('webhook_endpoint', id, 'update', { secret_rotated_at: tx.now });
  });
  return { secret };
}
