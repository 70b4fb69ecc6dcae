// Which Node can run ardesk. Plain CommonJS that any Node parses: it runs before tsx and before
// the SQLite driver, whose prebuilt binary crashes (exit 139, no message) in a Node it was not
// built for.
const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

/** The repository root, from core/cli. */
const PACKAGE_ROOT = join(__dirname, '..', '..');

/** [major, minor, patch] of "v24.1.0", "22.12" or "22". */
function versionParts(version) {
  const parts = String(version).replace(/^v/, '').split('.').map((p) => Number.parseInt(p, 10) || 0);
  return [parts[0] || 0, parts[1] || 0, parts[2] || 0];
}

/**
 * Whether a Node version meets a ">=X[.Y[.Z]]" requirement (the only form the driver states).
 * Any other form is not ours to judge: true, and the driver's own loader decides.
 */
function meetsMinimum(version, requirement) {
  const match = /^\s*>=\s*v?(\d+(?:\.\d+){0,2})\s*$/.exec(requirement || '');
  if (!match) return true;
  const have = versionParts(version);
  const need = versionParts(match[1]);
  for (let i = 0; i < 3; i++) {
    if (have[i] !== need[i]) return have[i] > need[i];
  }
  return true;
}

/** The SQLite driver's package (name, version, the Node it needs), or null when it is not installed. */
function sqliteDriver(root = PACKAGE_ROOT) {
  const file = join(root, 'node_modules', 'better-sqlite3', 'package.json');
  if (!existsSync(file)) return null;
  const pkg = JSON.parse(readFileSync(file, 'utf8'));
  return { name: pkg.name, version: pkg.version, node: (pkg.engines && pkg.engines.node) || '' };
}

/** The Node that `npm ci` installs as the `node` devDependency: { path, version }, or null when absent. */
function pinnedNode(root = PACKAGE_ROOT) {
  const dir = join(root, 'node_modules', 'node');
  const path = [join(dir, 'bin', 'node'), join(dir, 'bin', 'node.exe')].find((p) => existsSync(p));
  if (!path) return null;
  return { path, version: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version };
}

/**
 * How to run ardesk from a Node at `version`: 'here' when the driver loads in it, 'pinned' (with the
 * pinned Node) when it does not but the project's Node does, or 'none' with the one-line fix.
 */
function chooseRuntime(version, driver, pinned, root = PACKAGE_ROOT) {
  if (!driver) {
    return { kind: 'none', message: `ardesk: the SQLite driver (better-sqlite3) is not installed; run \`npm ci\` in ${root}` };
  }
  if (meetsMinimum(version, driver.node)) return { kind: 'here' };
  if (pinned && meetsMinimum(pinned.version, driver.node)) return { kind: 'pinned', node: pinned.path };
  return {
    kind: 'none',
    message:
      `ardesk: Node ${version} cannot load the SQLite driver (${driver.name} ${driver.version} needs Node ${driver.node.trim()}) ` +
      `and the project's own Node is not installed; run \`npm ci\` in ${root} (it installs Node 24 into node_modules), then \`npx ardesk\` or \`npm start\``,
  };
}

module.exports = { PACKAGE_ROOT, meetsMinimum, sqliteDriver, pinnedNode, chooseRuntime };
