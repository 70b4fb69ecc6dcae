/**
 * A synced write is the API operation that made it: method, path, body, and the identifiers it
 * created. Replaying it through the server's own app as the user who made it runs exactly the
 * same validation, permission and state-machine checks as the original request, with no second
 * registry of commands to keep in step with the routes.
 */
import type { Context } from 'hono';
import type { Engine } from '../engine';
import type { AuthenticatedUser } from '../auth/users';
import { newTrace, withTrace } from '../trace';

export interface Operation {
  method: string;
  path: string;
  content_type: string | null;
  body: string | null;
  body_encoding: 'utf8' | 'base64';
  /** Identifiers handed out by the original run, in order. */
  ids: string[];
}

/** What a replayed request runs with instead of a token and the app's own engine. */
export interface Replay {
  user: AuthenticatedUser;
  /** The engine whose db is the transaction the replay belongs to. */
  engine: Engine;
}

/** The Hono env of a replayed request; real requests (node-server) never carry `syncReplay`. */
export interface ReplayEnv {
  syncReplay: Replay;
}

export type AppFetch = (request: Request, env: ReplayEnv) => Promise<Response>;

export function replayOf(c: Context): Replay | undefined {
  return (c.env as Partial<ReplayEnv> | undefined)?.syncReplay;
}

export interface ReplayOutcome {
  ok: boolean;
  status: number;
  /** Why the operation was refused, in the words of the problem it answered. */
  reason: string | null;
}

/** The request body as stored: text stays text, anything else (a spreadsheet upload) is base64. */
export function encodeBody(contentType: string | null, bytes: Uint8Array): Pick<Operation, 'body' | 'body_encoding'> {
  if (bytes.length === 0) return { body: null, body_encoding: 'utf8' };
  if (!contentType || /json|text|csv|urlencoded/i.test(contentType)) return { body: Buffer.from(bytes).toString('utf8'), body_encoding: 'utf8' };
  return { body: Buffer.from(bytes).toString('base64'), body_encoding: 'base64' };
}

function decodeBody(op: Operation): BodyInit | null {
  if (op.body === null) return null;
  return op.body_encoding === 'base64' ? new Uint8Array(Buffer.from(op.body, 'base64')) : op.body;
}

export async function reasonOf(response: Response): Promise<string> {
  const text = await response.text();
  try {
    const problem = JSON.parse(text) as { detail?: string; errors?: Record<string, string[]> };
    const fields = problem.errors ? Object.entries(problem.errors).map(([field, messages]) => `${field}: ${messages.join(', ')}`) : [];
    return [problem.detail ?? `HTTP ${response.status}`, ...fields].join('; ');
  } catch {
    return `HTTP ${response.status}`;
  }
}

/** Runs a stored operation through an app as `replay.user`, inside `replay.engine`'s transaction. */
export async function replayOperation(fetch: AppFetch, op: Operation, replay: Replay): Promise<ReplayOutcome> {
  const headers: Record<string, string> = op.content_type ? { 'content-type': op.content_type } : {};
  const request = new Request(`http://localhost${op.path}`, { method: op.method, headers, body: decodeBody(op) });
  const response = await withTrace(newTrace(op.ids), () => fetch(request, { syncReplay: replay }));
  if (response.status < 400) return { ok: true, status: response.status, reason: null };
  return { ok: false, status: response.status, reason: await reasonOf(response) };
}
