import { DomainError } from '../errors';
import { UsageError } from './options';
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
};

export async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    console.log(helpText());
    return name ? 0 : 1;
  }
  const load = COMMANDS[name];
  if (!load) {
    console.error(`ardesk: unknown command ${name}\n\n${helpText()}`);
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
