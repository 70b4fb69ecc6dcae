/**
 * Email connections: the SMTP mailboxes reminders and sequence steps are sent from, and the IMAP
 * mailbox their replies are read from. Both passwords are sealed with the engine's SecretBox before
 * they are stored, never leave the core (the API shows has_password / has_imap_password only) and
 * never enter a change record.
 */
import type { Db } from '../db/connection';
import { ANY_MAIL_ENDPOINT, endpointErrors, endpointRefusal, isLoopbackHost, type MailEndpointRule, resolvedRefusal } from './endpoints';
import type { EmailConnection, Role } from '../db/schema';
import { type Actor, type CommandTx, type Engine, runCommand } from '../engine';
import { ConflictError, type FieldErrors, ForbiddenError, InvalidStateError, NotFoundError, ValidationError } from '../errors';
import { isUuid, newId } from '../ids';
import { isEmail } from '../customers/rules';
import { membershipOf } from '../auth/memberships';
import { blankToNull } from '../text';
import { IMAP_TIMEOUT_SECONDS } from './imap';
import { SMTP_TIMEOUT_SECONDS } from './mailer';
import { probeCertificate } from './probe';
import { type CertificateInfo, pemInfo } from './tls';

/** A certificate an owner trusted for one of the connection's servers. */
export interface TrustedCertificateDto extends CertificateInfo {
  trusted_at: string;
}

export interface EmailConnectionDto {
  id: string;
  name: string;
  from_email: string;
  from_name: string | null;
  smtp_host: string;
  smtp_port: number;
  smtp_secure: boolean;
  smtp_username: string | null;
  has_password: boolean;
  is_default: boolean;
  is_active: boolean;
  allow_shared_sending: boolean;
  user_id: string | null;
  /** IMAP for reading replies: null host means replies are not read. */
  imap_host: string | null;
  imap_port: number | null;
  imap_secure: boolean;
  imap_username: string | null;
  has_imap_password: boolean;
  imap_mailbox: string;
  replies_checked_at: string | null;
  replies_error: string | null;
  /** Refuse a server that does not offer TLS (STARTTLS is used whenever offered anyway). */
  require_tls: boolean;
  smtp_trusted_certificate: TrustedCertificateDto | null;
  imap_trusted_certificate: TrustedCertificateDto | null;
  /** Made before certificates were checked and not yet tested since (an owner's review is due). */
  tls_review: boolean;
  created_at: string;
  updated_at: string;
}

export interface EmailConnectionInput {
  name?: string;
  from_email?: string;
  from_name?: string | null;
  smtp_host?: string;
  smtp_port?: number;
  /** Implicit TLS (port 465 style); defaults to true on port 465, otherwise STARTTLS is negotiated. */
  smtp_secure?: boolean;
  smtp_username?: string | null;
  /** Omit to keep the stored password; null or '' removes it. */
  smtp_password?: string | null;
  is_default?: boolean;
  is_active?: boolean;
  allow_shared_sending?: boolean;
  /** The mailbox owner; null for a shared company mailbox. Defaults to the creator. */
  user_id?: string | null;
  /** null or '' turns reading replies off (and forgets the IMAP password). */
  imap_host?: string | null;
  /** Defaults to 993 with imap_secure, else 143. */
  imap_port?: number | null;
  /** Implicit TLS (port 993 style); defaults to true unless the port is 143. */
  imap_secure?: boolean;
  /** Defaults to the SMTP username, else the from address. */
  imap_username?: string | null;
  /** Omit to keep the stored password; null or '' removes it. */
  imap_password?: string | null;
  imap_mailbox?: string;
  /** Default true, except for a server on this machine (loopback). */
  require_tls?: boolean;
}

/** Who is writing: the actor plus their role in the company, for the ownership rule. */
export interface ConnectionScope {
  actor: Actor;
  companyId: string;
  role: Role;
}

const HOST_RE = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$|^\[?[0-9A-Fa-f:.]+\]?$/;

/** The settings that decide where (and how safely) the stored password is sent. */
const SERVER_FIELDS = ['smtp_host', 'smtp_port', 'smtp_secure', 'smtp_username'] as const;
const IMAP_SERVER_FIELDS = ['imap_host', 'imap_port', 'imap_secure', 'imap_username'] as const;

export const DEFAULT_IMAP_MAILBOX = 'INBOX';
const isPort = (port: number) => Number.isInteger(port) && port >= 1 && port <= 65535;

export function validateConnection(input: EmailConnectionInput, creating: boolean): FieldErrors {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  for (const field of ['name', 'from_email', 'smtp_host', 'smtp_port'] as const) {
    if (creating && (input[field] === undefined || input[field] === null)) add(field, 'Is required');
  }
  if (input.name !== undefined) {
    if (!input.name.trim()) add('name', 'Must not be blank');
    else if (input.name.length > 100) add('name', 'Use at most 100 characters');
  }
  if (input.from_email !== undefined && !isEmail(input.from_email.trim())) add('from_email', 'Is not a valid email address');
  if (input.from_name !== undefined && input.from_name !== null && input.from_name.length > 200) add('from_name', 'Use at most 200 characters');
  if (input.smtp_host !== undefined && !HOST_RE.test(input.smtp_host.trim())) add('smtp_host', 'Must be a host name or an IP address');
  if (input.smtp_port !== undefined && (!Number.isInteger(input.smtp_port) || input.smtp_port < 1 || input.smtp_port > 65535)) add('smtp_port', 'Must be a port from 1 to 65535');
  if (input.smtp_username !== undefined && input.smtp_username !== null && input.smtp_username.length > 255) add('smtp_username', 'Use at most 255 characters');
  if (input.smtp_password !== undefined && input.smtp_password !== null && input.smtp_password.length > 1024) add('smtp_password', 'Use at most 1024 characters');
  if (input.user_id !== undefined && input.user_id !== null && !isUuid(input.user_id)) add('user_id', 'Must be a user id (UUID) or null');
  if (input.is_default === true && input.is_active === false) add('is_default', 'An inactive connection cannot be the default');
  if (input.imap_host !== undefined && input.imap_host !== null && input.imap_host.trim() && !HOST_RE.test(input.imap_host.trim())) add('imap_host', 'Must be a host name or an IP address');
  if (input.imap_port !== undefined && input.imap_port !== null && !isPort(input.imap_port)) add('imap_port', 'Must be a port from 1 to 65535');
  if (input.imap_username !== undefined && input.imap_username !== null && input.imap_username.length > 255) add('imap_username', 'Use at most 255 characters');
  if (input.imap_password !== undefined && input.imap_password !== null && input.imap_password.length > 1024) add('imap_password', 'Use at most 1024 characters');
  if (input.imap_mailbox !== undefined && (!input.imap_mailbox.trim() || input.imap_mailbox.length > 200 || /[\u0000-\u001f]/.test(input.imap_mailbox))) {
    add('imap_mailbox', 'Must be a mailbox name of 1 to 200 characters');
  }
  return errors;
}

/**
 * A stored password must only ever reach the host its owner chose it for, as the account it was
 * given for: another host or username needs the password again in the same request. A port or TLS
 * mode changed on the same host keeps it (465 with TLS and 587 with STARTTLS are one server).
 */
export function needsPasswordAgain(current: Pick<EmailConnection, (typeof SERVER_FIELDS)[number] | 'smtp_password_enc'>, input: EmailConnectionInput): boolean {
  if (!current.smtp_password_enc || input.smtp_password !== undefined) return false;
  return (
    (input.smtp_host !== undefined && input.smtp_host.trim().toLowerCase() !== current.smtp_host.toLowerCase()) ||
    (input.smtp_username !== undefined && blankToNull(input.smtp_username) !== current.smtp_username)
  );
}

/** The same rule for the IMAP password and the IMAP server settings. */
export function needsImapPasswordAgain(current: Pick<EmailConnection, (typeof IMAP_SERVER_FIELDS)[number] | 'imap_password_enc'>, input: EmailConnectionInput): boolean {
  if (!current.imap_password_enc || input.imap_password !== undefined) return false;
  return (
    (input.imap_host !== undefined && (blankToNull(input.imap_host)?.toLowerCase() ?? null) !== (current.imap_host?.toLowerCase() ?? null)) ||
    (input.imap_username !== undefined && blankToNull(input.imap_username) !== current.imap_username)
  );
}

/** Where the company's mail goes is an owner's to change (SPEC-DECISIONS): every write here asks this. */
function requireOwner(scope: ConnectionScope, what: string): void {
  if (scope.role !== 'owner') throw new ForbiddenError(`Only a company owner can ${what}`, 'owner_only');
}

function toConnectionDto(row: EmailConnection): EmailConnectionDto {
  return {
    id: row.id,
    name: row.name,
    from_email: row.from_email,
    from_name: row.from_name,
    smtp_host: row.smtp_host,
    smtp_port: row.smtp_port,
    smtp_secure: row.smtp_secure === 1,
    smtp_username: row.smtp_username,
    has_password: row.smtp_password_enc !== null,
    is_default: row.is_default === 1,
    is_active: row.is_active === 1,
    allow_shared_sending: row.allow_shared_sending === 1,
    user_id: row.user_id,
    imap_host: row.imap_host,
    imap_port: row.imap_port,
    imap_secure: row.imap_secure === 1,
    imap_username: row.imap_username,
    has_imap_password: row.imap_password_enc !== null,
    imap_mailbox: row.imap_mailbox,
    replies_checked_at: row.replies_checked_at,
    replies_error: row.replies_error,
    require_tls: row.require_tls === 1,
    smtp_trusted_certificate: trustedDto(row.smtp_tls_cert, row.smtp_tls_trusted_at),
    imap_trusted_certificate: trustedDto(row.imap_tls_cert, row.imap_tls_trusted_at),
    tls_review: row.tls_review === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function trustedDto(pem: string | null, at: string | null): TrustedCertificateDto | null {
  return pem ? { ...pemInfo(pem), trusted_at: at ?? '' } : null;
}

export async function listConnections(db: Db, companyId: string): Promise<EmailConnectionDto[]> {
  const rows = await db.selectFrom('email_connections').selectAll().where('company_id', '=', companyId).orderBy('is_default', 'desc').orderBy('name').orderBy('id').execute();
  return rows.map(toConnectionDto);
}

async function findConnection(db: Db, companyId: string, connectionId: string): Promise<EmailConnection> {
  const row = await db.selectFrom('email_connections').selectAll().where('id', '=', connectionId).where('company_id', '=', companyId).executeTakeFirst();
  if (!row) throw new NotFoundError('Email connection', connectionId);
  return row;
}

export async function getConnection(db: Db, companyId: string, connectionId: string): Promise<EmailConnectionDto> {
  return toConnectionDto(await findConnection(db, companyId, connectionId));
}

async function checkUser(tx: CommandTx, companyId: string, userId: string): Promise<void> {
  if (!(await membershipOf(tx.db, userId, companyId))) throw new ValidationError('The email connection is invalid', { user_id: ['No such user in this company'] });
}

/** Only one default per company: taking the flag clears it elsewhere, in the same transaction. */
async function clearOtherDefaults(tx: CommandTx, companyId: string, keepId: string): Promise<void> {
  const others = await tx.db.selectFrom('email_connections').select('id').where('company_id', '=', companyId).where('is_default', '=', 1).where('id', '<>', keepId).execute();
  for (const { id } of others) {
    await tx.db.updateTable('email_connections').set({ is_default: 0, updated_at: tx.now }).where('id', '=', id).execute();
    await tx.record('email_connection', id, 'update', { is_default: false });
  }
}

/** The fields of a change record: everything but the password, whose presence alone is noted. */
function recordable(row: Partial<EmailConnection>): Record<string, unknown> {
  const { smtp_password_enc, imap_password_enc, id: _id, company_id: _company, created_at: _created, updated_at: _updated, ...rest } = row;
  return {
    ...rest,
    ...(smtp_password_enc === undefined ? {} : { has_password: smtp_password_enc !== null }),
    ...(imap_password_enc === undefined ? {} : { has_imap_password: imap_password_enc !== null }),
  };
}

type Box = Pick<Engine, 'db' | 'clock' | 'secrets'>;

/** A blank password is no password; any other is kept exactly as given (spaces count), encrypted. */
function encryptedPassword(engine: Box, password: string | null | undefined): string | null {
  return blankToNull(password) === null ? null : engine.secrets.encrypt(password as string);
}

type ImapColumns = Pick<EmailConnection, 'imap_host' | 'imap_port' | 'imap_secure' | 'imap_username' | 'imap_password_enc' | 'imap_mailbox'>;

/** The IMAP columns of a new connection: all off without a host; port, TLS and username defaulted. */
function imapSettings(engine: Box, input: EmailConnectionInput, sender: { smtp_username: string | null; from_email: string }): ImapColumns {
  const host = blankToNull(input.imap_host);
  if (!host) return { imap_host: null, imap_port: null, imap_secure: 1, imap_username: null, imap_password_enc: null, imap_mailbox: input.imap_mailbox?.trim() ?? DEFAULT_IMAP_MAILBOX };
  const secure = input.imap_secure ?? (input.imap_port ?? 993) !== 143;
  return {
    imap_host: host,
    imap_port: input.imap_port ?? (secure ? 993 : 143),
    imap_secure: secure ? 1 : 0,
    imap_username: input.imap_username === undefined ? (sender.smtp_username ?? sender.from_email) : blankToNull(input.imap_username),
    imap_password_enc: encryptedPassword(engine, input.imap_password),
    imap_mailbox: input.imap_mailbox?.trim() ?? DEFAULT_IMAP_MAILBOX,
  };
}

/** The IMAP columns an update changes; removing the host turns reading off and forgets the password. */
function imapChanges(engine: Box, current: EmailConnection, input: EmailConnectionInput): Partial<EmailConnection> {
  const changes: Partial<EmailConnection> = {};
  if (input.imap_host !== undefined && !blankToNull(input.imap_host)) {
    return { imap_host: null, imap_port: null, imap_username: null, imap_password_enc: null, ...(input.imap_mailbox !== undefined ? { imap_mailbox: input.imap_mailbox.trim() } : {}) };
  }
  if (!current.imap_host && input.imap_host !== undefined) {
    return imapSettings(engine, input, { smtp_username: input.smtp_username === undefined ? current.smtp_username : blankToNull(input.smtp_username), from_email: input.from_email?.trim() ?? current.from_email });
  }
  if (input.imap_host !== undefined) changes.imap_host = (input.imap_host as string).trim();
  if (input.imap_port !== undefined) changes.imap_port = input.imap_port ?? ((input.imap_secure ?? current.imap_secure === 1) ? 993 : 143);
  if (input.imap_secure !== undefined) changes.imap_secure = input.imap_secure ? 1 : 0;
  if (input.imap_username !== undefined) changes.imap_username = blankToNull(input.imap_username);
  if (input.imap_password !== undefined) changes.imap_password_enc = encryptedPassword(engine, input.imap_password);
  if (input.imap_mailbox !== undefined) changes.imap_mailbox = input.imap_mailbox.trim();
  return changes;
}

export async function createConnection(engine: Box, scope: ConnectionScope, input: EmailConnectionInput, rule: MailEndpointRule = ANY_MAIL_ENDPOINT): Promise<EmailConnectionDto> {
  requireOwner(scope, 'add an email connection');
  const errors = { ...validateConnection(input, true), ...endpointErrors(rule, input) };
  if (Object.keys(errors).length) throw new ValidationError('The email connection is invalid', errors);
  return runCommand(engine, 'create_email_connection', scope, async (tx) => {
    const userId = input.user_id === undefined ? scope.actor.userId : input.user_id?.toLowerCase() ?? null;
    if (userId) await checkUser(tx, scope.companyId, userId);
    const isActive = input.is_active !== false;
    const hasDefault = await tx.db.selectFrom('email_connections').select('id').where('company_id', '=', scope.companyId).where('is_default', '=', 1).executeTakeFirst();
    // The company's first active connection becomes its default unless told otherwise.
    const isDefault = input.is_default ?? (isActive && !hasDefault);
    const port = input.smtp_port as number;
    const row: EmailConnection = {
      id: newId(),
      company_id: scope.companyId,
      user_id: userId,
      name: (input.name as string).trim(),
      from_email: (input.from_email as string).trim(),
      from_name: blankToNull(input.from_name),
      smtp_host: (input.smtp_host as string).trim(),
      smtp_port: port,
      smtp_secure: (input.smtp_secure ?? port === 465) ? 1 : 0,
      smtp_username: blankToNull(input.smtp_username),
      smtp_password_enc: encryptedPassword(engine, input.smtp_password),
      is_default: isDefault ? 1 : 0,
      is_active: isActive ? 1 : 0,
      allow_shared_sending: input.allow_shared_sending ? 1 : 0,
      ...imapSettings(engine, input, { smtp_username: blankToNull(input.smtp_username), from_email: (input.from_email as string).trim() }),
      replies_checked_at: null,
      replies_error: null,
      require_tls: (input.require_tls ?? !isLoopbackHost((input.smtp_host as string).trim())) ? 1 : 0,
      smtp_tls_cert: null,
      smtp_tls_trusted_at: null,
      imap_tls_cert: null,
      imap_tls_trusted_at: null,
      tls_review: 0,
      created_at: tx.now,
      updated_at: tx.now,
    };
    if (isDefault) await clearOtherDefaults(tx, scope.companyId, row.id);
    await tx.db.insertInto('email_connections').values(row).execute();
    await tx.record('email_connection', row.id, 'insert', recordable(row));
    return toConnectionDto(row);
  });
}

export async function updateConnection(engine: Box, scope: ConnectionScope, connectionId: string, input: EmailConnectionInput, rule: MailEndpointRule = ANY_MAIL_ENDPOINT): Promise<EmailConnectionDto> {
  requireOwner(scope, 'change its email connections');
  const errors = validateConnection(input, false);
  if (Object.keys(errors).length) throw new ValidationError('The email connection is invalid', errors);
  return runCommand(engine, 'update_email_connection', scope, async (tx) => {
    const current = await findConnection(tx.db, scope.companyId, connectionId);
    const refused = endpointErrors(rule, input, current);
    if (Object.keys(refused).length) throw new ValidationError('The email connection is invalid', refused);
    if (needsPasswordAgain(current, input)) {
      throw new ValidationError('Give the SMTP password again to change the server settings', { smtp_password: ['Is required when the host or username changes'] }, 'password_required');
    }
    if (needsImapPasswordAgain(current, input)) {
      throw new ValidationError('Give the IMAP password again to change the IMAP server settings', { imap_password: ['Is required when the IMAP host or username changes'] }, 'password_required');
    }
    const changes: Partial<EmailConnection> = {};
    if (input.name !== undefined) changes.name = input.name.trim();
    if (input.from_email !== undefined) changes.from_email = input.from_email.trim();
    if (input.from_name !== undefined) changes.from_name = blankToNull(input.from_name);
    if (input.smtp_host !== undefined) changes.smtp_host = input.smtp_host.trim();
    if (input.smtp_port !== undefined) changes.smtp_port = input.smtp_port;
    if (input.smtp_secure !== undefined) changes.smtp_secure = input.smtp_secure ? 1 : 0;
    if (input.smtp_username !== undefined) changes.smtp_username = blankToNull(input.smtp_username);
    if (input.smtp_password !== undefined) changes.smtp_password_enc = encryptedPassword(engine, input.smtp_password);
    if (input.allow_shared_sending !== undefined) changes.allow_shared_sending = input.allow_shared_sending ? 1 : 0;
    if (input.require_tls !== undefined) changes.require_tls = input.require_tls ? 1 : 0;
    if (input.user_id !== undefined) {
      changes.user_id = input.user_id?.toLowerCase() ?? null;
      if (changes.user_id) await checkUser(tx, scope.companyId, changes.user_id);
    }
    if (input.is_active !== undefined) changes.is_active = input.is_active ? 1 : 0;
    Object.assign(changes, imapChanges(engine, current, input));
    Object.assign(changes, forgottenTrust(current, changes));
    const isActive = (changes.is_active ?? current.is_active) === 1;
    if (input.is_default === true && !isActive) {
      throw new ValidationError('The email connection is invalid', { is_default: ['An inactive connection cannot be the default'] });
    }
    if (input.is_default !== undefined) changes.is_default = input.is_default ? 1 : 0;
    // A deactivated connection cannot send, so it stops being the default.
    if (!isActive && current.is_default === 1) changes.is_default = 0;
    if (Object.keys(changes).length === 0) return toConnectionDto(current);
    if (changes.is_default === 1) await clearOtherDefaults(tx, scope.companyId, current.id);
    await tx.db.updateTable('email_connections').set({ ...changes, updated_at: tx.now }).where('id', '=', current.id).execute();
    await tx.record('email_connection', current.id, 'update', recordable(changes));
    return getConnection(tx.db, scope.companyId, current.id);
  });
}

/** The company's default, active sending connection. */
export async function defaultConnection(db: Db, companyId: string): Promise<EmailConnection | undefined> {
  return db.selectFrom('email_connections').selectAll().where('company_id', '=', companyId).where('is_default', '=', 1).where('is_active', '=', 1).executeTakeFirst();
}

/** A trusted certificate belongs to one server: another host, port or TLS mode forgets it. */
export function forgottenTrust(current: Pick<EmailConnection, 'smtp_host' | 'smtp_port' | 'smtp_secure' | 'imap_host' | 'imap_port' | 'imap_secure' | 'smtp_tls_cert' | 'imap_tls_cert'>, changes: Partial<EmailConnection>): Partial<EmailConnection> {
  const moved = (field: 'smtp_host' | 'smtp_port' | 'smtp_secure' | 'imap_host' | 'imap_port' | 'imap_secure') =>
    changes[field] !== undefined && String(changes[field]).toLowerCase() !== String(current[field]).toLowerCase();
  return {
    ...(current.smtp_tls_cert && (moved('smtp_host') || moved('smtp_port') || moved('smtp_secure')) ? { smtp_tls_cert: null, smtp_tls_trusted_at: null } : {}),
    ...(current.imap_tls_cert && (moved('imap_host') || moved('imap_port') || moved('imap_secure')) ? { imap_tls_cert: null, imap_tls_trusted_at: null } : {}),
  };
}

export type MailServerKind = 'smtp' | 'imap';

/**
 * An owner trusts exactly the certificate the connection test showed (its SHA-256 fingerprint):
 * the server is read again, and only when it still presents that certificate is it stored.
 */
export async function trustCertificate(engine: Box, scope: ConnectionScope, connectionId: string, server: MailServerKind, sha256: string, rule: MailEndpointRule = ANY_MAIL_ENDPOINT): Promise<EmailConnectionDto> {
  requireOwner(scope, "trust a mail server's certificate");
  const wanted = sha256.trim().toUpperCase();
  if (!/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/.test(wanted)) throw new ValidationError('The fingerprint is invalid', { sha256: ['Must be a SHA-256 fingerprint: 32 hex pairs separated by colons'] });
  const current = await findConnection(engine.db, scope.companyId, connectionId);
  const target =
    server === 'smtp'
      ? { protocol: 'SMTP' as const, host: current.smtp_host, port: current.smtp_port, secure: current.smtp_secure === 1, seconds: SMTP_TIMEOUT_SECONDS }
      : current.imap_host && current.imap_port
        ? { protocol: 'IMAP' as const, host: current.imap_host, port: current.imap_port, secure: current.imap_secure === 1, seconds: IMAP_TIMEOUT_SECONDS }
        : null;
  if (!target) throw new InvalidStateError('This connection has no IMAP server', 'no_imap');
  const refusal = endpointRefusal(rule, target.host, target.port) ?? (await resolvedRefusal(rule, target.host));
  if (refusal) throw new InvalidStateError(refusal, 'mail_host_refused');
  const probe = await probeCertificate(target.protocol, target.host, target.port, target.secure, target.seconds * 1000).catch(() => null);
  if (!probe) throw new InvalidStateError(`${target.host}:${target.port} could not be reached to read its certificate; test the connection again`, 'server_unreachable');
  if (!probe.tls) throw new InvalidStateError(`${target.host}:${target.port} offers no secure (TLS) connection, so there is no certificate to trust`, 'no_tls');
  if (probe.certificate.sha256 !== wanted) {
    throw new ConflictError(`The server now shows another certificate (SHA-256 ${probe.certificate.sha256}) than the one you chose; test the connection again and compare`, 'certificate_changed');
  }
  return runCommand(engine, 'trust_email_certificate', scope, async (tx) => {
    const fresh = await findConnection(tx.db, scope.companyId, connectionId);
    const changes: Partial<EmailConnection> =
      server === 'smtp' ? { smtp_tls_cert: probe.pem, smtp_tls_trusted_at: tx.now, tls_review: 0 } : { imap_tls_cert: probe.pem, imap_tls_trusted_at: tx.now, tls_review: 0 };
    await tx.db.updateTable('email_connections').set({ ...changes, updated_at: tx.now }).where('id', '=', fresh.id).execute();
    await tx.record('email_connection', fresh.id, 'update', recordable(changes));
    return getConnection(tx.db, scope.companyId, fresh.id);
  });
}

/** An owner stops trusting the certificate of one server: from then on only a known authority's passes. */
export async function revokeCertificate(engine: Box, scope: ConnectionScope, connectionId: string, server: MailServerKind): Promise<EmailConnectionDto> {
  requireOwner(scope, 'change which mail server certificates are trusted');
  return runCommand(engine, 'revoke_email_certificate', scope, async (tx) => {
    const current = await findConnection(tx.db, scope.companyId, connectionId);
    const changes: Partial<EmailConnection> = server === 'smtp' ? { smtp_tls_cert: null, smtp_tls_trusted_at: null } : { imap_tls_cert: null, imap_tls_trusted_at: null };
    if ((server === 'smtp' ? current.smtp_tls_cert : current.imap_tls_cert) === null) return toConnectionDto(current);
    await tx.db.updateTable('email_connections').set({ ...changes, updated_at: tx.now }).where('id', '=', current.id).execute();
    await tx.record('email_connection', current.id, 'update', recordable(changes));
    return getConnection(tx.db, scope.companyId, current.id);
  });
}
