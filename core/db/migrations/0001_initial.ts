/**
 * The initial data model. Shipped migrations never change: add a new file for every later change.
 */
import { type Kysely, sql } from 'kysely';

const ddl = String.raw`
CREATE TABLE companies (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  currency TEXT NOT NULL DEFAULT 'USD',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE users (
  id TEXT PRIMARY KEY,
  username TEXT NOT NULL UNIQUE COLLATE NOCASE,
  display_name TEXT NOT NULL,
  email TEXT,
  password_hash TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE memberships (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('owner','collector','viewer')),
  created_at TEXT NOT NULL,
  UNIQUE (company_id, user_id)
);
CREATE INDEX memberships_user ON memberships(user_id);

CREATE TABLE api_tokens (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_hash TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  last_used_at TEXT,
  revoked_at TEXT
);
CREATE INDEX api_tokens_user ON api_tokens(user_id);

CREATE TABLE team_members (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  user_id TEXT REFERENCES users(id) ON DELETE SET NULL,
  name TEXT NOT NULL,
  email TEXT,
  role TEXT NOT NULL CHECK (role IN ('ar','sales','manager')),
  is_active INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX team_members_company ON team_members(company_id, name);

CREATE TABLE customers (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  is_person INTEGER NOT NULL DEFAULT 0,
  ar_owner_id TEXT REFERENCES team_members(id) ON DELETE SET NULL,
  sales_owner_id TEXT REFERENCES team_members(id) ON DELETE SET NULL,
  remote_id TEXT,
  currency TEXT NOT NULL DEFAULT 'USD',
  payment_terms_days INTEGER NOT NULL DEFAULT 30,
  notes TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX customers_company_name ON customers(company_id, name, id);
CREATE UNIQUE INDEX customers_remote ON customers(company_id, remote_id) WHERE remote_id IS NOT NULL;
CREATE INDEX customers_ar_owner ON customers(company_id, ar_owner_id);
CREATE INDEX customers_sales_owner ON customers(company_id, sales_owner_id);

CREATE TABLE customer_contacts (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  customer_id TEXT NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  email TEXT,
  phone TEXT,
  title TEXT,
  is_billing INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX customer_contacts_customer ON customer_contacts(customer_id);

CREATE TABLE customer_locations (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  customer_id TEXT NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  address_line1 TEXT,
  city TEXT,
  region TEXT,
  postal_code TEXT,
  country TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX customer_locations_customer ON customer_locations(customer_id);

CREATE TABLE labels (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  color TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (company_id, name)
);

CREATE TABLE invoices (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  customer_id TEXT NOT NULL REFERENCES customers(id),
  customer_name TEXT NOT NULL,
  customer_location_id TEXT REFERENCES customer_locations(id) ON DELETE SET NULL,
  invoice_number TEXT NOT NULL,
  invoice_date TEXT NOT NULL,
  due_date TEXT NOT NULL,
  currency TEXT NOT NULL DEFAULT 'USD',
  total_amount INTEGER NOT NULL,
  paid_amount INTEGER NOT NULL DEFAULT 0,
  balance INTEGER NOT NULL,
  closing_reason TEXT CHECK (closing_reason IN ('paid','overpaid','credit_memo','written_off')),
  closed_date TEXT,
  payment_link TEXT,
  next_follow_up_date TEXT,
  remote_id TEXT,
  transaction_type TEXT NOT NULL DEFAULT 'invoice',
  parent_invoice_id TEXT REFERENCES invoices(id) ON DELETE SET NULL,
  progress_percentage REAL,
  last_touch_at TEXT,
  last_touched_by TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX invoices_number ON invoices(company_id, invoice_number);
CREATE INDEX invoices_due ON invoices(company_id, due_date, id);
CREATE INDEX invoices_open_due ON invoices(company_id, due_date, id) WHERE closing_reason IS NULL;
CREATE INDEX invoices_balance ON invoices(company_id, balance, id);
CREATE INDEX invoices_amount ON invoices(company_id, total_amount, id);
CREATE INDEX invoices_customer_name ON invoices(company_id, customer_name, id);
CREATE INDEX invoices_customer ON invoices(company_id, customer_id, due_date);
CREATE UNIQUE INDEX invoices_remote ON invoices(company_id, remote_id) WHERE remote_id IS NOT NULL;
CREATE INDEX invoices_parent ON invoices(parent_invoice_id) WHERE parent_invoice_id IS NOT NULL;

CREATE TABLE invoice_labels (
  company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  invoice_id TEXT NOT NULL REFERENCES invoices(id) ON DELETE CASCADE,
  label_id TEXT NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  PRIMARY KEY (invoice_id, label_id)
) WITHOUT ROWID;
CREATE INDEX invoice_labels_label ON invoice_labels(label_id, invoice_id);

CREATE TABLE invoice_due_totals (
  company_id TEXT NOT NULL,
  due_date TEXT NOT NULL,
  state TEXT NOT NULL,
  invoice_count INTEGER NOT NULL,
  nonzero_count INTEGER NOT NULL,
  total_amount INTEGER NOT NULL,
  balance INTEGER NOT NULL,
  PRIMARY KEY (company_id, due_date, state)
) WITHOUT ROWID;

CREATE TRIGGER invoices_totals_insert AFTER INSERT ON invoices BEGIN
  INSERT INTO invoice_due_totals (company_id, due_date, state, invoice_count, nonzero_count, total_amount, balance)
  VALUES (NEW.company_id, NEW.due_date, coalesce(NEW.closing_reason, 'open'), 1, NEW.balance <> 0, NEW.total_amount, NEW.balance)
  ON CONFLICT (company_id, due_date, state) DO UPDATE SET
    invoice_count = invoice_count + 1,
    nonzero_count = nonzero_count + excluded.nonzero_count,
    total_amount = total_amount + excluded.total_amount,
    balance = balance + excluded.balance;
END;

CREATE TRIGGER invoices_totals_delete AFTER DELETE ON invoices BEGIN
  UPDATE invoice_due_totals SET
    invoice_count = invoice_count - 1,
    nonzero_count = nonzero_count - (OLD.balance <> 0),
    total_amount = total_amount - OLD.total_amount,
    balance = balance - OLD.balance
  WHERE company_id = OLD.company_id AND due_date = OLD.due_date AND state = coalesce(OLD.closing_reason, 'open');
  DELETE FROM invoice_due_totals
  WHERE company_id = OLD.company_id AND due_date = OLD.due_date AND state = coalesce(OLD.closing_reason, 'open') AND invoice_count = 0;
END;

CREATE TRIGGER invoices_totals_update AFTER UPDATE OF company_id, due_date, closing_reason, total_amount, balance ON invoices BEGIN
  UPDATE invoice_due_totals SET
    invoice_count = invoice_count - 1,
    nonzero_count = nonzero_count - (OLD.balance <> 0),
    total_amount = total_amount - OLD.total_amount,
    balance = balance - OLD.balance
  WHERE company_id = OLD.company_id AND due_date = OLD.due_date AND state = coalesce(OLD.closing_reason, 'open');
  DELETE FROM invoice_due_totals
  WHERE company_id = OLD.company_id AND due_date = OLD.due_date AND state = coalesce(OLD.closing_reason, 'open') AND invoice_count = 0;
  INSERT INTO invoice_due_totals (company_id, due_date, state, invoice_count, nonzero_count, total_amount, balance)
  VALUES (NEW.company_id, NEW.due_date, coalesce(NEW.closing_reason, 'open'), 1, NEW.balance <> 0, NEW.total_amount, NEW.balance)
  ON CONFLICT (company_id, due_date, state) DO UPDATE SET
    invoice_count = invoice_count + 1,
    nonzero_count = nonzero_count + excluded.nonzero_count,
    total_amount = total_amount + excluded.total_amount,
    balance = balance + excluded.balance;
END;

CREATE VIRTUAL TABLE invoice_number_fts USING fts5(invoice_number, content='invoices', content_rowid='seq', tokenize='trigram');
CREATE TRIGGER invoices_fts_insert AFTER INSERT ON invoices BEGIN
  INSERT INTO invoice_number_fts (rowid, invoice_number) VALUES (NEW.seq, NEW.invoice_number);
END;
CREATE TRIGGER invoices_fts_delete AFTER DELETE ON invoices BEGIN
  INSERT INTO invoice_number_fts (invoice_number_fts, rowid, invoice_number) VALUES ('delete', OLD.seq, OLD.invoice_number);
END;
CREATE TRIGGER invoices_fts_update AFTER UPDATE OF invoice_number ON invoices BEGIN
  INSERT INTO invoice_number_fts (invoice_number_fts, rowid, invoice_number) VALUES ('delete', OLD.seq, OLD.invoice_number);
  INSERT INTO invoice_number_fts (rowid, invoice_number) VALUES (NEW.seq, NEW.invoice_number);
END;

CREATE VIRTUAL TABLE customer_name_fts USING fts5(name, content='customers', content_rowid='rowid', tokenize='trigram');
CREATE TRIGGER customers_fts_insert AFTER INSERT ON customers BEGIN
  INSERT INTO customer_name_fts (rowid, name) VALUES (NEW.rowid, NEW.name);
END;
CREATE TRIGGER customers_fts_delete AFTER DELETE ON customers BEGIN
  INSERT INTO customer_name_fts (customer_name_fts, rowid, name) VALUES ('delete', OLD.rowid, OLD.name);
END;
CREATE TRIGGER customers_name_update AFTER UPDATE OF name ON customers BEGIN
  INSERT INTO customer_name_fts (customer_name_fts, rowid, name) VALUES ('delete', OLD.rowid, OLD.name);
  INSERT INTO customer_name_fts (rowid, name) VALUES (NEW.rowid, NEW.name);
  UPDATE invoices SET customer_name = NEW.name WHERE customer_id = NEW.id;
END;

CREATE TABLE payments (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  invoice_id TEXT NOT NULL REFERENCES invoices(id) ON DELETE CASCADE,
  amount INTEGER NOT NULL,
  payment_date TEXT NOT NULL,
  payment_method TEXT NOT NULL,
  payment_type TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('PAID','PARTIAL','PENDING','FAILED','VOIDED')),
  transaction_id TEXT,
  remote_id TEXT,
  notes TEXT,
  voided_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX payments_company_date ON payments(company_id, payment_date, id);
CREATE INDEX payments_invoice ON payments(invoice_id, payment_date);
CREATE UNIQUE INDEX payments_remote ON payments(company_id, remote_id) WHERE remote_id IS NOT NULL;

CREATE TABLE email_connections (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  user_id TEXT REFERENCES users(id) ON DELETE SET NULL,
  name TEXT NOT NULL,
  from_email TEXT NOT NULL,
  from_name TEXT,
  smtp_host TEXT NOT NULL,
  smtp_port INTEGER NOT NULL,
  smtp_secure INTEGER NOT NULL DEFAULT 0,
  smtp_username TEXT,
  smtp_password_enc TEXT,
  is_default INTEGER NOT NULL DEFAULT 0,
  is_active INTEGER NOT NULL DEFAULT 1,
  allow_shared_sending INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX email_connections_company ON email_connections(company_id);

CREATE TABLE sequences (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  timezone TEXT NOT NULL DEFAULT 'America/New_York',
  send_followups_in_thread INTEGER NOT NULL DEFAULT 0,
  sender_connection_id TEXT REFERENCES email_connections(id) ON DELETE SET NULL,
  status TEXT NOT NULL CHECK (status IN ('draft','active','archived')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (company_id, name)
);

CREATE TABLE sequence_steps (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  sequence_id TEXT NOT NULL REFERENCES sequences(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  step_type TEXT NOT NULL CHECK (step_type IN ('reminder','call','task')),
  label TEXT NOT NULL,
  offset_days INTEGER NOT NULL,
  offset_time TEXT NOT NULL,
  is_active INTEGER NOT NULL DEFAULT 1,
  subject_template TEXT NOT NULL DEFAULT '',
  body_plain_template TEXT NOT NULL DEFAULT '',
  body_html_template TEXT NOT NULL DEFAULT '',
  instructions TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX sequence_steps_sequence ON sequence_steps(sequence_id, position);

CREATE TABLE sequence_enrollments (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  sequence_id TEXT NOT NULL REFERENCES sequences(id) ON DELETE CASCADE,
  customer_id TEXT NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
  status TEXT NOT NULL CHECK (status IN ('active','completed')),
  start_date TEXT NOT NULL,
  stop_reason TEXT,
  completed_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX sequence_enrollments_one_active ON sequence_enrollments(sequence_id, customer_id) WHERE status = 'active';
CREATE INDEX sequence_enrollments_customer ON sequence_enrollments(company_id, customer_id, status);

CREATE TABLE scheduled_steps (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  enrollment_id TEXT NOT NULL REFERENCES sequence_enrollments(id) ON DELETE CASCADE,
  sequence_id TEXT NOT NULL REFERENCES sequences(id) ON DELETE CASCADE,
  step_id TEXT NOT NULL REFERENCES sequence_steps(id),
  customer_id TEXT NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
  invoice_id TEXT REFERENCES invoices(id) ON DELETE SET NULL,
  scheduled_date TEXT NOT NULL,
  scheduled_at TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('scheduled','ready','sent','completed','cancelled','failed')),
  sender_connection_id TEXT REFERENCES email_connections(id) ON DELETE SET NULL,
  email_subject TEXT,
  sent_at TEXT,
  error TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX scheduled_steps_queue ON scheduled_steps(company_id, status, scheduled_at);
CREATE INDEX scheduled_steps_enrollment ON scheduled_steps(enrollment_id, status);
CREATE INDEX scheduled_steps_step ON scheduled_steps(step_id);
CREATE INDEX scheduled_steps_invoice ON scheduled_steps(invoice_id) WHERE invoice_id IS NOT NULL;

CREATE TABLE actions (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  invoice_id TEXT REFERENCES invoices(id) ON DELETE SET NULL,
  customer_id TEXT NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
  action_type TEXT NOT NULL CHECK (action_type IN ('email','call','task')),
  status TEXT NOT NULL CHECK (status IN ('proposed','scheduled','processing','completed','cancelled')),
  description TEXT NOT NULL,
  recommendation_label TEXT,
  trigger_event_label TEXT,
  is_action_required INTEGER NOT NULL DEFAULT 0,
  top_recommendation TEXT,
  is_ai_recommended INTEGER NOT NULL DEFAULT 1,
  metadata TEXT NOT NULL DEFAULT '{}',
  response_deadline TEXT,
  channel_id TEXT,
  external_id TEXT,
  executed_at TEXT,
  executed_by TEXT,
  deleted_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX actions_company_status ON actions(company_id, status, created_at);
CREATE INDEX actions_invoice ON actions(invoice_id) WHERE invoice_id IS NOT NULL;
CREATE INDEX actions_customer ON actions(company_id, customer_id);

CREATE TABLE action_approvals (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  action_id TEXT NOT NULL REFERENCES actions(id) ON DELETE CASCADE,
  operation TEXT NOT NULL CHECK (operation IN ('approve','reject','cancel','send','complete')),
  reason TEXT,
  comment TEXT,
  approver_id TEXT REFERENCES team_members(id) ON DELETE SET NULL,
  user_id TEXT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX action_approvals_action ON action_approvals(action_id, created_at);

CREATE TABLE insights (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  target_type TEXT NOT NULL CHECK (target_type IN ('customer','invoice','portfolio')),
  target_id TEXT NOT NULL,
  customer_id TEXT REFERENCES customers(id) ON DELETE CASCADE,
  invoice_id TEXT REFERENCES invoices(id) ON DELETE CASCADE,
  insight_type TEXT NOT NULL,
  payload_json TEXT NOT NULL,
  valid_from TEXT NOT NULL,
  valid_to TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX insights_company_target ON insights(company_id, target_type, target_id);
CREATE INDEX insights_invoice ON insights(invoice_id) WHERE invoice_id IS NOT NULL;
CREATE INDEX insights_customer ON insights(customer_id) WHERE customer_id IS NOT NULL;

CREATE TABLE insight_feedback (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  insight_id TEXT NOT NULL REFERENCES insights(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  rating TEXT NOT NULL CHECK (rating IN ('up','down')),
  comment TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (insight_id, user_id)
);

CREATE TABLE aging_snapshots (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  snapshot_date TEXT NOT NULL,
  current_amount INTEGER NOT NULL,
  d1_30_amount INTEGER NOT NULL,
  d31_60_amount INTEGER NOT NULL,
  d61_90_amount INTEGER NOT NULL,
  d91_over_amount INTEGER NOT NULL,
  total_amount INTEGER NOT NULL,
  invoice_count INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (company_id, snapshot_date)
);

CREATE TABLE communications (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  customer_id TEXT NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
  invoice_id TEXT REFERENCES invoices(id) ON DELETE SET NULL,
  kind TEXT NOT NULL CHECK (kind IN ('email','call','note')),
  direction TEXT NOT NULL CHECK (direction IN ('outbound','inbound','internal')),
  subject TEXT,
  body TEXT,
  occurred_at TEXT NOT NULL,
  author_user_id TEXT REFERENCES users(id) ON DELETE SET NULL,
  author_name TEXT,
  email_connection_id TEXT REFERENCES email_connections(id) ON DELETE SET NULL,
  message_id TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX communications_invoice ON communications(invoice_id, occurred_at) WHERE invoice_id IS NOT NULL;
CREATE INDEX communications_customer ON communications(company_id, customer_id, occurred_at);

-- The invoice's last touch is the latest communication or executed action on it.
CREATE TRIGGER communications_last_touch AFTER INSERT ON communications WHEN NEW.invoice_id IS NOT NULL BEGIN
  UPDATE invoices SET last_touch_at = NEW.occurred_at, last_touched_by = NEW.author_name
  WHERE id = NEW.invoice_id AND (last_touch_at IS NULL OR last_touch_at <= NEW.occurred_at);
END;
CREATE TRIGGER actions_last_touch AFTER UPDATE OF executed_at ON actions
WHEN NEW.invoice_id IS NOT NULL AND NEW.executed_at IS NOT NULL BEGIN
  UPDATE invoices SET last_touch_at = NEW.executed_at, last_touched_by = NEW.executed_by
  WHERE id = NEW.invoice_id AND (last_touch_at IS NULL OR last_touch_at <= NEW.executed_at);
END;

CREATE TABLE jobs (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  idempotency_key TEXT NOT NULL UNIQUE,
  payload TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('queued','running','succeeded','failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL DEFAULT 5,
  run_after TEXT NOT NULL,
  locked_at TEXT,
  last_error TEXT,
  result TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX jobs_due ON jobs(status, run_after);

CREATE TABLE changes (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  company_id TEXT,
  user_id TEXT,
  command TEXT NOT NULL,
  entity TEXT NOT NULL,
  entity_id TEXT NOT NULL,
  op TEXT NOT NULL CHECK (op IN ('insert','update','delete')),
  data TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX changes_entity ON changes(entity, entity_id);
CREATE INDEX changes_company ON changes(company_id, seq);
`;

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of splitStatements(ddl)) {
    await sql.raw(statement).execute(db);
  }
}

/** Splits the DDL on top-level semicolons, keeping trigger bodies (BEGIN ... END;) whole. */
function splitStatements(text: string): string[] {
  const out: string[] = [];
  let current = '';
  let inTrigger = false;
  for (const line of text.split('\n')) {
    if (line.trim().startsWith('--')) continue;
    current += line + '\n';
    if (/^CREATE TRIGGER/i.test(line.trim())) inTrigger = true;
    const trimmed = line.trim();
    if (inTrigger ? /^END;$/i.test(trimmed) : trimmed.endsWith(';')) {
      out.push(current.trim());
      current = '';
      inTrigger = false;
    }
  }
  if (current.trim()) out.push(current.trim());
  return out;
}
