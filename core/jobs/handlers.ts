/** The job kinds the core runs in the background, and who runs each. */
import { INTELLIGENCE_REFRESH, refreshJobHandler } from '../intelligence/jobs';
import { INVOICE_REMINDER } from '../reminders/queue';
import { sendInvoiceReminder } from '../reminders/send';
import type { JobHandler } from './worker';

export function coreJobHandlers(): Record<string, JobHandler> {
  return { [INVOICE_REMINDER]: sendInvoiceReminder, [INTELLIGENCE_REFRESH]: refreshJobHandler };
}
