import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { appBuildState } from '../../core/cli/build';

describe('whether npm start must build first', () => {
  const root = mkdtempSync(join(tmpdir(), 'ardesk-build-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** Writes a file with the given time; its folders keep an old time (a folder's own time counts too: a file removed from it). */
  const write = (file: string, at: number) => {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), 'x');
    utimesSync(join(root, file), at, at);
    for (let dir = dirname(file); dir !== '.'; dir = dirname(dir)) utimesSync(join(root, dir), 500, 500);
  };
  const BUILD = ['out/main/index.js', 'out/preload/index.js', 'out/renderer/index.html'];

  it('is missing until every part of the build exists', () => {
    write('core/engine.ts', 1_000);
    write('renderer/src/main.tsx', 1_000);
    expect(appBuildState(root)).toBe('missing');
    write(BUILD[0], 2_000);
    write(BUILD[1], 2_000);
    expect(appBuildState(root)).toBe('missing');
    write(BUILD[2], 2_000);
    expect(appBuildState(root)).toBe('current');
  });

  it('is stale when a source of the core, the shell or the renderer is newer than the oldest output', () => {
    write('renderer/src/desk/grid.tsx', 3_000);
    expect(appBuildState(root)).toBe('stale');
    for (const file of BUILD) write(file, 4_000);
    expect(appBuildState(root)).toBe('current');
    write('electron/main.ts', 4_500);
    expect(appBuildState(root)).toBe('stale');
    write(BUILD[2], 5_000);
    expect(appBuildState(root)).toBe('stale');
  });

  it('is stale when a source was removed since (its folder changed)', () => {
    for (const file of BUILD) write(file, 6_000);
    expect(appBuildState(root)).toBe('current');
    utimesSync(join(root, 'core'), 7_000, 7_000);
    expect(appBuildState(root)).toBe('stale');
  });
});
