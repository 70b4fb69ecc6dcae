/**
 * Generates renderer/src/api/schema.d.ts (the API client's types) from the app's own OpenAPI
 * document: `npx tsx renderer/src/api/generate.ts`. A test regenerates it and compares, so the
 * committed types cannot drift from the routes. Runs in Node only; the renderer never imports it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../../../core/engine';
import { createApp, OPENAPI_INFO } from '../../../core/http/app';

export const SCHEMA_FILE = join(__dirname, 'schema.d.ts');

type Json = Record<string, any>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** The document the running server serves at /api/openapi.json, built from a throwaway database. */
export async function buildDocument(): Promise<Json> {
  const dir = mkdtempSync(join(tmpdir(), 'ardesk-openapi-'));
  const engine = await createEngine({ file: join(dir, 'doc.sqlite') });
  try {
    return createApp(engine).getOpenAPI31Document(OPENAPI_INFO) as Json;
  } finally {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function key(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
}

function pad(depth: number): string {
  return '  '.repeat(depth);
}

/** One JSON Schema (OpenAPI 3.1 dialect, as zod emits it) as a TypeScript type. */
export function typeOf(schema: Json | undefined, depth = 0): string {
  if (!schema || Object.keys(schema).length === 0) return 'unknown';
  if (schema.$ref) return `components["schemas"][${JSON.stringify(String(schema.$ref).replace('#/components/schemas/', ''))}]`;
  let type: string;
  if (schema.const !== undefined) type = JSON.stringify(schema.const);
  else if (Array.isArray(schema.enum)) type = schema.enum.map((v: unknown) => JSON.stringify(v)).join(' | ');
  else if (schema.anyOf || schema.oneOf) type = (schema.anyOf ?? schema.oneOf).map((s: Json) => wrap(typeOf(s, depth))).join(' | ');
  else if (schema.allOf) type = schema.allOf.map((s: Json) => wrap(typeOf(s, depth))).join(' & ');
  else if (Array.isArray(schema.type)) type = schema.type.map((t: string) => wrap(typeOf({ ...schema, type: t }, depth))).join(' | ');
  else {
    switch (schema.type) {
      case 'string':
        type = 'string';
        break;
      case 'integer':
      case 'number':
        type = 'number';
        break;
      case 'boolean':
        type = 'boolean';
        break;
      case 'null':
        type = 'null';
        break;
      case 'array':
        type = `${wrap(typeOf(schema.items, depth))}[]`;
        break;
      case 'object':
        type = objectType(schema, depth);
        break;
      default:
        type = schema.properties ? objectType(schema, depth) : 'unknown';
    }
  }
  return schema.nullable ? `${wrap(type)} | null` : type;
}

/** Parenthesises a type with a | or & at its top level (outside braces, brackets and strings), so `[]` or a union binds to all of it. */
function wrap(type: string): string {
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < type.length; i++) {
    const ch = type[i];
    if (quoted) {
      if (ch === '\\') i++;
      else if (ch === '"') quoted = false;
    } else if (ch === '"') quoted = true;
    else if ('{[('.includes(ch)) depth++;
    else if ('}])'.includes(ch)) depth--;
    else if (depth === 0 && (ch === '|' || ch === '&')) return `(${type})`;
  }
  return type;
}

function objectType(schema: Json, depth: number): string {
  const props: Json = schema.properties ?? {};
  const required = new Set<string>(schema.required ?? []);
  const lines = Object.entries(props).map(([name, prop]) => `${pad(depth + 1)}${key(name)}${required.has(name) ? '' : '?'}: ${typeOf(prop as Json, depth + 1)};`);
  const extra = schema.additionalProperties;
  if (extra && typeof extra === 'object') lines.push(`${pad(depth + 1)}[key: string]: ${typeOf(extra, depth + 1)};`);
  else if (extra === true || (lines.length === 0 && extra !== false)) lines.push(`${pad(depth + 1)}[key: string]: unknown;`);
  return lines.length ? `{\n${lines.join('\n')}\n${pad(depth)}}` : 'Record<string, never>';
}

function paramsType(params: Json[], depth: number): string {
  const lines = params.map((p) => `${pad(depth + 1)}${key(p.name)}${p.required ? '' : '?'}: ${typeOf(p.schema, depth + 1)};`);
  return `{\n${lines.join('\n')}\n${pad(depth)}}`;
}

function contentSchema(content: Json | undefined): Json | undefined {
  if (!content) return undefined;
  const media = content['application/json'] ?? content['application/problem+json'] ?? Object.values(content)[0];
  return media?.schema;
}

function operationType(op: Json, depth: number): string {
  const lines: string[] = [];
  const params: Json[] = op.parameters ?? [];
  const inPath = params.filter((p) => p.in === 'path');
  const inQuery = params.filter((p) => p.in === 'query');
  if (op.summary) lines.push(`${pad(depth + 1)}/** ${String(op.summary).replace(/\*\//g, '* /')} */`);
  if (inPath.length) lines.push(`${pad(depth + 1)}path: ${paramsType(inPath, depth + 1)};`);
  if (inQuery.length) lines.push(`${pad(depth + 1)}query${inQuery.some((p) => p.required) ? '' : '?'}: ${paramsType(inQuery, depth + 1)};`);
  if (op.requestBody) {
    lines.push(`${pad(depth + 1)}body${op.requestBody.required === false ? '?' : ''}: ${typeOf(contentSchema(op.requestBody.content), depth + 1)};`);
  }
  const responses = Object.entries(op.responses ?? {}).map(([status, res]) => {
    const schema = contentSchema((res as Json).content);
    return `${pad(depth + 2)}${status}: ${schema ? typeOf(schema, depth + 2) : 'null'};`;
  });
  lines.push(`${pad(depth + 1)}responses: {\n${responses.join('\n')}\n${pad(depth + 1)}};`);
  return `{\n${lines.join('\n')}\n${pad(depth)}}`;
}

/** The whole schema.d.ts text for a document. */
export function render(doc: Json): string {
  const out: string[] = [
    '// Generated by renderer/src/api/generate.ts from the OpenAPI document of core/http. Do not edit:',
    '// run `npx tsx renderer/src/api/generate.ts` after changing a route.',
    '',
    'export interface paths {',
  ];
  for (const path of Object.keys(doc.paths ?? {}).sort()) {
    const item = doc.paths[path];
    const ops = METHODS.filter((m) => item[m]);
    out.push(`  ${JSON.stringify(path)}: {`);
    for (const method of ops) out.push(`    ${method}: ${operationType(item[method], 2)};`);
    out.push('  };');
  }
  out.push('}', '', 'export interface components {', '  schemas: {');
  const schemas = doc.components?.schemas ?? {};
  for (const name of Object.keys(schemas).sort()) out.push(`    ${key(name)}: ${typeOf(schemas[name], 2)};`);
  out.push('  };', '}', '');
  return out.join('\n');
}

export async function generate(): Promise<string> {
  return render(await buildDocument());
}

if (require.main === module) {
  generate().then((text) => {
    writeFileSync(SCHEMA_FILE, text);
    console.log(`wrote ${SCHEMA_FILE}`);
  });
}
