/**
 * Rows the sequence tests need (team members, customers with contacts, invoices, email connections,
 * manual communications), written straight through runCommand (see rows.ts) so these tests do not
 * depend on the other areas' endpoints, and a two-company world with users and tokens.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { insertMembership } from '../../core/companies/companies';
import { type Engine, runCommand, systemActor } from '../../core/engine';
import { createApp } from '../../core/http/app';
import { newId } from '../../core/ids';
import { addCompany, addUser, type App, call, loginAs } from './api';
import { type TestEngine, testEngine } from './engine';
import { fixture, insertBillingContactRow, insertCommunicationRow, insertCustomerRow, insertInvoiceRow, insertTeamMemberRow } from './rows';

type Fixture = Pick<Engine, 'db' | 'clock'>;

export function addTeamMember(engine: Fixture, companyId: string, name: string): Promise<string> {
  return fixture(engine, companyId, (tx) => insertTeamMemberRow(tx, companyId, { name }));
}

export interface CustomerFixture {
  name: string;
  arOwner?: string | null;
  /** The billing contact's email; null for a customer without contacts. */
  email?: string | null;
  contactName?: string;
}

/** A customer with a billing contact (billing@<name>.test unless `email` says otherwise). */
export function addCustomer(engine: Fixture, companyId: string, input: CustomerFixture): Promise<string> {
  return fixture(engine, companyId, async (tx) => {
    const id = await insertCustomerRow(tx, companyId, { name: input.name, ar_owner_id: input.arOwner ?? null });
    const email = input.email === undefined ? `billing@${input.name.toLowerCase().replace(/[^a-z0-9]+/g, '')}.test` : input.email;
    if (email !== null) await insertBillingContactRow(tx, companyId, id, { name: input.contactName ?? 'Pat Payables', email });
    return id;
  });
}

export interface InvoiceFixture {
  number: string;
  /** Cents. */
  total: number;
  dueDate: string;
  paymentLink?: string | null;
  closed?: boolean;
}

/** A USD invoice issued 2026-09-01: open, or paid in full on 2026-11-01 when `closed`. */
export function addInvoice(engine: Fixture, companyId: string, customerId: string, input: InvoiceFixture): Promise<string> {
  return fixture(engine, companyId, (tx) =>
    insertInvoiceRow(tx, companyId, customerId, {
      invoice_number: input.number,
      invoice_date: '2026-09-01',
      due_date: input.dueDate,
      currency: 'USD',
      total_amount: input.total,
      paid_amount: input.closed ? input.total : 0,
      closing_reason: input.closed ? 'paid' : null,
      closed_date: input.closed ? '2026-11-01' : null,
      payment_link: input.paymentLink ?? null,
    }),
  );
}

export interface ConnectionFixture {
  name: string;
  port: number;
  userId?: string | null;
  allowShared?: boolean;
  isActive?: boolean;
  fromEmail?: string;
  fromName?: string | null;
}

/** An email connection to the loopback SMTP server, without authentication. */
export async function addConnection(engine: Fixture, companyId: string, input: ConnectionFixture): Promise<string> {
  return fixture(engine, companyId, async (tx) => {
    const row = {
      id: newId(),
      company_id: companyId,
      user_id: input.userId ?? null,
      name: input.name,
      from_email: input.fromEmail ?? `${input.name.toLowerCase().replace(/[^a-z0-9]+/g, '.')}@ardesk.test`,
      from_name: input.fromName === undefined ? input.name : input.fromName,
      smtp_host: '127.0.0.1',
      smtp_port: input.port,
      smtp_secure: 0 as const,
      smtp_username: null,
      smtp_password_enc: null,
      is_default: 0 as const,
      is_active: input.isActive === false ? (0 as const) : (1 as const),
      allow_shared_sending: input.allowShared ? (1 as const) : (0 as const),
      created_at: tx.now,
      updated_at: tx.now,
    };
    await tx.db.insertInto('email_connections').values(row).execute();
    await tx.record('email_connection', row.id, 'insert', { ...row, smtp_password_enc: null });
    return row.id;
  });
}

/** A collector's manual touch of a customer (outside any sequence). */
export function addManualEmail(engine: Fixture, companyId: string, customerId: string, occurredAt: string): Promise<string> {
  return fixture(engine, companyId, (tx) =>
    insertCommunicationRow(tx, companyId, { customer_id: customerId, kind: 'email', subject: 'Quick note', body: 'Following up by hand', occurred_at: occurredAt, author_name: 'Collector' }),
  );
}

/** A loopback port nothing listens on: connections to it are refused at once. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface SequenceWorld {
  engine: TestEngine;
  app: App;
  /** The company under test and a second one, for foreign-id checks; fresh ones after each `fresh()`. */
  company: string;
  other: string;
  /** alice: owner of company; bob: collector of company; carol: owner of other; vic: viewer of company. */
  users: { alice: string; bob: string; carol: string; vic: string };
  tokens: { alice: string; bob: string; carol: string; vic: string };
  /** New empty companies with the same members, and the clock back at `now`: a clean slate without new logins. */
  fresh(now?: string): Promise<void>;
  /** Calls the API as alice unless another token is given. */
  api(method: string, path: string, body?: unknown, token?: string): ReturnType<typeof call>;
  /** `/api/companies/{company}` + rest. */
  path(rest: string, companyId?: string): string;
  dispose(): Promise<void>;
}

export const WORLD_NOW = '2026-11-23T12:00:00.000Z';

/**
 * One engine and four logged-in users per test file (password hashing is deliberately slow);
 * each test calls fresh() for its own pair of companies.
 */
export async function sequenceWorld(): Promise<SequenceWorld> {
  const engine = await testEngine(WORLD_NOW);
  const app = createApp(engine);
  const users = {
    alice: await addUser(engine, 'alice', []),
    bob: await addUser(engine, 'bob', []),
    carol: await addUser(engine, 'carol', []),
    vic: await addUser(engine, 'vic', []),
  };
  const tokens = { alice: await loginAs(app, 'alice'), bob: await loginAs(app, 'bob'), carol: await loginAs(app, 'carol'), vic: await loginAs(app, 'vic') };
  const world: SequenceWorld = {
    engine,
    app,
    company: '',
    other: '',
    users,
    tokens,
    async fresh(now = WORLD_NOW) {
      engine.clock.set(now);
      world.company = await addCompany(engine, 'Acme Supply');
      world.other = await addCompany(engine, 'Borealis Foods');
      await runCommand(engine, 'test_membership', { actor: systemActor, companyId: null }, async (tx) => {
        await insertMembership(tx, world.company, users.alice, 'owner');
        await insertMembership(tx, world.company, users.bob, 'collector');
        await insertMembership(tx, world.company, users.vic, 'viewer');
        await insertMembership(tx, world.other, users.carol, 'owner');
      });
    },
    api: (method, path, body, token) => call(app, method, path, { token: token ?? tokens.alice, body }),
    path: (rest, companyId = world.company) => `/api/companies/${companyId}${rest}`,
    dispose: () => engine.dispose(),
  };
  return world;
}

/** Creates a sequence with the given steps through the API and activates it; returns ids. */
export async function activeSequence(world: SequenceWorld, name: string, steps: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}, companyId = world.company, token?: string) {
  const created = await world.api('POST', world.path('/sequences', companyId), { name, ...extra }, token);
  if (created.status !== 201) throw new Error(`create sequence: ${created.status} ${JSON.stringify(created.body)}`);
  const stepIds: string[] = [];
  for (const step of steps) {
    const res = await world.api('POST', world.path(`/sequences/${created.body.id}/steps`, companyId), step, token);
    if (res.status !== 201) throw new Error(`create step: ${res.status} ${JSON.stringify(res.body)}`);
    stepIds.push(res.body.id);
  }
  const activated = await world.api('POST', world.path(`/sequences/${created.body.id}`, companyId), { action: 'activate' }, token);
  if (activated.status !== 200) throw new Error(`activate: ${activated.status} ${JSON.stringify(activated.body)}`);
  return { id: created.body.id as string, stepIds };
}
