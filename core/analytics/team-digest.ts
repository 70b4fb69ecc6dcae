/**
 * The weekly team digest: one job per company and week on the bulk lane, due the next Monday at
 * 06:00 UTC (run at the next start when the app was closed then), emails the team view's figures
 * to its managers (team members marked manager, and users whose role in the company is manager),
 * over the company's default connection, through the mail door's internal entrance (internal
 * mail: the contact rule is for customers). A company's first digest is the Monday after it is
 * first seen, never at once on a start.
 */
import { today } from '../clock';
import { workingDate } from '../companies/as-of';
import { replicatedCompanies } from '../db/replicas';
import { addDays, fromEpochDay, longDate, toEpochDay } from '../dates';
import { defaultConnection } from '../email/connections';
import { handInternalToSmtp } from '../email/outbox';
import { type Engine, runCommand, systemActor } from '../engine';
import { enqueueJobs } from '../jobs/queue';
import { type JobHandler, PermanentJobError } from '../jobs/worker';
import { formatMoney } from '../money';
import { type TeamView, teamView, teamViewCsv } from './team-view';

export const TEAM_DIGEST = 'team_digest';

/** The Monday of a date's week (1970-01-01 was a Thursday). */
export function weekStart(date: string): string {
  const day = toEpochDay(date);
  return fromEpochDay(day - ((day + 3) % 7));
}

/** The first Monday after a date (a Monday's is the one a week later). */
export function nextMonday(date: string): string {
  return addDays(weekStart(date), 7);
}

/** Queues each company's next digest, due the coming Monday morning (once a week each: queuing again adds nothing). */
export async function queueTeamDigests(engine: Pick<Engine, 'db' | 'clock'>): Promise<number> {
  const monday = nextMonday(today(engine.clock));
  const companies = await engine.db.selectFrom('companies').select('id').where('id', 'not in', replicatedCompanies(engine.db)).execute();
  if (companies.length === 0) return 0;
  const jobs = companies.map((c) => ({ companyId: c.id, kind: TEAM_DIGEST, idempotencyKey: `${TEAM_DIGEST}:${c.id}:${monday}`, payload: { week: monday }, runAfter: `${monday}T06:00:00.000Z` }));
  const queued = await runCommand(engine, 'queue_team_digests', { actor: systemActor, companyId: null }, (tx) => enqueueJobs(tx, jobs));
  return queued.filter((j) => j.created).length;
}

/** The managers' addresses, each once (lower case decides). */
export async function managerAddresses(engine: Pick<Engine, 'db'>, companyId: string): Promise<string[]> {
  const team = await engine.db.selectFrom('team_members').select('email').where('company_id', '=', companyId).where('role', '=', 'manager').where('is_active', '=', 1).execute();
  const users = await engine.db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select('u.email')
    .where('m.company_id', '=', companyId)
    .where('m.role', '=', 'manager')
    .execute();
  const seen = new Map<string, string>();
  for (const { email } of [...team, ...users]) {
    const address = email?.trim();
    if (address && address.includes('@') && !seen.has(address.toLowerCase())) seen.set(address.toLowerCase(), address);
  }
  return [...seen.values()];
}

/** The digest's words: one block per collector, the figures of the team view. */
export function digestText(companyName: string, view: TeamView): { subject: string; text: string } {
  const money = (minor: number) => formatMoney(minor, view.currency);
  const pct = (n: number | null) => (n === null ? 'not enough data' : `${n}%`);
  const blocks = view.collectors.map((c) =>
    [
      c.name,
      `  Customers: ${c.customers}; open ${money(c.open_balance)}, overdue ${money(c.overdue_balance)}`,
      `  Touches: ${c.touches}; queue backlog: ${c.queue_backlog}`,
      `  Promises obtained: ${c.promises_obtained}; kept ${c.promises_kept}, broken ${c.promises_broken} (kept rate ${pct(c.promise_kept_rate)})`,
      `  Cash collected: ${money(c.cash_collected)}; CEI ${pct(c.cei)}; DSO ${c.dso === null ? 'not enough data' : `${c.dso} days`}`,
    ].join('\n'),
  );
  return {
    subject: `${companyName}: the collectors' week to ${longDate(view.as_of)}`,
    text: [`The week ${longDate(view.from)} to ${longDate(view.as_of)} at ${companyName}, per collector:`, '', ...blocks.flatMap((b) => [b, '']), 'The same figures are in ardesk under Team, with a CSV attached here.'].join('\n'),
  };
}

export const sendTeamDigest: JobHandler = async (job, ctx) => {
  const { engine } = ctx;
  const to = await managerAddresses(engine, job.company_id);
  // No manager with an address: nothing to send, and nothing to retry.
  if (to.length === 0) return;
  const connection = await defaultConnection(engine.db, job.company_id);
  if (!connection) throw new PermanentJobError('The company has no default email connection (Settings › Email connections): the team digest was not sent');
  const company = await engine.db.selectFrom('companies').select('name').where('id', '=', job.company_id).executeTakeFirstOrThrow();
  const view = await teamView(engine, job.company_id, workingDate(engine, job.company_id));
  const { subject, text } = digestText(company.name, view);
  const domain = /@([A-Za-z0-9.-]+)$/.exec(connection.from_email.trim())?.[1] ?? 'ardesk.invalid';
  const csv = Buffer.from(teamViewCsv(view), 'utf8');
  await handInternalToSmtp(engine, connection, {
    to: to.join(', '),
    subject,
    text,
    messageId: `<team-digest.${job.id}@${domain}>`,
    attachments: [{ filename: `team-${view.as_of}.csv`, content: csv, contentType: 'text/csv' }],
  });
};
