import { DomainError } from '../errors';
import { UsageError } from './options';

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
  import: () => require('./commands/import') as typeof import('./commands/import'),
  backtest: () => require('./commands/backtest') as typeof import('./commands/backtest'),
  insights: () => require('./commands/insights') as typeof import('./commands/insights'),
  maintenance: () => require('./commands/maintenance') as typeof import('./commands/maintenance'),
  desktop: () => require('./commands/desktop') as typeof import('./commands/desktop'),
  bench: () => require('./commands/bench') as typeof import('./commands/bench'),
};

const COMMANDS: Record<string, () => Command> = {
  serve: () => modules.serve().serveCommand,
  connect: () => modules.sync().connectCommand,
  sync: () => modules.sync().syncCommand,
  seed: () => modules.seed().seedCommand,
  user: () => modules.user().userCommand,
  import: () => modules.import().importCommand,
  backtest: () => modules.backtest().backtestCommand,
  insights: () => modules.insights().insightsCommand,
  migrate: () => modules.maintenance().migrateCommand,
  backup: () => modules.maintenance().backupCommand,
  desktop: () => modules.desktop().desktopCommand,
  bench: () => modules.bench().benchCommand,
};

/** The usage of every command, read from the commands themselves (so loading them all). */
function help(): string {
  const m = modules;
  return `ardesk: local-first accounts-receivable collection desk

Usage:
  ${m.serve().SERVE_HELP}
  ${m.sync().CONNECT_HELP}
  ${m.sync().SYNC_HELP}
  ${m.seed().SEED_HELP}
  ${m.user().USER_HELP}
  ${m.import().IMPORT_HELP}
  ${m.backtest().BACKTEST_HELP}
  ${m.insights().INSIGHTS_HELP}
  ${m.bench().BENCH_HELP}   (npm run bench)
  ardesk migrate [--db FILE | --data-dir DIR]
  ardesk backup [--db FILE | --data-dir DIR] [--out FILE [--force]]
  ardesk desktop          (npm start: the Electron window, or the headless server where Electron cannot run)
`;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    console.log(help());
    return name ? 0 : 1;
  }
  const load = COMMANDS[name];
  if (!load) {
    console.error(`ardesk: unknown command ${name}\n\n${help()}`);
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
      console.error(`ardesk ${name}: ${err.message}${err.errors ? ` ${JSON.stringify(err.errors)}` : ''}`);
      return 1;
    }
    throw err;
  }
}
