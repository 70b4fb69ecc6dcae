/**
 * Migrations are listed statically: bundled code (the Electron main bundle) cannot read a folder.
 * Never edit a shipped migration; append a new one.
 */
import type { Migration } from 'kysely/migration';
import * as m0001 from './0001_initial';
import * as m0003 from './0003_invoices';
import * as m0004 from './0004_payments_customers';
import * as m0005 from './0005_reminders_jobs';
import * as m0006 from './0006_actions_insights';
import * as m0007 from './0007_sequences';
import * as m0009 from './0009_saved_views';
import * as m0010 from './0010_personal_tokens';
import * as m0011 from './0011_import_mappings';
import * as m0020 from './0020_outreach_replies';
import * as m0040 from './0040_intelligence';
import * as m0050 from './0050_customer_open_totals';
import * as m0060 from './0060_worklist';
import * as m0061 from './0061_email_health';
import * as m0062 from './0062_payment_status_reason';
import * as m0070 from './0070_sync';
import * as m0097 from './0097_forecast_inputs';
import * as m0098 from './0098_metrics_inputs';
import * as m0099 from './0099_promise_dates';
import * as m0100 from './0100_invoice_bill_channel';
import * as m0120 from './0120_inbox_indexes';
import * as m0150 from './0150_chase_holds';
import * as m0160 from './0160_invoice_date_index';
import * as m0190 from './0190_company_document_details';
import * as m0191 from './0191_statement_runs';
import * as m0210 from './0210_label_meaning';
import * as m0230 from './0230_due_date_timing';
import * as m0240 from './0240_company_as_of';
import * as m0250 from './0250_sequence_step_attach';
import * as m0260 from './0260_last_touch_contact';
import * as m0280 from './0280_action_value_at_risk';
import * as m0290 from './0290_insights_reportable';
import * as m0300 from './0300_forecast_inflows';
import * as m0310 from './0310_mail_tls_trust';
import * as m0320 from './0320_job_lease_owner';
import * as m0350 from './0350_reply_readings';
import * as m0360 from './0360_contact_settings';
import * as m0370 from './0370_bank';
import * as m0380 from './0380_portal';
import * as m0390 from './0390_companies_from_nothing';
import * as m0400 from './0400_import_watch';
import * as m0401 from './0401_import_watch_hour';
import * as m0410 from './0410_promise_followups';
import * as m0411 from './0411_step_sent_to';
import * as m0415 from './0415_email_threads';
import * as m0430 from './0430_webhooks';
import * as m0450 from './0450_bank_mappings';
import * as m0460 from './0460_brand_colours';
import * as m0470 from './0470_team_books';

export const migrations: Record<string, Migration> = {
  '0001_initial': m0001,
  '0003_invoices': m0003,
  '0004_payments_customers': m0004,
  '0005_reminders_jobs': m0005,
  '0006_actions_insights': m0006,
  '0007_sequences': m0007,
  '0009_saved_views': m0009,
  '0010_personal_tokens': m0010,
  '0011_import_mappings': m0011,
  '0020_outreach_replies': m0020,
  '0040_intelligence': m0040,
  '0050_customer_open_totals': m0050,
  '0060_worklist': m0060,
  '0061_email_health': m0061,
  '0062_payment_status_reason': m0062,
  '0070_sync': m0070,
  '0097_forecast_inputs': m0097,
  '0098_metrics_inputs': m0098,
  '0099_promise_dates': m0099,
  '0100_invoice_bill_channel': m0100,
  '0120_inbox_indexes': m0120,
  '0150_chase_holds': m0150,
  '0160_invoice_date_index': m0160,
  '0190_company_document_details': m0190,
  '0191_statement_runs': m0191,
  '0210_label_meaning': m0210,
  '0230_due_date_timing': m0230,
  '0240_company_as_of': m0240,
  '0250_sequence_step_attach': m0250,
  '0260_last_touch_contact': m0260,
  '0280_action_value_at_risk': m0280,
  '0290_insights_reportable': m0290,
  '0300_forecast_inflows': m0300,
  '0310_mail_tls_trust': m0310,
  '0320_job_lease_owner': m0320,
  '0350_reply_readings': m0350,
  '0360_contact_settings': m0360,
  '0370_bank': m0370,
  '0380_portal': m0380,
  '0390_companies_from_nothing': m0390,
  '0400_import_watch': m0400,
  '0401_import_watch_hour': m0401,
  '0410_promise_followups': m0410,
  '0411_step_sent_to': m0411,
  '0415_email_threads': m0415,
  '0430_webhooks': m0430,
  '0450_bank_mappings': m0450,
  '0460_brand_colours': m0460,
  '0470_team_books': m0470,
};
