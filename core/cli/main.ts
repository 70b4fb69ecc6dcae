import { DomainError, type FieldErrors } from '../errors';
import { didYouMean } from './closest';
import { holdersOf } from './holders';
import { openedDatabase, UsageError } from './options';
import { helpText } from './usage.cjs';

type Command = (args: string[]) => Promise<number>;

/**
 * The command modules, each required when first used: most pull in the whole engine and server,
 * which take seconds to compile, and a seed or an import should not wait for the HTTP layer. (The
 * CLI runs as CommonJS through tsx, see run.cjs, so require is the lazy import here.)
 */
const modules = {
  serve: () => require('./commands/serve') as typeof import('./commands/serve'),
  sync: () => require('./commands/sync') as typeof import('./commands/sync'),
  seed: () => require('./commands/seed') as typeof import('./commands/seed'),
  user: () => require('./commands/user') as typeof import('./commands/user'),
  company: () => require('./commands/company') as typeof import('./commands/company'),
  import: () => require('./commands/import') as typeof import('./commands/import'),
  backtest: () => require('./commands/backtest') as typeof import('./commands/backtest'),
  insights: () => require('./commands/insights') as typeof import('./commands/insights'),
  maintenance: () => require('./commands/maintenance') as typeof import('./commands/maintenance'),
  desktop: () => require('./commands/desktop') as typeof import('./commands/desktop'),
  bench: () => require('./commands/bench') as typeof import('./commands/bench'),
  bank: () => require('./commands/bank') as typeof import('./commands/bank'),
};

const COMMANDS: Record<string, () => Command> = {
  serve: () => modules.serve().serveCommand,
  connect: () => modules.sync().connectCommand,
  sync: () => modules.sync().syncCommand,
  seed: () => modules.seed().seedCommand,
  user: () => modules.user().userCommand,
  member: () => modules.company().memberCommand,
  company: () => modules.company().companyCommand,
  import: () => modules.import().importCommand,
  backtest: () => modules.backtest().backtestCommand,
  insights: () => modules.insights().insightsCommand,
  migrate: () => modules.maintenance().migrateCommand,
  backup: () => modules.maintenance().backupCommand,
  desktop: () => modules.desktop().desktopCommand,
  bench: () => modules.bench().benchCommand,
  bank: () => modules.bank().bankCommand,
};

export async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    console.log(helpText());
    return name ? 0 : 1;
  }
  const load = COMMANDS[name];
  if (!load) {
    console.error(`ardesk: unknown command ${name}${didYouMean(name, Object.keys(COMMANDS))}\n\n${helpText()}`);
    return 2;
  }
  try {
    return await load()(args);
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`ardesk ${name}: ${err.message}`);
      return 2;
    }
    if (err instanceof DomainError) {
      console.error(`ardesk ${name}: ${err.message}${err.errors ? `: ${inWords(err.errors)}` : ''}`);
      // The input was refused (invalid, taken, unknown): a usage error like any other.
      return err.status < 500 ? 2 : 1;
    }
    if (isLocked(err)) {
      console.error(`ardesk ${name}: ${lockedWords(openedDatabase)}`);
      return 1;
    }
    throw err;
  }
}

/** Field errors as a sentence: "password: Use at least 4 characters". */
function inWords(errors: FieldErrors): string {
  return Object.entries(errors)
    .map(([field, messages]) => `${field}: ${messages.join('; ')}`)
    .join('; ');
}

function isLocked(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === 'SQLITE_BUSY' || e?.code === 'SQLITE_LOCKED' || /database is locked/.test(e?.message ?? '');
}

/** "database is locked" with who holds it, as far as this machine tells. */
function lockedWords(file: string | null): string {
  if (!file) return 'the database is locked by another process';
  const holders = holdersOf(file);
  if (!holders.length) return `the database ${file} is locked by another process; stop it (or wait for it) and try again`;
  const who = holders.map((h) => `${h.command} (pid ${h.pid})`).join(', ');
  return `the database ${file} is in use by ${who}; stop it first, or work through its API`;
}
