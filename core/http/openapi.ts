import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { isValidDate, MAX_DATE, MIN_DATE } from '../dates';
import { isUuid } from '../ids';
import { isTypeableText } from '../text';
import { hasAtMostTwoDecimals, MAX_AMOUNT } from '../money';
import type { AppEnv } from './env';
import { areaFor, operationIdFor } from './operation-ids';
import { problem, validationProblem } from './problem';
import { evidenceItemSchema } from '../insights/evidence';

/**
 * A body sent to an operation that declares none is refused, not ignored: bodies are strict. An
 * empty body and `{}` still pass, since many clients send one of them on every POST.
 */
export const refuseUnexpectedBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.raw.body) {
    const text = (await c.req.text()).replace(/\s/g, '');
    if (text !== '' && text !== '{}') return problem(400, 'unexpected_body', 'This request takes no body');
  }
  await next();
};

/**
 * Every router shares one validation hook, so a bad request always gets the same problem+json,
 * and every operation without a declared body refuses one (refuseUnexpectedBody).
 */
/**
 * An operation's name and area for the document: derived unless the route sets them. Operations
 * beyond the specification are tagged by area like the rest and marked `x-extension`.
 */
function describeOperation(route: { method: string; path: string; operationId?: string; tags?: string[] }) {
  const extension = route.tags?.includes('Extensions') ?? false;
  return {
    operationId: route.operationId ?? operationIdFor(route.method, route.path),
    tags: extension ? [areaFor(route.path)] : route.tags,
    ...(extension ? { 'x-extension': true } : {}),
  };
}

export function createRouter(): OpenAPIHono<AppEnv> {
  const router = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) return validationProblem(result.error, result.target);
    },
  });
  const register = router.openapi.bind(router);
  router.openapi = ((route, handler, hook) => {
    const named = { ...route, ...describeOperation(route) };
    return register(
      route.request?.body ? named : { ...named, middleware: [refuseUnexpectedBody, ...(route.middleware === undefined ? [] : Array.isArray(route.middleware) ? route.middleware : [route.middleware])] },
      handler,
      hook,
    );
  }) as typeof router.openapi;
  return router;
}

export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string().openapi({ example: 'validation_error' }),
    errors: z.record(z.string(), z.array(z.string())).optional(),
  })
  .openapi('Problem');

const problemContent = { 'application/problem+json': { schema: ProblemSchema } };

/** The problem responses a route can give, by status, for the OpenAPI document. */
export function problems(...statuses: Array<400 | 401 | 403 | 404 | 409 | 413 | 422 | 429 | 502>) {
  const text: Record<number, string> = {
    400: 'Invalid input',
    401: 'Missing, unknown or expired token',
    403: 'No membership in the company, or the role may not write',
    404: 'Unknown identifier, or one of another company',
    409: 'Conflict with the current state',
    413: 'Request body too large',
    422: 'Refused by the team server (this request was well formed)',
    429: 'Too many attempts',
    502: 'The team server could not be reached, or failed',
  };
  return Object.fromEntries(statuses.map((s) => [s, { description: text[s], content: problemContent }]));
}

export function json<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { 'application/json': { schema } } };
}

export function jsonBody<T extends z.ZodType>(schema: T, required = true) {
  return { required, content: { 'application/json': { schema } } };
}

export const Uuid = z.string().openapi({ format: 'uuid', example: '0192f0c4-5f3e-7c4a-9a51-1f2e3d4c5b6a' });
/** A date YYYY-MM-DD between MIN_DATE and MAX_DATE (core/dates). */
export const DateString = z
  .string()
  .refine(isValidDate, `Must be a date YYYY-MM-DD from ${MIN_DATE} to ${MAX_DATE}`)
  .openapi({ format: 'date', example: '2026-11-23' });
/** Extension on insights and actions: one fact, figure or record behind them. */
export const EvidenceItem = evidenceItemSchema.openapi('EvidenceItem');

export const Timestamp = z.string().openapi({ format: 'date-time', example: '2026-11-23T09:30:00.000Z' });

/** Path parameters are plain strings: a malformed UUID simply matches nothing and gets a 404. */
export const CompanyParams = z.object({
  company_id: z.string().openapi({ param: { name: 'company_id', in: 'path' }, format: 'uuid' }),
});

/** Path ids are lower-cased (UUIDs are case-insensitive; stored ids are lower case). */
export function idParams<K extends string>(...names: K[]) {
  return z.object(
    Object.fromEntries([
      ['company_id', CompanyParams.shape.company_id],
      ...names.map((n) => [n, z.string().toLowerCase().openapi({ param: { name: n, in: 'path' }, format: 'uuid' })]),
    ]) as Record<'company_id' | K, z.ZodString>,
  );
}

/** A UUID in a body or query: any letter case accepted, lower-cased like the stored ids. */
export const UuidValue = z
  .string()
  .refine(isUuid, 'must be a UUID')
  .transform((v) => v.toLowerCase())
  .openapi({ type: 'string', format: 'uuid' });

/** A UUID or null (clears the reference). The document says null is allowed, as the behaviour does. */
export const NullableUuidValue = UuidValue.nullable().openapi({ type: ['string', 'null'], format: 'uuid' });

export const TYPEABLE_TEXT_MESSAGE = 'Must not contain NUL characters or unpaired surrogates';

/** Free text of at most `max` characters: the one schema for every free-text field. */
export const Text = (max: number) => z.string().max(max).refine(isTypeableText, TYPEABLE_TEXT_MESSAGE);

/** A search term (a NUL would end a LIKE pattern or a full-text phrase early). */
export const SearchText = Text(200);

/** Money in major units: at least one cent, at most two decimals. */
export const MoneyValue = z
  .number()
  .min(0.01, 'Must be at least 0.01')
  .max(MAX_AMOUNT)
  .refine(hasAtMostTwoDecimals, 'must have at most two decimals')
  .openapi({ example: 1250.5, description: 'Major currency units, at most two decimals, at least 0.01' });

/** Query booleans: only true/false/1/0 are accepted; anything else is a 400. */
export const QueryBool = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1')
  .openapi({ type: 'boolean' });

export const SECURITY = [{ Token: [] }];

/** The spec's paths end in a slash; the same routes answer without it too (hidden from the document). */
export function withoutSlash<R extends { path: string }>(route: R): R & { hide: true } {
  return { ...route, path: route.path.replace(/\/$/, ''), hide: true };
}
