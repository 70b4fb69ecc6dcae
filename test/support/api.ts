import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createUser } from '../../core/auth/users';
import { insertCompany, insertMembership } from '../../core/companies/companies';
import type { Role } from '../../core/db/schema';
import { runCommand, systemActor } from '../../core/engine';
import { createApp } from '../../core/http/app';
import { type TestEngine, testEngine } from './engine';
import { addMembers } from './ledger-fixtures';

export type App = ReturnType<typeof createApp>;

/** A JSON request through app.request(), the way a script would send it. */
export async function call(app: App, method: string, path: string, options: { token?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Token ${options.token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  }
  const res = await app.request(path, { method, headers, body });
  const text = await res.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  return { status: res.status, headers: res.headers, body: json };
}

export async function addCompany(engine: TestEngine, name: string): Promise<string> {
  return runCommand(engine, 'test_company', { actor: systemActor, companyId: null }, (tx) => insertCompany(tx, name));
}

export async function addUser(engine: TestEngine, username: string, memberships: Array<[string, Role]>): Promise<string> {
  const userId = await createUser(engine, { username, password: `${username}-pw` });
  await runCommand(engine, 'test_membership', { actor: systemActor, companyId: null }, async (tx) => {
    for (const [companyId, role] of memberships) await insertMembership(tx, companyId, userId, role);
  });
  return userId;
}

export async function loginAs(app: App, username: string): Promise<string> {
  const res = await call(app, 'POST', '/api/v1/auth/login/', { body: { username, password: `${username}-pw` } });
  if (res.status !== 200) throw new Error(`login ${username} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.token;
}

export interface ApiUsers {
  engine: TestEngine;
  app: App;
  /** Session token of each user, by username. */
  tokens: Record<string, string>;
  /** User id of each user, by username. */
  userIds: Record<string, string>;
}

/**
 * The users most API tests share, made and logged in once per file (password hashing is slow on
 * purpose): 'demo' (owner) and 'watcher' (viewer) of the test company, 'rival' (owner) of the other
 * one, plus any `extra` users that join the test company. Pair with twoCompanies() in beforeEach.
 */
export async function apiUsers(extra: Array<[string, Role]> = []): Promise<ApiUsers> {
  const engine = await testEngine('2026-11-23T12:00:00.000Z');
  const app = createApp(engine);
  const home = await addCompany(engine, 'Home');
  const users: Array<[string, Role]> = [['demo', 'owner'], ...extra, ['watcher', 'viewer'], ['rival', 'owner']];
  const userIds: Record<string, string> = {};
  const tokens: Record<string, string> = {};
  for (const [username, role] of users) userIds[username] = await addUser(engine, username, [[home, role]]);
  for (const [username] of users) tokens[username] = await loginAs(app, username);
  return { engine, app, tokens, userIds };
}

/**
 * A fresh company ('Acme Supply') with demo as owner, watcher as viewer and the `extra` members,
 * and a second one ('Borealis Foods') owned by rival, so every test starts from an empty ledger.
 */
export async function twoCompanies(engine: TestEngine, extra: Array<[string, Role]> = []): Promise<{ company: string; other: string; base: string }> {
  const company = await addCompany(engine, 'Acme Supply');
  const other = await addCompany(engine, 'Borealis Foods');
  await addMembers(engine, company, [['demo', 'owner'], ...extra, ['watcher', 'viewer']]);
  await addMembers(engine, other, [['rival', 'owner']]);
  return { company, other, base: `/api/companies/${company}` };
}

export interface ApiWorkspace extends ApiUsers {
  /** This test's company ('Acme Supply'), the other one ('Borealis Foods') and `/api/companies/{company}`. */
  company: string;
  other: string;
  base: string;
}

/**
 * The API test workspace: apiUsers() once per file and twoCompanies() before each test, with the
 * hooks that make and dispose them registered here. Its fields are filled in by the hooks, so read
 * them inside tests and hooks, not when the file loads.
 */
export function useApiWorkspace(extra: Array<[string, Role]> = []): ApiWorkspace {
  const w = {} as ApiWorkspace;
  beforeAll(async () => {
    Object.assign(w, await apiUsers(extra));
  });
  afterAll(() => w.engine?.dispose());
  beforeEach(async () => {
    Object.assign(w, await twoCompanies(w.engine, extra));
  });
  return w;
}
