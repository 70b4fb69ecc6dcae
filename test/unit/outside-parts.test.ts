import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SCRIPT = resolve(import.meta.dirname, '../../.ci/outside-parts.cjs');
const { PARTS, missingParts, plan } = createRequire(import.meta.url)(SCRIPT) as {
  PARTS: Array<{ pkg: string; files: string[] }>;
  missingParts: (exists: (f: string) => boolean) => Array<{ pkg: string }>;
  plan: (missing: Array<{ pkg: string }>, env: { root: boolean; apt: boolean }) => { action: string; pkgs?: string; message?: string };
};

describe('pretest: the outside parts the tests drive', () => {
  it('names Chromium, Dovecot and pdftotext, and finds a part missing when any of its files is', () => {
    expect(PARTS.map((p) => p.pkg)).toEqual(['chromium', 'dovecot-imapd', 'poppler-utils']);
    expect(missingParts(() => true)).toEqual([]);
    const noImap = missingParts((f) => f !== '/usr/lib/dovecot/imap');
    expect(noImap.map((p) => p.pkg)).toEqual(['dovecot-imapd']);
  });

  it('installs as root with apt-get, saying what in one line; otherwise stops with the one command to run', () => {
    const missing = missingParts((f) => !f.includes('dovecot') && !f.includes('pdftotext'));
    expect(plan([], { root: false, apt: false })).toEqual({ action: 'none' });
    const install = plan(missing, { root: true, apt: true });
    expect(install).toMatchObject({ action: 'install', pkgs: 'dovecot-imapd poppler-utils' });
    expect(install.message).toBe('pretest: installing dovecot-imapd (reply tests (IMAP)), poppler-utils (document tests (PDF text)) with apt-get');
    for (const env of [{ root: false, apt: true }, { root: true, apt: false }]) {
      const stop = plan(missing, env);
      expect(stop.action).toBe('stop');
      expect(stop.message).not.toContain('\n');
      expect(stop.message).toMatch(/: sudo apt-get install -y dovecot-imapd poppler-utils$/);
    }
  });

  it('on this machine (every part installed) passes silently, so npm test goes on', () => {
    expect(execFileSync(process.execPath, [SCRIPT], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })).toBe('');
  });
});
