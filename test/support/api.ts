import { createUser } from '../../core/auth/users';
import { insertCompany, insertMembership } from '../../core/companies/companies';
import type { Role } from '../../core/db/schema';
import { runCommand, systemActor } from '../../core/engine';
import { createApp } from '../../core/http/app';
import type { TestEngine } from './engine';

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
