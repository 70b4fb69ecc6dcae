import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../core/http/app';
import { type TestEngine, testEngine } from '../support/engine';

describe('the OpenAPI document', () => {
  let engine: TestEngine;
  let doc: any;

  beforeAll(async () => {
    engine = await testEngine();
    const res = await createApp(engine).request('/api/openapi.json');
    expect(res.status).toBe(200);
    doc = await res.json();
  });
  afterAll(() => engine.dispose());

  it('validates against the OpenAPI 3.1 schema', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('gives every operation a problem+json error response', () => {
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        if (path === '/api/v1/setup/') continue;
        const errors = Object.entries<any>(op.responses).filter(([status]) => Number(status) >= 400);
        expect(errors.length, `${method.toUpperCase()} ${path}`).toBeGreaterThan(0);
        for (const [, response] of errors) expect(response.content['application/problem+json']).toBeDefined();
      }
    }
  });
});
