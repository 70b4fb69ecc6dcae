import type { components, paths } from '../../../core/http/client/schema';

export type Schemas = components['schemas'];
export type Problem = Schemas['Problem'];
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Paths that have an operation for this method. */
export type PathOf<M extends Method> = { [P in keyof paths]: paths[P] extends Record<M, unknown> ? P : never }[keyof paths];
export type Operation<M extends Method, P extends PathOf<M>> = paths[P] extends Record<M, infer O> ? O : never;

type Json<C> = C extends { content: { 'application/json': infer J } } ? J : never;
type PathArgs<O> = O extends { parameters: { path: infer X } } ? { path: X } : { path?: never };
type QueryArgs<O> = O extends { parameters: { query?: infer Q } } ? ([Q] extends [undefined] ? { query?: never } : { query?: Q }) : { query?: never };
type BodyArgs<O> = O extends { requestBody: infer B } ? { body: Json<B> } : O extends { requestBody?: infer B } ? ([B] extends [undefined] ? { body?: never } : { body?: Json<NonNullable<B>> }) : { body?: never };
export type Args<O> = PathArgs<O> & QueryArgs<O> & BodyArgs<O> & { signal?: AbortSignal };

type Success = 200 | 201 | 202 | 204;
export type Ok<O> = O extends { responses: infer R } ? Json<R[Extract<keyof R, Success>]> : never;
/** The 200 body of a GET path: what a screen renders. */
export type Response<P extends PathOf<'get'>> = Ok<Operation<'get', P>>;
export type QueryOf<P extends PathOf<'get'>> = Operation<'get', P> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** A failed request: the problem+json body when the server sent one, else a network failure. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem | null,
    message: string,
  ) {
    super(message);
  }

  /** True when the local server could not be reached at all. */
  get unreachable(): boolean {
    return this.status === 0;
  }

  fieldErrors(): Record<string, string[]> {
    return this.problem?.errors ?? {};
  }
}

export interface ClientConfig {
  baseUrl: () => string;
  token: () => string | null;
  /** Called on any 401, so the app can drop the session and ask to sign in. */
  onUnauthorized?: () => void;
  /** Called after every response or network failure: feeds the online/offline indicator. */
  onReachability?: (reachable: boolean) => void;
}

function fillPath(path: string, values: Record<string, string> | undefined): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = values?.[name];
    if (value === undefined) throw new Error(`missing path parameter ${name}`);
    return encodeURIComponent(value);
  });
}

function queryString(query: Record<string, unknown> | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null || value === '') continue;
    params.set(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The one HTTP client every screen uses, typed by the generated schema. */
export function createClient(config: ClientConfig) {
  async function request<M extends Method, P extends PathOf<M>>(method: M, path: P, args: Args<Operation<M, P>>): Promise<Ok<Operation<M, P>>> {
    const { path: pathValues, query, body, signal } = args as { path?: Record<string, string>; query?: Record<string, unknown>; body?: unknown; signal?: AbortSignal };
    const headers: Record<string, string> = { accept: 'application/json' };
    const token = config.token();
    if (token) headers.authorization = `Token ${token}`;
    // The server refuses a state-changing request that could come from another site unless it
    // carries a token or a JSON content type; a public POST without a body (first-launch demo) sends the type too.
    if (body !== undefined || method !== 'get') headers['content-type'] = 'application/json';
    let res: globalThis.Response;
    try {
      res = await fetch(`${config.baseUrl()}${fillPath(path, pathValues)}${queryString(query)}`, {
        method: method.toUpperCase(),
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      config.onReachability?.(false);
      throw new ApiError(0, null, 'The local ardesk server cannot be reached');
    }
    config.onReachability?.(true);
    const text = await res.text();
    const data = text ? safeJson(text) : null;
    if (!res.ok) {
      if (res.status === 401) config.onUnauthorized?.();
      const problem = data && typeof data === 'object' && 'status' in data ? (data as Problem) : null;
      throw new ApiError(res.status, problem, problem?.detail ?? `${method.toUpperCase()} ${path} failed with ${res.status}`);
    }
    return data as Ok<Operation<M, P>>;
  }

  return {
    get: <P extends PathOf<'get'>>(path: P, args: Args<Operation<'get', P>>) => request('get', path, args),
    post: <P extends PathOf<'post'>>(path: P, args: Args<Operation<'post', P>>) => request('post', path, args),
    put: <P extends PathOf<'put'>>(path: P, args: Args<Operation<'put', P>>) => request('put', path, args),
    patch: <P extends PathOf<'patch'>>(path: P, args: Args<Operation<'patch', P>>) => request('patch', path, args),
    delete: <P extends PathOf<'delete'>>(path: P, args: Args<Operation<'delete', P>>) => request('delete', path, args),
  };
}

export type Client = ReturnType<typeof createClient>;

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
