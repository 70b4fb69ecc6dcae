import { describe, expect, it } from 'vitest';
import { chooseRuntime, meetsMinimum } from '../../core/cli/node-runtime.cjs';

const DRIVER = { name: 'better-sqlite3', version: '13.2.0', node: '>=22' };
const PINNED = { path: '/repo/node_modules/node/bin/node', version: '24.21.0' };

describe('which Node runs ardesk', () => {
  it('compares a Node version with a ">=" requirement part by part', () => {
    expect(meetsMinimum('v22.0.0', '>=22')).toBe(true);
    expect(meetsMinimum('v20.20.2', '>=22')).toBe(false);
    expect(meetsMinimum('v22.11.9', '>=22.12')).toBe(false);
    expect(meetsMinimum('v22.12.0', '>= 22.12')).toBe(true);
    expect(meetsMinimum('v100.0.0', '>=22.12.1')).toBe(true);
    expect(meetsMinimum('v22.12.0', '>=22.12.1')).toBe(false);
  });

  it('leaves requirements of another form to the driver itself', () => {
    expect(meetsMinimum('v18.0.0', '^22 || ^24')).toBe(true);
    expect(meetsMinimum('v18.0.0', '')).toBe(true);
  });

  it('runs in this Node when the driver loads in it, else in the pinned Node, else says what to do', () => {
    expect(chooseRuntime('v24.21.0', DRIVER, PINNED)).toEqual({ kind: 'here' });
    expect(chooseRuntime('v20.20.2', DRIVER, PINNED)).toEqual({ kind: 'pinned', node: PINNED.path });
    const none = chooseRuntime('v20.20.2', DRIVER, null, '/repo');
    expect(none.kind).toBe('none');
    expect(none.message).toBe(
      "ardesk: Node v20.20.2 cannot load the SQLite driver (better-sqlite3 13.2.0 needs Node >=22) and the project's own Node is not installed; run `npm ci` in /repo (it installs Node 24 into node_modules), then `npx ardesk` or `npm start`",
    );
    expect(chooseRuntime('v20.20.2', DRIVER, { path: '/old/node', version: '21.0.0' }, '/repo').kind).toBe('none');
    expect(chooseRuntime('v24.21.0', null, PINNED, '/repo')).toEqual({ kind: 'none', message: 'ardesk: the SQLite driver (better-sqlite3) is not installed; run `npm ci` in /repo' });
  });
});
