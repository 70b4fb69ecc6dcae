/** The job kinds the core runs in the background, and who runs each. */
import { AGING_SNAPSHOT, takeAgingSnapshot } from '../analytics/snapshot-job';
import { sendStatementsJob, STATEMENT_SEND } from '../documents/send';
import { INTELLIGENCE_REFRESH, refreshJobHandler } from '../intelligence/jobs';
import { INVOICE_REMINDER } from '../reminders/queue';
import { sendInvoiceReminder } from '../reminders/send';
import { REPLY_SYNC, syncReplies } from '../replies/sync';
import type { JobHandler } from './worker';

export function coreJobHandlers(): Record<string, JobHandler> {
  return { [INVOICE_REMINDER]: sendInvoiceReminder, [AGING_SNAPSHOT]: takeAgingSnapshot, [REPLY_SYNC]: syncReplies, [INTELLIGENCE_REFRESH]: refreshJobHandler, [STATEMENT_SEND]: sendStatementsJob };
}
