/**
 * Reads the relative imports between the project's TypeScript files and checks them against the
 * layers stated in core/README.md: no import circle anywhere, and in core/ no import from a module
 * to one of the same or a higher layer. Used by test/unit/layers.test.ts.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';

export type ImportGraph = Map<string, Set<string>>;

const SOURCE = /\.(ts|tsx|mts|cts)$/;
// `import ... from '...'`, `export ... from '...'`, `import '...'` and `import('...')`; type-only
// imports count too: a type that has to come from above is the same upward dependency.
const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^'";]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;(=])import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|[\s;])import\s+['"]([^'"]+)['"]/gm;

function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...sourceFiles(path));
    else if (SOURCE.test(name) && !name.endsWith('.d.ts')) found.push(path);
  }
  return found;
}

function resolveImport(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = normalize(join(dirname(from), specifier)).replace(/\.(js|mjs|cjs)$/, '');
  for (const candidate of [`${base}.ts`, `${base}.tsx`, `${base}.mts`, base, join(base, 'index.ts'), join(base, 'index.tsx')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** Every relative import between source files under `roots` (paths relative to `repo`, with `/`). */
export function readImportGraph(repo: string, roots: string[]): ImportGraph {
  const graph: ImportGraph = new Map();
  const key = (path: string) => relative(repo, path).split(sep).join('/');
  for (const root of roots) {
    const dir = join(repo, root);
    if (!existsSync(dir)) continue;
    for (const file of sourceFiles(dir)) {
      const targets = new Set<string>();
      for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
        const target = resolveImport(file, match[1] ?? match[2] ?? match[3]);
        if (target && target !== file) targets.add(key(target));
      }
      graph.set(key(file), targets);
    }
  }
  return graph;
}

/** The import circles: each strongly connected set of two or more files, sorted (Tarjan). */
export function importCircles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const circles: string[][] = [];
  let next = 0;
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const members: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        members.push(member);
      } while (member !== node);
      if (members.length > 1) circles.push(members.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return circles.sort((a, b) => a[0].localeCompare(b[0]));
}

/** The module a core file belongs to: `core/db/schema.ts` -> `db`, `core/engine.ts` -> `engine`. */
export function coreModule(path: string): string | null {
  const parts = path.split('/');
  if (parts[0] !== 'core') return null;
  return parts.length > 2 ? parts[1] : parts[1].replace(SOURCE, '');
}

/**
 * The layer of each core module, read from the table in core/README.md whose rows are
 * `| rank | `module`, `module` | what they are |`.
 */
export function readLayers(readme: string): Map<string, number> {
  const layers = new Map<string, number>();
  for (const line of readme.split('\n')) {
    const row = /^\|\s*(\d+)\s*\|([^|]+)\|/.exec(line);
    if (!row) continue;
    for (const name of row[2].matchAll(/`([^`]+)`/g)) layers.set(name[1], Number(row[1]));
  }
  return layers;
}

export interface LayerBreach {
  from: string;
  to: string;
  reason: string;
}

/** Imports inside core/ that do not point to a lower layer, or touch a module the table omits. */
export function layerBreaches(graph: ImportGraph, layers: Map<string, number>): LayerBreach[] {
  const breaches: LayerBreach[] = [];
  for (const [from, targets] of graph) {
    const source = coreModule(from);
    if (source === null) continue;
    for (const to of targets) {
      const target = coreModule(to);
      if (target === null) {
        breaches.push({ from, to, reason: 'core imports from outside core' });
        continue;
      }
      if (target === source) continue;
      const sourceRank = layers.get(source);
      const targetRank = layers.get(target);
      if (sourceRank === undefined || targetRank === undefined) {
        breaches.push({ from, to, reason: `${sourceRank === undefined ? source : target} has no layer in core/README.md` });
      } else if (targetRank >= sourceRank) {
        breaches.push({ from, to, reason: `${source} (layer ${sourceRank}) imports ${target} (layer ${targetRank})` });
      }
    }
  }
  return breaches.sort((a, b) => `${a.from} ${a.to}`.localeCompare(`${b.from} ${b.to}`));
}
