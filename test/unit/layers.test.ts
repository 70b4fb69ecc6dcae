import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importCircles, layerBreaches, readImportGraph, readLayers } from '../support/imports';

const repo = resolve(import.meta.dirname, '../..');

describe('the layers of core/README.md', () => {
  const graph = readImportGraph(repo, ['core', 'renderer/src', 'electron']);
  const layers = readLayers(readFileSync(join(repo, 'core/README.md'), 'utf8'));

  it('reads the whole project', () => {
    expect(graph.size).toBeGreaterThan(300);
    expect(layers.get('db')).toBeLessThan(layers.get('invoices')!);
    expect(layers.get('http')).toBeLessThan(layers.get('runtime')!);
  });

  it('has no import circle', () => {
    expect(importCircles(graph)).toEqual([]);
  });

  it('has no import in core against the layers', () => {
    expect(layerBreaches(graph, layers).map((b) => `${b.from} -> ${b.to}: ${b.reason}`)).toEqual([]);
  });
});

describe('the import reader', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ardesk-layers-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };

  it('finds a circle and an upward import, type-only and dynamic ones included', () => {
    write('core/db/schema.ts', "import type { Rule } from '../invoices/rules';\nexport type Row = Rule;\n");
    write('core/invoices/rules.ts', "import type { Row } from '../db/schema';\nexport type Rule = Row;\n");
    write('core/invoices/list.ts', "export const load = () => import('../db/schema');\n");
    write('core/engine.ts', "import './db/schema';\n");
    const graph = readImportGraph(dir, ['core']);
    expect(importCircles(graph)).toEqual([['core/db/schema.ts', 'core/invoices/rules.ts']]);
    const layers = readLayers('| 3 | `db` | x |\n| 4 | `engine` | x |\n| 14 | `invoices` | x |\n');
    expect(layerBreaches(graph, layers)).toEqual([
      { from: 'core/db/schema.ts', to: 'core/invoices/rules.ts', reason: 'db (layer 3) imports invoices (layer 14)' },
    ]);
  });
});
