#!/usr/bin/env node
// `npm test`'s pretest (and .ci/run's first step): the tests drive real outside programs, Debian's
// Chromium (browser tests), Dovecot (IMAP, the reply tests) and poppler-utils' pdftotext (PDF
// documents). When one is missing this installs it (as root with apt-get, saying so in one line)
// or stops before any test runs with the one command to run.
const { existsSync } = require('node:fs');
const { execFileSync } = require('node:child_process');

/** Each outside part: the Debian package, the files that show it is there, what needs it. */
const PARTS = [
  { pkg: 'chromium', files: ['/usr/bin/chromium'], why: 'browser tests' },
  { pkg: 'dovecot-imapd', files: ['/usr/sbin/dovecot', '/usr/lib/dovecot/imap'], why: 'reply tests (IMAP)' },
  { pkg: 'poppler-utils', files: ['/usr/bin/pdftotext'], why: 'document tests (PDF text)' },
];

/** The parts with a file missing. */
function missingParts(exists = existsSync) {
  return PARTS.filter((p) => !p.files.every((f) => exists(f)));
}

/**
 * What to do about the missing parts: nothing, install them (root with apt-get), or stop with the
 * command that installs them.
 */
function plan(missing, { root, apt }) {
  if (!missing.length) return { action: 'none' };
  const pkgs = missing.map((p) => p.pkg).join(' ');
  const needs = missing.map((p) => `${p.pkg} (${p.why})`).join(', ');
  if (root && apt) return { action: 'install', pkgs, message: `pretest: installing ${needs} with apt-get` };
  return {
    action: 'stop',
    message: `npm test needs ${needs}; install ${missing.length > 1 ? 'them' : 'it'}, then run npm test again: sudo apt-get install -y ${pkgs}`,
  };
}

function onPath(command) {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function main() {
  const todo = plan(missingParts(), { root: process.getuid?.() === 0, apt: onPath('apt-get') });
  if (todo.action === 'none') return 0;
  console.error(todo.message);
  if (todo.action === 'stop') return 1;
  try {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('sh', ['-c', `apt-get update -qq && apt-get install -y -qq ${todo.pkgs} >/dev/null`], { stdio: ['ignore', 'ignore', 'inherit'], env });
  } catch {
    console.error(`pretest: apt-get could not install ${todo.pkgs}; install them, then run npm test again`);
    return 1;
  }
  const still = missingParts();
  if (still.length) {
    console.error(`pretest: still missing after apt-get: ${still.map((p) => p.pkg).join(' ')}`);
    return 1;
  }
  return 0;
}

if (require.main === module) process.exitCode = main();

module.exports = { PARTS, missingParts, plan };
