import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generate, SCHEMA_FILE, typeOf } from '../../renderer/src/api/generate';

describe("the renderer's generated API types", () => {
  it('match the OpenAPI document of the current routes (run `npx tsx renderer/src/api/generate.ts` after changing a route)', async () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8') === (await generate()), 'renderer/src/api/schema.d.ts is stale: run `npx tsx renderer/src/api/generate.ts`').toBe(true);
  });

  it('turn JSON Schema into TypeScript types', () => {
    expect(typeOf({ type: 'string', enum: ['a', 'b'] })).toBe('"a" | "b"');
    expect(typeOf({ type: ['string', 'null'] })).toBe('string | null');
    expect(typeOf({ type: 'array', items: { anyOf: [{ type: 'number' }, { type: 'boolean' }] } })).toBe('(number | boolean)[]');
    expect(typeOf({ $ref: '#/components/schemas/Invoice' })).toBe('components["schemas"]["Invoice"]');
    expect(typeOf({ type: 'object', properties: { id: { type: 'string' }, note: { type: 'string', nullable: true } }, required: ['id'] })).toBe('{\n  id: string;\n  note?: string | null;\n}');
    expect(typeOf({ type: 'object', additionalProperties: { type: 'integer' } })).toBe('{\n  [key: string]: number;\n}');
    expect(typeOf({})).toBe('unknown');
  });
});
