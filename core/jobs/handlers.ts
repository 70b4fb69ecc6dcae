/** The job kinds the core runs in the background, and who runs each. */
import { ACTION_EMAIL } from '../actions/delivery';
import { sendActionEmail } from '../actions/send';
import { AGING_SNAPSHOT, takeAgingSnapshot } from '../analytics/snapshot-job';
import { INTELLIGENCE_REFRESH, refreshJobHandler } from '../intelligence/jobs';
import { INVOICE_REMINDER } from '../reminders/queue';
import { sendInvoiceReminder } from '../reminders/send';
import { REPLY_SYNC, syncReplies } from '../replies/sync';
import type { JobHandler } from './worker';

export function coreJobHandlers(): Record<string, JobHandler> {
  return {
    [INVOICE_REMINDER]: sendInvoiceReminder,
    [ACTION_EMAIL]: sendActionEmail,
    [AGING_SNAPSHOT]: takeAgingSnapshot,
    [REPLY_SYNC]: syncReplies,
    [INTELLIGENCE_REFRESH]: refreshJobHandler,
  };
}
