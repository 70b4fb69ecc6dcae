import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../env';
import type { HttpOptions } from '../options';
import { actionRoutes } from './actions';
import { activityRoutes } from './activity';
import { analyticsRoutes } from './analytics';
import { communicationRoutes } from './communications';
import { authRoutes } from './auth';
import { backupRoutes } from './backups';
import { bankRoutes } from './bank';
import { companyRoutes } from './companies';
import { contactRoutes } from './contact';
import { creditRoutes } from './credits';
import { insightRoutes } from './insights';
import { jobRoutes } from './jobs';
import { intelligenceRoutes } from './intelligence';
import { invoiceRoutes } from './invoices';
import { reminderRoutes } from './reminders';
import { sequenceRoutes } from './sequences';
import { viewRoutes } from './views';
import { customerRoutes } from './customers';
import { disputeRoutes } from './disputes';
import { documentRoutes } from './documents';
import { emailConnectionRoutes } from './email-connections';
import { importMappingRoutes } from './import-mappings';
import { importRoutes } from './imports';
import { importWatchRoutes } from './import-watch';
import { labelRoutes } from './labels';
import { memberRoutes } from './members';
import { metricsRoutes } from './metrics';
import { paymentRoutes } from './payments';
import { promiseRoutes } from './promises';
import { teamRoutes } from './team';
import { teamViewRoutes } from './team-view';
import { tokenRoutes } from './tokens';
import { webhookRoutes } from './webhooks';

/**
 * The protected spec API, one router per area. Each router declares full paths; the app mounts
 * them all at '/' behind the token and company middleware.
 */
export function protectedRoutes(options: Pick<HttpOptions, 'throttle' | 'webhookRule'>): OpenAPIHono<AppEnv>[] {
  return [authRoutes(), companyRoutes(), invoiceRoutes(), actionRoutes(), insightRoutes(), intelligenceRoutes(), analyticsRoutes(), viewRoutes(), activityRoutes(), paymentRoutes(), customerRoutes(), labelRoutes(), teamRoutes(), teamViewRoutes(), emailConnectionRoutes(), reminderRoutes(), sequenceRoutes(), importRoutes(), importWatchRoutes(), metricsRoutes(), tokenRoutes(options.throttle), memberRoutes(), backupRoutes(), importMappingRoutes(), communicationRoutes(), jobRoutes(), documentRoutes(), disputeRoutes(), bankRoutes(), promiseRoutes(), creditRoutes(), contactRoutes(), webhookRoutes(options)];
}
