/** The job kinds the core runs in the background, and who runs each. */
import { ACTION_EMAIL } from '../actions/delivery';
import { sendActionEmail } from '../actions/send';
import { AGING_SNAPSHOT, takeAgingSnapshot } from '../analytics/snapshot-job';
import { sendTeamDigest, TEAM_DIGEST } from '../analytics/team-digest';
import { sendStatementsJob, STATEMENT_SEND } from '../documents/send';
import { INTELLIGENCE_REFRESH, type RefreshExecutor, refreshInProcess, refreshJobHandlerWith } from '../intelligence/jobs';
import { followPromisesJob, PROMISE_FOLLOWUP } from '../promises/job';
import { INVOICE_REMINDER } from '../reminders/queue';
import { sendInvoiceReminder } from '../reminders/send';
import { REPLY_SYNC, syncReplies } from '../replies/sync';
import { IMPORT_WATCH, runWatchedImportJob } from '../import/watch';
import type { JobLane } from '../jobs/queue';
import type { JobHandler } from '../jobs/worker';

/**
 * The emails a person is waiting to see go out (approved actions, reminders) run in a lane of
 * their own, so a statement run, a refresh or a reading of replies never holds them up.
 */
const CUSTOMER_SENDS = [INVOICE_REMINDER, ACTION_EMAIL];
export const SEND_LANE: JobLane = { kinds: CUSTOMER_SENDS };
export const BULK_LANE: JobLane = { otherThan: CUSTOMER_SENDS };

/** `refresh`: where the intelligence refresh runs (the server passes its refresh process); this process by default. */
export function coreJobHandlers(options: { refresh?: RefreshExecutor } = {}): Record<string, JobHandler> {
  return {
    [INVOICE_REMINDER]: sendInvoiceReminder,
    [ACTION_EMAIL]: sendActionEmail,
    [AGING_SNAPSHOT]: takeAgingSnapshot,
    [REPLY_SYNC]: syncReplies,
    [INTELLIGENCE_REFRESH]: refreshJobHandlerWith(options.refresh ?? refreshInProcess),
    [STATEMENT_SEND]: sendStatementsJob,
    [TEAM_DIGEST]: sendTeamDigest,
    [IMPORT_WATCH]: runWatchedImportJob,
    [PROMISE_FOLLOWUP]: followPromisesJob,
  };
}
