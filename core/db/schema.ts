/**
 * The typed shape of the SQLite database: the one source of row types for the core.
 * Conventions: ids are UUID text; money is integer minor units (cents); dates are 'YYYY-MM-DD'
 * text; timestamps are ISO-8601 UTC text; booleans are 0/1 integers.
 */
import type { ColumnType, Generated, Selectable, Updateable } from 'kysely';

export type Bool = 0 | 1;

/** How a bill was sent (invoices.bill_channel, an extension): known the day the invoice is issued. */
export const BILL_CHANNELS = ['paper', 'electronic'] as const;
export type BillChannel = (typeof BILL_CHANNELS)[number];

export interface CompaniesTable {
  id: string;
  name: string;
  currency: string;
  /** The date analytics and intelligence count from instead of today (a stale ledger), or null (0240). */
  as_of_date: Generated<string | null>;
  /** IANA time zone and ISO 3166 country of a company made in the app, or null (0390). */
  time_zone: Generated<string | null>;
  country: Generated<string | null>;
  created_at: string;
  updated_at: string;
  /** Days a promise to pay still holds the chase after its date (0360). */
  promise_grace_days: Generated<number>;
  /** JSON list of the contact hold kinds an owner forbids sending through (0360). */
  contact_no_override: Generated<string>;
}

export interface UsersTable {
  id: string;
  username: string;
  display_name: string;
  email: string | null;
  password_hash: string;
  /** sha256 of a one-time setup code an invited user signs in with once, and its end (0390). */
  setup_code_hash: Generated<string | null>;
  setup_code_expires_at: Generated<string | null>;
  created_at: string;
  updated_at: string;
}

export type Role = 'owner' | 'manager' | 'collector' | 'viewer';

export interface MembershipsTable {
  id: string;
  company_id: string;
  user_id: string;
  role: Role;
  created_at: string;
}

export interface ApiTokensTable {
  id: string;
  user_id: string;
  /** sha256 of the token; the token itself is never stored. */
  token_hash: string;
  name: string;
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** session: from a login or a desktop launch; personal: made by its user for scripts (0010). */
  kind: Generated<ApiTokenKind>;
}

export type ApiTokenKind = 'session' | 'personal';

export type TeamMemberRole = 'ar' | 'sales' | 'manager';

export interface TeamMembersTable {
  id: string;
  company_id: string;
  user_id: string | null;
  name: string;
  email: string | null;
  role: TeamMemberRole;
  is_active: Bool;
  created_at: string;
  updated_at: string;
}

export interface CustomersTable {
  id: string;
  company_id: string;
  name: string;
  is_person: Bool;
  ar_owner_id: string | null;
  sales_owner_id: string | null;
  remote_id: string | null;
  currency: string;
  payment_terms_days: number;
  notes: string | null;
  created_at: string;
  updated_at: string;
  /** A person stopped contact with the customer (0360): paused (until resumed) or "do not contact"; null: no stop. */
  contact_stop: Generated<ContactStop | null>;
  /** Why, in the person's words; who (their name) and when. */
  contact_stop_reason: Generated<string | null>;
  contact_stop_by: Generated<string | null>;
  contact_stop_at: Generated<string | null>;
}

export type ContactStop = 'paused' | 'do_not_contact';

export interface CustomerContactsTable {
  id: string;
  company_id: string;
  customer_id: string;
  name: string;
  email: string | null;
  phone: string | null;
  title: string | null;
  is_billing: Bool;
  created_at: string;
  updated_at: string;
  /** When a message to this address bounced (0020); null while it is not known to fail. */
  email_failed_at: Generated<string | null>;
  /** The bounce's reason in the mail server's words (0020). */
  email_failure: Generated<string | null>;
}

export interface CustomerLocationsTable {
  id: string;
  company_id: string;
  customer_id: string;
  name: string;
  address_line1: string | null;
  city: string | null;
  region: string | null;
  postal_code: string | null;
  country: string | null;
  created_at: string;
  updated_at: string;
}

/** What a label says about an invoice it is on, as the engine reads it: a dispute or a promise to pay. */
export type LabelMeaning = 'dispute' | 'promise';

export interface LabelsTable {
  id: string;
  company_id: string;
  name: string;
  color: string;
  /** Null: the label is only a tag. Set in Settings › Labels; the engine never reads the name. */
  meaning: ColumnType<LabelMeaning | null, LabelMeaning | null | undefined, LabelMeaning | null>;
  created_at: string;
  updated_at: string;
}

export interface InvoiceLabelsTable {
  company_id: string;
  invoice_id: string;
  label_id: string;
  created_at: string;
}

export type ClosingReason = 'paid' | 'overpaid' | 'credit_memo' | 'written_off';

export interface InvoicesTable {
  /** SQLite rowid, used by the full-text index and as a compact join key. */
  seq: Generated<number>;
  id: string;
  company_id: string;
  customer_id: string;
  /** Copy of customers.name, kept by trigger, so sorting and searching by name needs no join. */
  customer_name: string;
  customer_location_id: string | null;
  invoice_number: string;
  invoice_date: string;
  due_date: string;
  currency: string;
  total_amount: number;
  paid_amount: number;
  balance: number;
  closing_reason: ClosingReason | null;
  closed_date: string | null;
  payment_link: string | null;
  next_follow_up_date: string | null;
  remote_id: string | null;
  transaction_type: string;
  parent_invoice_id: string | null;
  progress_percentage: number | null;
  last_touch_at: string | null;
  last_touched_by: string | null;
  /** How the bill was sent (0100, an extension): known when the invoice is issued; null when the source does not say. */
  bill_channel: BillChannel | null;
  created_at: string;
  updated_at: string;
}

/** Per company, due date and state: counts and sums kept current by triggers on invoices. */
export interface InvoiceDueTotalsTable {
  company_id: string;
  due_date: string;
  /** 'open' or a closing reason. */
  state: string;
  invoice_count: number;
  /** Invoices in this row whose balance is not zero (for hide_zero_balance). */
  nonzero_count: number;
  total_amount: number;
  balance: number;
}

/** Per customer: the count, sums and oldest due dates of its invoices, kept by triggers (0003). */
export interface CustomerInvoiceTotalsTable {
  company_id: string;
  customer_id: string;
  customer_name: string;
  invoice_count: number;
  total_amount: number;
  balance: number;
  oldest_due_date: string;
  /** Oldest due date among open invoices with a balance; null when nothing is owed. */
  oldest_open_due_date: string | null;
}

/** Per customer: the balance of its open invoices, kept by triggers (0050); the customer list sorts by it. */
export interface CustomerOpenTotalsTable {
  company_id: string;
  customer_id: string;
  open_balance: number;
}

/** Per customer: its paid invoices and their days paid after due (0 when on time), kept by triggers (0097); the forecast's lateness. */
export interface CustomerPaidLatenessTable {
  company_id: string;
  customer_id: string;
  paid_count: number;
  late_days: number;
}

/**
 * Invoice totals by the dates that decide when they count in past receivables, kept by triggers
 * (0098); written_off is the credit memo or write-off closing date, '9999-12-31' when not written off.
 */
export interface InvoiceIssueTotalsTable {
  company_id: string;
  invoice_date: string;
  due_date: string;
  written_off: string;
  total_amount: number;
}

/** Settled payments by their invoice's dates (as invoice_issue_totals) and their own date, kept by triggers (0098). */
export interface PaymentIssueTotalsTable {
  company_id: string;
  invoice_date: string;
  due_date: string;
  written_off: string;
  payment_date: string;
  amount: number;
}

/**
 * Per AR owner ('' for none) and day: invoice totals by invoice date, settled payments by payment
 * date, and the change in the receivables of the book's regular invoices; kept by triggers (0470).
 */
export interface TeamBookDaysTable {
  company_id: string;
  owner_id: string;
  day: string;
  sales: number;
  collected: number;
  receivable: number;
}

/** team_book_days' receivable changes by the invoices' due date too (0470). */
export interface TeamBookDuesTable {
  company_id: string;
  due_date: string;
  owner_id: string;
  day: string;
  receivable: number;
}

export type PaymentStatus = 'PAID' | 'PARTIAL' | 'PENDING' | 'FAILED' | 'VOIDED';

export interface PaymentsTable {
  id: string;
  company_id: string;
  invoice_id: string;
  amount: number;
  payment_date: string;
  payment_method: string;
  payment_type: string;
  status: PaymentStatus;
  transaction_id: string | null;
  remote_id: string | null;
  notes: string | null;
  voided_at: string | null;
  /** Why it was voided, settled or failed (0062). */
  status_reason: Generated<string | null>;
  created_at: string;
  updated_at: string;
}

/** Per company, payment date, status and method: count and sum of payments, kept by triggers. */
export interface PaymentDayTotalsTable {
  company_id: string;
  payment_date: string;
  status: PaymentStatus;
  payment_method: string;
  payment_count: number;
  amount: number;
}

export interface EmailConnectionsTable {
  id: string;
  company_id: string;
  /** The user who owns the mailbox; null for a shared company mailbox. */
  user_id: string | null;
  name: string;
  from_email: string;
  from_name: string | null;
  smtp_host: string;
  smtp_port: number;
  smtp_secure: Bool;
  smtp_username: string | null;
  /** AES-256-GCM ciphertext (see core/email/secrets.ts); never leaves the core. */
  smtp_password_enc: string | null;
  is_default: Bool;
  is_active: Bool;
  allow_shared_sending: Bool;
  created_at: string;
  updated_at: string;
  /** IMAP settings for reading replies (0020); no host means replies are not read. */
  imap_host: Generated<string | null>;
  imap_port: Generated<number | null>;
  imap_secure: Generated<Bool>;
  imap_username: Generated<string | null>;
  /** AES-256-GCM ciphertext like smtp_password_enc; never leaves the core. */
  imap_password_enc: Generated<string | null>;
  imap_mailbox: Generated<string>;
  /** When replies were last read successfully, and the last read's error in words (null after a success). */
  replies_checked_at: Generated<string | null>;
  replies_error: Generated<string | null>;
  /** 1: refuse a server that does not offer TLS (0310). */
  require_tls: Generated<Bool>;
  /** The one certificate (PEM) an owner trusted for the SMTP / IMAP server, and when (0310). */
  smtp_tls_cert: Generated<string | null>;
  smtp_tls_trusted_at: Generated<string | null>;
  imap_tls_cert: Generated<string | null>;
  imap_tls_trusted_at: Generated<string | null>;
  /** 1: made before certificates were verified, and no owner has confirmed its certificates yet (0310). */
  tls_review: Generated<Bool>;
}

/** Where reading a mailbox got to: its UIDVALIDITY and the last UID read (0020). */
export interface ImapMailboxStatesTable {
  company_id: string;
  email_connection_id: string;
  mailbox: string;
  /** Text: UIDVALIDITY is an unsigned 32-bit number that imapflow gives as a bigint. */
  uid_validity: string;
  last_uid: number;
  updated_at: string;
}

export type SequenceStatus = 'draft' | 'active' | 'archived';

export interface SequencesTable {
  id: string;
  company_id: string;
  name: string;
  timezone: string;
  send_followups_in_thread: Bool;
  sender_connection_id: string | null;
  status: SequenceStatus;
  created_at: string;
  updated_at: string;
  /** Which holds pause the sequence's enrollments by themselves (0150): all on by default. */
  pause_on_reply: Generated<Bool>;
  pause_on_promise: Generated<Bool>;
  pause_on_dispute: Generated<Bool>;
  /** When steps fire (0230): days after the enrollment start, or per open invoice from its due date. */
  timing: Generated<SequenceTiming>;
}

export type SequenceTiming = 'enrollment_start' | 'due_date';

export type StepType = 'reminder' | 'call' | 'task';

export interface SequenceStepsTable {
  id: string;
  company_id: string;
  sequence_id: string;
  position: number;
  step_type: StepType;
  label: string;
  offset_days: number;
  offset_time: string;
  is_active: Bool;
  subject_template: string;
  body_plain_template: string;
  body_html_template: string;
  instructions: string;
  created_at: string;
  updated_at: string;
  /** Not scheduled on enrolment: runs when a promise that paused the enrollment is missed (0150). */
  on_promise_missed: Generated<Bool>;
  /** Days from the invoice's due date in a due-date sequence, negative before it (0230). */
  due_offset_days: Generated<number>;
  /** An email step's documents, a JSON array of attachment kinds, made when it is sent (0250). */
  attach: Generated<string>;
}

export type EnrollmentStatus = 'active' | 'completed';

export interface SequenceEnrollmentsTable {
  id: string;
  company_id: string;
  sequence_id: string;
  customer_id: string;
  status: EnrollmentStatus;
  start_date: string;
  stop_reason: string | null;
  completed_at: string | null;
  created_at: string;
  updated_at: string;
  /** Why the enrollment is paused (0150): a hold found by itself, or the collector's pause; null when running. */
  paused_kind: Generated<PauseKind | null>;
  /** The pause in words ("Paused: Tri-County promised payment by Nov 27"). */
  paused_reason: Generated<string | null>;
  paused_at: Generated<string | null>;
  /** A promise's date: the pause ends when it passes unpaid. */
  paused_until: Generated<string | null>;
  /** The invoice the promise or dispute is about. */
  paused_invoice_id: Generated<string | null>;
  /** The collector marked the customer's replies up to this instant handled. */
  reply_handled_at: Generated<string | null>;
}

export type PauseKind = 'reply' | 'promise' | 'dispute' | 'manual';

export type ScheduledStepStatus = 'scheduled' | 'ready' | 'sent' | 'completed' | 'cancelled' | 'failed';

export interface ScheduledStepsTable {
  id: string;
  company_id: string;
  enrollment_id: string;
  sequence_id: string;
  step_id: string;
  customer_id: string;
  invoice_id: string | null;
  scheduled_date: string;
  scheduled_at: string;
  status: ScheduledStepStatus;
  sender_connection_id: string | null;
  email_subject: string | null;
  sent_at: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
  /** Set (and committed) before the SMTP call: the claim that keeps a step from being sent twice. */
  send_started_at: Generated<string | null>;
  /** The email's Message-ID, fixed at the first claim so a retried send carries the same id. */
  message_id: Generated<string | null>;
  /** The communication the send or completion recorded. */
  communication_id: Generated<string | null>;
  /** The collector's own subject and body for this step, sent in place of the templates (0150). */
  edited_subject: Generated<string | null>;
  edited_body: Generated<string | null>;
  edited_at: Generated<string | null>;
  /** Why a cancelled step did not run: 'skipped' by the collector, 'caught_up' (a back-dated enrollment's earlier emails); null otherwise. */
  cancel_reason: Generated<string | null>;
  /** The row of the same customer and day whose one email also covers this row's invoice (0230). */
  merged_into: Generated<string | null>;
  /** The address the step's email went to, kept at its claim (0411). */
  sent_to: Generated<string | null>;
}

export type DisputeStatus = 'open' | 'resolved';

/** A dispute of an invoice (0150): it holds the chase while open. */
export interface DisputesTable {
  id: string;
  company_id: string;
  customer_id: string;
  invoice_id: string;
  reason: string;
  owner_id: string | null;
  status: DisputeStatus;
  /** The reply it was opened from. */
  communication_id: string | null;
  resolution: string | null;
  opened_by: string | null;
  resolved_by: string | null;
  resolved_at: string | null;
  created_at: string;
  updated_at: string;
}

export type ActionStatus = 'proposed' | 'scheduled' | 'processing' | 'completed' | 'cancelled';
export type ActionType = 'email' | 'call' | 'task';

export interface ActionsTable {
  id: string;
  company_id: string;
  invoice_id: string | null;
  customer_id: string;
  action_type: ActionType;
  status: ActionStatus;
  description: string;
  recommendation_label: string | null;
  trigger_event_label: string | null;
  is_action_required: Bool;
  /** e.g. 'wait_for_customer': drives the awaiting_customer category. */
  top_recommendation: string | null;
  is_ai_recommended: Bool;
  /** JSON object text; final_content lives here once approved or sent. */
  metadata: string;
  response_deadline: string | null;
  channel_id: string | null;
  external_id: string | null;
  executed_at: string | null;
  /** Display name of whoever executed the action; feeds the invoice's last touch. */
  executed_by: string | null;
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
  /** JSON array of evidence items (core/intelligence/evidence.ts) (0040). */
  evidence: string;
  /** What made the engine propose it; null for actions people or scripts created (0040). */
  trigger_key: string | null;
  /**
   * Minor units: the value at risk while it awaits a decision, assessed by each refresh of its
   * customer and when it is created, kept as it was once decided (0280, core/actions/value-at-risk.ts).
   */
  value_at_risk: number | null;
}

export type ApprovalOperation = 'approve' | 'reject' | 'cancel' | 'send' | 'complete';

export interface ActionApprovalsTable {
  id: string;
  company_id: string;
  action_id: string;
  operation: ApprovalOperation;
  reason: string | null;
  comment: string | null;
  approver_id: string | null;
  user_id: string | null;
  created_at: string;
}

export type InsightTargetType = 'customer' | 'invoice' | 'portfolio';

export interface InsightsTable {
  id: string;
  company_id: string;
  target_type: InsightTargetType;
  target_id: string;
  customer_id: string | null;
  invoice_id: string | null;
  insight_type: string;
  /** JSON object text. */
  payload_json: string;
  valid_from: string;
  valid_to: string | null;
  created_at: string;
  /** JSON array of evidence items (core/intelligence/evidence.ts) (0040). */
  evidence: string;
  /** 1 when it has something to report (core/insights/reportable.ts) (0290). */
  reportable: number;
}

export interface InsightFeedbackTable {
  id: string;
  company_id: string;
  insight_id: string;
  user_id: string;
  rating: 'up' | 'down';
  comment: string | null;
  created_at: string;
  updated_at: string;
}

export interface AgingSnapshotsTable {
  id: string;
  company_id: string;
  snapshot_date: string;
  current_amount: number;
  d1_30_amount: number;
  d31_60_amount: number;
  d61_90_amount: number;
  d91_over_amount: number;
  total_amount: number;
  invoice_count: number;
  created_at: string;
}

export type CommunicationKind = 'email' | 'call' | 'note';
export type CallOutcome = 'reached' | 'left_voicemail' | 'no_answer' | 'wrong_number' | 'promised_to_pay' | 'disputed';
/** How a customer's reply reads (0350). */
export type ReadingKind = 'promise' | 'dispute' | 'needs_answer' | 'none';

export interface CommunicationsTable {
  id: string;
  company_id: string;
  customer_id: string;
  invoice_id: string | null;
  kind: CommunicationKind;
  direction: 'outbound' | 'inbound' | 'internal';
  subject: string | null;
  body: string | null;
  occurred_at: string;
  author_user_id: string | null;
  author_name: string | null;
  email_connection_id: string | null;
  message_id: string | null;
  created_at: string;
  /** A call's outcome (0020). */
  outcome: Generated<CallOutcome | null>;
  /** A promise to pay: its date and amount in minor units (0020). */
  promise_date: Generated<string | null>;
  promise_amount: Generated<number | null>;
  /** An email received: the sender's address (0020). */
  from_email: Generated<string | null>;
  /** An email received: JSON list of {name, size} of its attachments, whose content is not kept (0020). */
  attachments: Generated<string | null>;
  /** An email received, as read (core/replies/reading.ts): its kind, a promise's date and amount (minor units), the sentence (0350). */
  reading_kind: Generated<ReadingKind | null>;
  reading_date: Generated<string | null>;
  reading_amount: Generated<number | null>;
  reading_sentence: Generated<string | null>;
  /** Who corrected the reading, and when; null while it is the automatic reading (0350). */
  reading_by_user_id: Generated<string | null>;
  reading_by_name: Generated<string | null>;
  reading_corrected_at: Generated<string | null>;
  /** An email: its References chain, Message-IDs oldest first, space separated (0415). */
  email_references: Generated<string | null>;
  /** An email: the Message-ID of its thread's first message; null: its own (0415). */
  thread_id: Generated<string | null>;
}

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed';

export interface JobsTable {
  id: string;
  company_id: string;
  kind: string;
  /** Unique: the same piece of work is never queued twice. */
  idempotency_key: string;
  payload: string;
  status: JobStatus;
  attempts: number;
  max_attempts: number;
  run_after: string;
  locked_at: string | null;
  last_error: string | null;
  result: string | null;
  created_at: string;
  updated_at: string;
  /** The entity the job acts on (the invoice of a reminder): finds a pending job for it (0005). */
  subject_id: string | null;
  /** The process holding the lease of a running job (core/jobs/owner.ts), null otherwise (0320). */
  locked_by: string | null;
}

export type EmailOutboxStatus = 'sending' | 'sent' | 'not_sent' | 'unknown';

/** One email a job sends, recorded before the SMTP call so a crash mid-send is never resent (0005). */
export interface EmailOutboxTable {
  id: string;
  company_id: string;
  job_id: string;
  invoice_id: string | null;
  customer_id: string | null;
  email_connection_id: string | null;
  /** Fixed at the first attempt: every send of this job carries the same Message-ID. */
  message_id: string;
  to_email: string;
  subject: string;
  status: EmailOutboxStatus;
  /** How many times the message was handed to an SMTP server. */
  send_attempts: number;
  last_error: string | null;
  communication_id: string | null;
  started_at: string;
  sent_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A named invoice-desk filter/sort state of one user in one company (0009). */
export interface SavedViewsTable {
  id: string;
  company_id: string;
  user_id: string;
  name: string;
  /** The desk's URL query string, without the leading '?'. */
  query: string;
  created_at: string;
  updated_at: string;
}

/** A company's saved import mapping (0011). */
export interface ImportMappingsTable {
  id: string;
  company_id: string;
  /** Unique per company regardless of case. */
  name: string;
  /** The mapping as JSON text, valid against core/import's MappingSchema when saved. */
  mapping: string;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

/** Per company: how far the intelligence engine has read the change record, and its last full refresh (0040). */
export interface IntelligenceStateTable {
  company_id: string;
  last_change_seq: number;
  last_full_refresh_date: string | null;
  updated_at: string;
}

/** The forecast's expected inflows per customer and week, kept by the intelligence refresh (0300). */
export interface ForecastInflowsTable {
  company_id: string;
  customer_id: string;
  /** JSON [[week, amount, sq, sq2], ...]: week the Monday of the week, '' for an amount spread over the next 90 days. */
  weeks: string;
}

/** The companies whose forecast_inflows a full refresh of this database has written (0300). */
export interface ForecastStateTable {
  company_id: string;
  complete_at: string;
}

export interface ChangesTable {
  seq: Generated<number>;
  company_id: string | null;
  user_id: string | null;
  command: string;
  entity: string;
  entity_id: string;
  op: 'insert' | 'update' | 'delete';
  /** JSON of the fields written. */
  data: string;
  created_at: string;
}

export type SyncRole = 'server' | 'replica';

/** One row (id 1): this database's part in sync and, on a replica, its link to the team server (0070). */
export interface SyncStateTable {
  id: number;
  role: SyncRole | null;
  /** Server: the version counter behind sync_rows. */
  version: Generated<number>;
  /** Replica: 1 while local writes are recorded in sync_undo (0 while a pull is applied). */
  capture: Generated<number>;
  client_id: string | null;
  server_url: string | null;
  user_id: string | null;
  username: string | null;
  /** The team server's API token, encrypted with the database's secret box. */
  token_enc: string | null;
  /** Replica: the last mutation id handed out; ids only grow. */
  last_mutation_id: Generated<number>;
  last_sync_at: string | null;
  last_error: string | null;
}

/** Server: the latest version of every synced row, deleted rows kept as tombstones (0070). */
export interface SyncRowsTable {
  tbl: string;
  /** JSON array of the row's key values. */
  key: string;
  company_id: string | null;
  version: number;
  deleted: number;
}

/** Server: each desktop (client id) and the last of its mutations processed (0070). */
export interface SyncClientsTable {
  client_id: string;
  user_id: string;
  last_mutation_id: number;
  created_at: string;
  updated_at: string;
}

/** Server: the outcome of every pushed mutation, so a repeated push gets the same answer (0070). */
export interface SyncMutationsTable {
  /** The server's order of processing. */
  seq: Generated<number>;
  client_id: string;
  mutation_id: number;
  company_id: string;
  command: string;
  status: 'applied' | 'rejected';
  reason: string | null;
  created_at: string;
}

/** Replica: the companies kept in sync and the feed cursor of each (0070). */
export interface SyncCompaniesTable {
  company_id: string;
  cursor: string | null;
  pulled_at: string | null;
}

/** Replica: local writes not yet acknowledged by the server, as the API operation that made them (0070). */
export interface SyncOutboxTable {
  mutation_id: number;
  company_id: string;
  command: string;
  method: string;
  path: string;
  content_type: string | null;
  body: string | null;
  body_encoding: 'utf8' | 'base64';
  /** JSON array of the identifiers the operation created, handed out again when it is replayed. */
  ids: string;
  created_at: string;
}

/** Replica: the server's image of each row changed locally since the last pull (null: absent) (0070). */
export interface SyncUndoTable {
  tbl: string;
  key: string;
  row: string | null;
}

/** Replica: commands the server refused, with its reason, for the person who made them (0070). */
export interface SyncRejectionsTable {
  mutation_id: number;
  company_id: string;
  command: string;
  reason: string;
  created_at: string;
}

export type LogoType = 'image/png' | 'image/jpeg' | 'image/svg+xml';
export type Paper = 'A4' | 'Letter';

/** What a company prints on its invoice copies and statements, one row per company (0190). */
export interface CompanyDocumentDetailsTable {
  company_id: string;
  legal_name: string | null;
  /** Postal address, one line per line of text. */
  address: string | null;
  tax_id: string | null;
  /** The logo file, base64 (the sync feed carries rows as JSON, which holds no BLOB). */
  logo_base64: string | null;
  logo_type: LogoType | null;
  payment_instructions: string | null;
  portal_link: string | null;
  footer: string | null;
  /** Brand colours as chosen, '#rrggbb' lower case (0460): the portal's buttons and the documents' titles, its links and rules. */
  brand_primary: string | null;
  brand_accent: string | null;
  /** BCP 47 locale for dates and amounts in documents, e.g. en-GB. */
  locale: string;
  paper: Paper;
  created_at: string;
  updated_at: string;
}

/** A request to email statements of account (0191). */
export interface StatementRunsTable {
  id: string;
  company_id: string;
  as_of: string;
  requested_by: string | null;
  job_id: string | null;
  created_at: string;
  updated_at: string;
}

export type StatementItemStatus = 'pending' | 'sent' | 'not_sent';

/** One customer of a statement run and what happened to its statement (0191). */
export interface StatementRunItemsTable {
  id: string;
  company_id: string;
  run_id: string;
  customer_id: string;
  position: number;
  status: StatementItemStatus;
  /** The addresses it went to, comma-separated. */
  sent_to: string | null;
  /** Why it was not sent, in words. */
  reason: string | null;
  message_id: string | null;
  pdf_bytes: number | null;
  updated_at: string;
}

export type PromiseOutcome = 'kept' | 'broken' | 'void';

/** A promise to pay judged once, the day after its date plus the grace days (0410, core/promises). */
export interface PromiseFollowupsTable {
  id: string;
  company_id: string;
  customer_id: string;
  /** Null: a promise for the whole account. */
  invoice_id: string | null;
  source: 'communication' | 'action';
  source_id: string;
  promised_date: string;
  /** Minor units; null when no amount was said (then the whole balance). */
  promised_amount: number | null;
  grace_days: number;
  outcome: PromiseOutcome;
  /** Minor units paid from the promise's recording through its date plus grace. */
  paid_amount: number;
  /** The "promise broken" action made for a broken one. */
  action_id: string | null;
  judged_at: string;
}

/** A company's watched import file or folder, re-imported nightly (0400, core/import/watch.ts). */
export interface ImportWatchesTable {
  company_id: string;
  path: string;
  /** A built-in preset; null with mapping null: recognised from the file. */
  preset: string | null;
  /** A mapping as JSON, when no preset. */
  mapping: string | null;
  enabled: 0 | 1;
  /** The hour (0-23, the company's time zone) after which the night's run is queued (0401). */
  hour: number;
  created_at: string;
  updated_at: string;
}

export type ImportRunStatus = 'imported' | 'unchanged' | 'failed';

/** One run of a watched import (0400): what it wrote, or why it failed. */
export interface ImportRunsTable {
  id: string;
  company_id: string;
  started_at: string;
  finished_at: string;
  /** The file read (a watched folder's newest file), or the watched path when none was found. */
  file: string;
  sha256: string | null;
  status: ImportRunStatus;
  preset: string | null;
  /** JSON: the import's counts. */
  counts: string | null;
  /** JSON: the import's notes. */
  notes: string | null;
  message: string | null;
}

/** A signed portal link of a customer (0380): only the token's SHA-256 is kept. */
export interface PortalLinksTable {
  id: string;
  company_id: string;
  customer_id: string;
  token_hash: string;
  expires_at: string;
  revoked_at: string | null;
  /** The last day (UTC) its opening was recorded: one "viewed the portal" a day. */
  viewed_on: string | null;
  created_by: string | null;
  created_at: string;
}

/** A company's portal settings (0380). */
export interface PortalSettingsTable {
  company_id: string;
  /** Days a new link stays valid. */
  link_days: number;
  updated_at: string;
}

export type PortalFileType = 'application/pdf' | 'image/png' | 'image/jpeg';

/** A file a customer attached in the portal (0380), its content base64. */
export interface PortalFilesTable {
  id: string;
  company_id: string;
  customer_id: string;
  file_name: string;
  media_type: PortalFileType;
  size: number;
  content_base64: string;
  created_at: string;
}

export type PortalSubmissionKind = 'promise' | 'dispute' | 'paid' | 'contact';

/** What a customer sent through the portal (0380): the invoices (JSON list of ids) and the details (JSON). */
export interface PortalSubmissionsTable {
  id: string;
  company_id: string;
  customer_id: string;
  link_id: string | null;
  kind: PortalSubmissionKind;
  invoice_ids: string;
  details: string;
  file_id: string | null;
  /** A proposed contact change waits for the collector: accepted or declined. */
  status: Generated<'open' | 'accepted' | 'declined'>;
  decided_by: string | null;
  created_at: string;
  updated_at: string;
}

export type BankTransactionState = 'pending' | 'applied' | 'suggested' | 'unmatched' | 'ignored' | 'debit';

/** A bank statement file imported (0370, core/bank). Balances in signed minor units. */
export interface BankStatementsTable {
  id: string;
  company_id: string;
  format: string;
  /** The statement's own id from the bank, when the file gives one. */
  bank_statement_id: string | null;
  account: string;
  currency: string;
  period_start: string | null;
  period_end: string | null;
  opening_balance: number | null;
  closing_balance: number | null;
  file_name: string | null;
  entries: number;
  credits: number;
  debits: number;
  duplicates: number;
  /** JSON array of what the reader noticed, in words. */
  warnings: string;
  imported_by: string | null;
  created_at: string;
  updated_at: string;
}

/** One booked entry of a statement (0370): unique per company by `identity`, so a re-import adds nothing. */
export interface BankTransactionsTable {
  id: string;
  company_id: string;
  statement_id: string;
  identity: string;
  position: number;
  account: string;
  booked_on: string;
  value_on: string | null;
  /** Positive minor units. */
  amount: number;
  direction: 'credit' | 'debit';
  currency: string;
  bank_reference: string | null;
  end_to_end_id: string | null;
  structured_reference: string | null;
  remittance_text: string;
  counterparty_name: string | null;
  counterparty_account: string | null;
  bank_code: string | null;
  state: BankTransactionState;
  flag: 'foreign_currency' | null;
  customer_id: string | null;
  confidence: number | null;
  /** JSON: the ranked candidates found when it was matched. */
  candidates: string;
  note: string | null;
  created_at: string;
  updated_at: string;
}

/** What applying a credit did (0370): one row per payment made, or the unapplied cash left on the customer. */
export interface BankApplicationsTable {
  id: string;
  company_id: string;
  transaction_id: string;
  customer_id: string | null;
  invoice_id: string | null;
  payment_id: string | null;
  kind: 'invoice' | 'unapplied';
  amount: number;
  automatic: Bool;
  short_action: 'dispute' | 'write_off' | null;
  note: string | null;
  applied_by: string | null;
  reversed_at: string | null;
  reversed_by: string | null;
  created_at: string;
}

/** A payer's bank account seen on applied credits of a customer (0370). */
export interface BankPayerAccountsTable {
  id: string;
  company_id: string;
  account: string;
  customer_id: string;
  times_applied: number;
  last_applied_on: string;
  created_at: string;
  updated_at: string;
}

/** A payment a customer announced (the portal, issue 39): a hint for matching its credit (0370). */
export interface BankRemittanceAdvicesTable {
  id: string;
  company_id: string;
  customer_id: string;
  /** JSON array of invoice ids. */
  invoice_ids: string;
  paid_on: string;
  amount: number;
  reference: string | null;
  created_at: string;
}

/** A bank's CSV or XLSX export's column mapping, kept for the next file with the same header row (0450). */
export interface BankMappingsTable {
  id: string;
  company_id: string;
  /** The header row as the file wrote it, a JSON array: unique per company. */
  headers: string;
  /** The mapping as JSON, valid against core/bank/read/table.ts's BankMappingSchema when saved. */
  mapping: string;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

/** An event for scripts: what happened, read from the change record (0430). */
export interface EventsTable {
  seq: Generated<number>;
  id: string;
  company_id: string;
  type: string;
  resource_type: string;
  resource_id: string;
  /** JSON: the fields the change wrote, with the resource's id. */
  data: string;
  created_at: string;
}

/** One row (id 1): how far the event materializer has read the change record and the rejected sync operations (0430). */
export interface EventCursorTable {
  id: number;
  changes_seq: number;
  rejections_seq: number;
}

/** An owner's webhook endpoint (0430); the signing secret is kept encrypted, shown once. */
export interface WebhookEndpointsTable {
  id: string;
  company_id: string;
  url: string;
  /** JSON array of event types, or ["*"]. */
  events: string;
  description: Generated<string>;
  secret_enc: string;
  created_at: string;
  updated_at: string;
  /** The first failed attempt since the last delivered one. */
  failing_since: string | null;
  disabled_at: string | null;
  disabled_reason: string | null;
  deleted_at: string | null;
}

/** One event for one endpoint: the delivery log and its durable queue (0430). */
export interface WebhookDeliveriesTable {
  id: string;
  company_id: string;
  endpoint_id: string;
  event_seq: number;
  event_id: string;
  /** "invoice:<id>": deliveries of one resource go out in order. */
  resource_key: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: Generated<number>;
  next_attempt_at: string;
  last_attempt_at: string | null;
  response_status: number | null;
  response_ms: number | null;
  error: string | null;
  created_at: string;
  delivered_at: string | null;
}


export interface Database {
  events: EventsTable;
  event_cursor: EventCursorTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  bank_statements: BankStatementsTable;
  bank_transactions: BankTransactionsTable;
  bank_applications: BankApplicationsTable;
  bank_payer_accounts: BankPayerAccountsTable;
  bank_remittance_advices: BankRemittanceAdvicesTable;
  bank_mappings: BankMappingsTable;
  companies: CompaniesTable;
  company_document_details: CompanyDocumentDetailsTable;
  portal_links: PortalLinksTable;
  portal_settings: PortalSettingsTable;
  portal_files: PortalFilesTable;
  portal_submissions: PortalSubmissionsTable;
  statement_runs: StatementRunsTable;
  statement_run_items: StatementRunItemsTable;
  users: UsersTable;
  memberships: MembershipsTable;
  api_tokens: ApiTokensTable;
  team_members: TeamMembersTable;
  customers: CustomersTable;
  customer_contacts: CustomerContactsTable;
  customer_locations: CustomerLocationsTable;
  labels: LabelsTable;
  invoice_labels: InvoiceLabelsTable;
  invoices: InvoicesTable;
  invoice_due_totals: InvoiceDueTotalsTable;
  customer_invoice_totals: CustomerInvoiceTotalsTable;
  customer_open_totals: CustomerOpenTotalsTable;
  customer_paid_lateness: CustomerPaidLatenessTable;
  invoice_issue_totals: InvoiceIssueTotalsTable;
  payment_issue_totals: PaymentIssueTotalsTable;
  team_book_days: TeamBookDaysTable;
  team_book_dues: TeamBookDuesTable;
  payments: PaymentsTable;
  payment_day_totals: PaymentDayTotalsTable;
  email_connections: EmailConnectionsTable;
  imap_mailbox_states: ImapMailboxStatesTable;
  sequences: SequencesTable;
  sequence_steps: SequenceStepsTable;
  sequence_enrollments: SequenceEnrollmentsTable;
  scheduled_steps: ScheduledStepsTable;
  disputes: DisputesTable;
  actions: ActionsTable;
  action_approvals: ActionApprovalsTable;
  insights: InsightsTable;
  insight_feedback: InsightFeedbackTable;
  aging_snapshots: AgingSnapshotsTable;
  communications: CommunicationsTable;
  jobs: JobsTable;
  email_outbox: EmailOutboxTable;
  saved_views: SavedViewsTable;
  import_mappings: ImportMappingsTable;
  intelligence_state: IntelligenceStateTable;
  forecast_inflows: ForecastInflowsTable;
  forecast_state: ForecastStateTable;
  changes: ChangesTable;
  sync_state: SyncStateTable;
  sync_rows: SyncRowsTable;
  sync_clients: SyncClientsTable;
  sync_mutations: SyncMutationsTable;
  sync_companies: SyncCompaniesTable;
  sync_outbox: SyncOutboxTable;
  sync_undo: SyncUndoTable;
  sync_rejections: SyncRejectionsTable;
  promise_followups: PromiseFollowupsTable;
  import_watches: ImportWatchesTable;
  import_runs: ImportRunsTable;
}

export type Invoice = Selectable<InvoicesTable>;
export type InvoiceUpdate = Updateable<InvoicesTable>;
export type Customer = Selectable<CustomersTable>;
export type Payment = Selectable<PaymentsTable>;
export type Company = Selectable<CompaniesTable>;
export type User = Selectable<UsersTable>;
export type Label = Selectable<LabelsTable>;
export type EmailConnection = Selectable<EmailConnectionsTable>;
export type Job = Selectable<JobsTable>;
