import { DomainError } from '../errors';
import { BACKTEST_HELP, backtestCommand } from './commands/backtest';
import { BENCH_HELP, benchCommand } from './commands/bench';
import { backupCommand, migrateCommand } from './commands/maintenance';
import { desktopCommand } from './commands/desktop';
import { IMPORT_HELP, importCommand } from './commands/import';
import { INSIGHTS_HELP, insightsCommand } from './commands/insights';
import { SEED_HELP, seedCommand } from './commands/seed';
import { SERVE_HELP, serveCommand } from './commands/serve';
import { CONNECT_HELP, connectCommand, SYNC_HELP, syncCommand } from './commands/sync';
import { USER_HELP, userCommand } from './commands/user';
import { UsageError } from './options';

const HELP = `ardesk: local-first accounts-receivable collection desk

Usage:
  ${SERVE_HELP}
  ${CONNECT_HELP}
  ${SYNC_HELP}
  ${SEED_HELP}
  ${USER_HELP}
  ${IMPORT_HELP}
  ${BACKTEST_HELP}
  ${INSIGHTS_HELP}
  ${BENCH_HELP}   (npm run bench)
  ardesk migrate [--db FILE | --data-dir DIR]
  ardesk backup [--db FILE | --data-dir DIR] [--out FILE]
  ardesk desktop          (npm start: the Electron window, or the headless server where Electron cannot run)
`;

const COMMANDS: Record<string, (args: string[]) => Promise<number>> = {
  serve: serveCommand,
  connect: connectCommand,
  sync: syncCommand,
  seed: seedCommand,
  user: userCommand,
  import: importCommand,
  backtest: backtestCommand,
  insights: insightsCommand,
  migrate: migrateCommand,
  backup: backupCommand,
  desktop: desktopCommand,
  bench: benchCommand,
};

export async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    console.log(HELP);
    return name ? 0 : 1;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`ardesk: unknown command ${name}\n\n${HELP}`);
    return 2;
  }
  try {
    return await command(args);
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
