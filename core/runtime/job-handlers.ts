/** The job kinds the core runs in the background, and who runs each. */
import { ACTION_EMAIL } from '../actions/delivery';
import { sendActionEmail } from '../actions/send';
import { AGING_SNAPSHOT, takeAgingSnapshot } from '../analytics/snapshot-job';
import { sendStatementsJob, STATEMENT_SEND } from '../documents/send';
import { INTELLIGENCE_REFRESH, type RefreshExecutor, refreshInProcess, refreshJobHandlerWith } from '../intelligence/jobs';
import { INVOICE_REMINDER } from '../reminders/queue';
import { sendInvoiceReminder } from '../reminders/send';
import { REPLY_SYNC, syncReplies } from '../replies/sync';
import type { JobHandler } from '../jobs/worker';

/** `refresh`: where the intelligence refresh runs (the server passes its refresh process); this process by default. */
export function coreJobHandlers(options: { refresh?: RefreshExecutor } = {}): Record<string, JobHandler> {
  return {
    [INVOICE_REMINDER]: sendInvoiceReminder,
    [ACTION_EMAIL]: sendActionEmail,
    [AGING_SNAPSHOT]: takeAgingSnapshot,
    [REPLY_SYNC]: syncReplies,
    [INTELLIGENCE_REFRESH]: refreshJobHandlerWith(options.refresh ?? refreshInProcess),
    [STATEMENT_SEND]: sendStatementsJob,
  };
}
