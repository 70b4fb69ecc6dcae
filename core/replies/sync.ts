/**
 * Reading replies: a durable job per email connection that reads its IMAP mailbox from where the
 * last read stopped (UIDVALIDITY and last UID kept per mailbox), in batches, each batch committed
 * with the new position so a crash re-reads at most one batch (and re-reading adds nothing twice).
 */
import type { ImapFlow } from 'imapflow';
import type { Db } from '../db/connection';
import type { EmailConnection, Job } from '../db/schema';
import { describeMailError } from '../email/diagnose';
import { hasImap, IMAP_TIMEOUT_SECONDS, openImap, UnreadableSecretError } from '../email/imap';
import { type Engine, runCommand, type Scope, systemActor } from '../engine';
import { InvalidStateError, NotFoundError } from '../errors';
import { newId } from '../ids';
import { enqueueJob } from '../jobs/queue';
import { type JobContext, PermanentJobError } from '../jobs/worker';
import { parseMessage } from './parse';
import { emptyTally, type ReadTally, recordIncoming } from './record';
import { replicatedCompanies } from '../db/replicas';
import { chunks } from '../chunks';

export const REPLY_SYNC = 'email_reply_sync';
/** A mailbox read for the first time (or after its UIDVALIDITY changed) is read this far back. */
export const FIRST_READ_DAYS = 30;
/** Messages fetched and committed together. */
export const READ_BATCH = 50;

export interface ReplySyncPayload {
  connection_id: string;
}

export interface ReplySyncResult extends ReadTally {
  mailbox: string;
  uid_validity: string;
  last_uid: number;
  /** The mailbox's UIDVALIDITY differed from the one kept: it was read again from the start of the window. */
  uid_validity_changed: boolean;
}

const DAY_MS = 86_400_000;

async function loadConnection(db: Db, companyId: string, connectionId: string): Promise<EmailConnection | undefined> {
  return db.selectFrom('email_connections').selectAll().where('company_id', '=', companyId).where('id', '=', connectionId).executeTakeFirst();
}

/** UIDs to read: above the last one read, or (first read) those received in the last FIRST_READ_DAYS days. */
async function uidsToRead(client: ImapFlow, lastUid: number, since: Date): Promise<number[]> {
  const found = lastUid > 0 ? await client.search({ uid: `${lastUid + 1}:*` }, { uid: true }) : await client.search({ since }, { uid: true });
  // "N:*" names the highest UID even when it is below N, so filter.
  return (found || []).filter((uid) => uid > lastUid).sort((a, b) => a - b);
}

async function readMailbox(engine: Engine, connection: EmailConnection): Promise<ReplySyncResult> {
  const scope = { actor: systemActor, companyId: connection.company_id };
  const mailbox = connection.imap_mailbox;
  const client = await openImap(connection, engine.secrets);
  try {
    const box = await client.mailboxOpen(mailbox, { readOnly: true });
    const uidValidity = String(box.uidValidity);
    const state = await engine.db.selectFrom('imap_mailbox_states').selectAll().where('email_connection_id', '=', connection.id).where('mailbox', '=', mailbox).executeTakeFirst();
    const changed = state !== undefined && state.uid_validity !== uidValidity;
    let lastUid = state && !changed ? state.last_uid : 0;
    const since = new Date(engine.clock.now().getTime() - FIRST_READ_DAYS * DAY_MS);
    const uids = await uidsToRead(client, lastUid, since);
    const tally = emptyTally();
    const save = async (uid: number, work: (tx: Parameters<Parameters<typeof runCommand>[3]>[0]) => Promise<void>) =>
      runCommand(engine, 'read_email_replies', scope, async (tx) => {
        await work(tx);
        await tx.db
          .insertInto('imap_mailbox_states')
          .values({ company_id: connection.company_id, email_connection_id: connection.id, mailbox, uid_validity: uidValidity, last_uid: uid, updated_at: tx.now })
          .onConflict((oc) => oc.columns(['email_connection_id', 'mailbox']).doUpdateSet({ uid_validity: uidValidity, last_uid: uid, updated_at: tx.now }))
          .execute();
        await tx.record('imap_mailbox_state', `${connection.id}:${mailbox}`, 'update', { uid_validity: uidValidity, last_uid: uid });
      });
    for (const batch of chunks(uids, READ_BATCH)) {
      const fetched = await client.fetchAll(batch.join(','), { uid: true, source: true }, { uid: true });
      const messages = await Promise.all(fetched.filter((m) => m.source).map((m) => parseMessage(m.uid, m.source as Buffer)));
      messages.sort((a, b) => a.uid - b.uid);
      lastUid = batch[batch.length - 1];
      await save(lastUid, async (tx) => {
        for (const message of messages) await recordIncoming(tx, connection, uidValidity, message, tally);
      });
    }
    // Older mail left out of a first read is skipped for good: the position moves past it.
    const end = Math.max(lastUid, (box.uidNext ?? 1) - 1);
    if (end !== state?.last_uid || changed) await save(end, async () => undefined);
    return { mailbox, uid_validity: uidValidity, last_uid: end, uid_validity_changed: changed, ...tally };
  } finally {
    await client.logout().catch(() => undefined);
  }
}

/**
 * The job: read one connection's mailbox. A connection switched off or without IMAP succeeds with
 * nothing read. A failure is recorded on the connection in words and fails the job at once: the
 * schedule is the retry (the next read starts from the same position).
 */
export async function syncReplies(job: Job, ctx: JobContext): Promise<void> {
  const { engine } = ctx;
  const { connection_id: connectionId } = JSON.parse(job.payload) as ReplySyncPayload;
  const connection = await loadConnection(engine.db, job.company_id, connectionId);
  if (!connection) throw new PermanentJobError(`Email connection ${connectionId} no longer exists`);
  if (connection.is_active !== 1 || !hasImap(connection)) {
    await ctx.succeed({ write: async () => ({ skipped: connection.is_active !== 1 ? 'The connection is switched off' : 'The connection has no IMAP server' }) });
    return;
  }
  let result: ReplySyncResult;
  try {
    result = await readMailbox(engine, connection);
  } catch (err) {
    const message = err instanceof UnreadableSecretError ? err.message : describeMailError(err, { protocol: 'IMAP', host: connection.imap_host, port: connection.imap_port }, IMAP_TIMEOUT_SECONDS);
    await runCommand(engine, 'record_reply_read_error', { actor: systemActor, companyId: job.company_id }, async (tx) => {
      await tx.db.updateTable('email_connections').set({ replies_error: message }).where('id', '=', connection.id).execute();
      await tx.record('email_connection', connection.id, 'update', { replies_error: message });
    });
    throw new PermanentJobError(message);
  }
  await ctx.succeed({
    write: async (tx) => {
      await tx.db.updateTable('email_connections').set({ replies_checked_at: tx.now, replies_error: null }).where('id', '=', connection.id).execute();
      await tx.record('email_connection', connection.id, 'update', { replies_checked_at: tx.now, replies_error: null });
      return result;
    },
  });
}

/** A reading already queued or running for the connection, else a new one. */
async function queueRead(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope, connectionId: string, key: string): Promise<{ id: string; created: boolean }> {
  return runCommand(engine, 'queue_reply_read', scope, async (tx) => {
    const pending = await tx.db
      .selectFrom('jobs')
      .select('id')
      .where('company_id', '=', scope.companyId)
      .where('kind', '=', REPLY_SYNC)
      .where('subject_id', '=', connectionId)
      .where('status', 'in', ['queued', 'running'])
      .executeTakeFirst();
    if (pending) return { id: pending.id, created: false };
    return enqueueJob(tx, { companyId: scope.companyId, kind: REPLY_SYNC, idempotencyKey: key, payload: { connection_id: connectionId } satisfies ReplySyncPayload, subjectId: connectionId, maxAttempts: 1 });
  });
}

/** On demand (the API): the connection must be active and have an IMAP server. */
export async function requestReplyRead(engine: Pick<Engine, 'db' | 'clock'>, scope: Scope, connectionId: string): Promise<{ id: string; created: boolean }> {
  const connection = await loadConnection(engine.db, scope.companyId, connectionId);
  if (!connection) throw new NotFoundError('Email connection', connectionId);
  if (connection.is_active !== 1) throw new InvalidStateError('The connection is switched off', 'connection_inactive');
  if (!hasImap(connection)) throw new InvalidStateError('The connection has no IMAP server to read replies from; add one first', 'no_imap');
  // Each request is new work once nothing is pending (the check above), so its key is unique.
  return queueRead(engine, scope, connection.id, `${REPLY_SYNC}:${connection.id}:manual:${newId()}`);
}

/** How often each connection's mailbox is read on the schedule. */
export const REPLY_READ_INTERVAL_MS = 5 * 60_000;

/**
 * The schedule: a reading for every active connection with an IMAP server, one per interval slot
 * (the slot is part of the idempotency key, so two processes or a restart queue it once).
 */
export async function queueScheduledReplyReads(engine: Pick<Engine, 'db' | 'clock'>, intervalMs = REPLY_READ_INTERVAL_MS): Promise<number> {
  const connections = await engine.db.selectFrom('email_connections').select(['id', 'company_id']).where('is_active', '=', 1)
    .where('imap_host', 'is not', null)
    .where('company_id', 'not in', replicatedCompanies(engine.db))
    .execute();
  const slot = Math.floor(engine.clock.now().getTime() / intervalMs);
  let queued = 0;
  for (const c of connections) {
    const result = await queueRead(engine, { actor: systemActor, companyId: c.company_id }, c.id, `${REPLY_SYNC}:${c.id}:slot:${slot}`);
    if (result.created) queued += 1;
  }
  return queued;
}
