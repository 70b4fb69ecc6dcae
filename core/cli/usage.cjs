// Every command's usage, in plain CommonJS with no imports: bin.cjs answers `ardesk --help` from
// here before loading tsx, the driver or any command (under a second), and the commands read
// their own line from here too.
const USAGE = {
  serve:
    'ardesk serve [--port N] [--host H] [--db FILE | --data-dir DIR] [--demo] [--token-days N] [--trust-proxy] [--team [--tls-cert F --tls-key F] [--insecure-http] [--mail-ports LIST|any] [--mail-hosts LIST]] [--sync-interval SECONDS] [--reply-minutes N] [--portal-url URL] [--webhook-hosts LIST]',
  connect: 'ardesk connect --db FILE --server URL --username U --password P [--company C ...] [--resync]',
  sync: 'ardesk sync --db FILE [--json] [--server URL]   (--server: move this desktop to the team server\'s new address)',
  seed: 'ardesk seed (--db FILE | --data-dir DIR | --demo) [--demo] [--invoices N] [--customers N (default: about one per 20 invoices)] [--seed S]',
  user: 'ardesk user add --username U --password P [--name "Full Name"] [--company NAME_OR_ID [--create-company]] [--role owner|manager|collector|viewer] [--db FILE | --data-dir DIR]',
  member: 'ardesk member add --username U --company NAME_OR_ID [--role owner|manager|collector|viewer] [--db FILE | --data-dir DIR]',
  company: 'ardesk company list [--json] [--db FILE | --data-dir DIR]',
  companyCreate:
    'ardesk company create --name N --owner USERNAME [--currency USD] [--time-zone America/New_York] [--country US] [--legal-name N] [--address A] [--tax-id T] [--json] [--db FILE | --data-dir DIR]',
  memberInvite: 'ardesk member invite --company NAME_OR_ID --username U [--name "Full Name"] [--email E] [--role owner|manager|collector|viewer] [--json] [--db FILE | --data-dir DIR]   (prints a one-time setup code)',
  import:
    'ardesk import --company NAME_OR_ID --file F.csv|F.xlsx [--mapping FILE.json | --preset NAME (default: recognised from the columns)] [--entity customers|invoices|payments|ar-rows] [--dry-run] [--sheet NAME] [--format csv|xlsx] [--json] [--db FILE | --data-dir DIR]',
  bank: 'ardesk bank import --company NAME_OR_ID --file STATEMENT (camt.053/054, MT940, OFX, or a CSV/XLSX export) [--mapping JSON|@FILE (CSV/XLSX; kept for the next file)] [--dry-run] [--json] [--db FILE | --data-dir DIR]',
  backtest: 'ardesk backtest --company NAME_OR_ID [--json] [--db FILE | --data-dir DIR]',
  insights: 'ardesk insights refresh --company NAME_OR_ID [--json] [--db FILE | --data-dir DIR]',
  bench: 'ardesk bench [--invoices N] [--customers N] [--samples N] [--warmup N] [--db FILE] [--keep]   (npm run bench)',
  migrate: 'ardesk migrate [--db FILE | --data-dir DIR]',
  backup: 'ardesk backup [--db FILE | --data-dir DIR] [--out FILE [--force]]',
  desktop: 'ardesk desktop [--demo]   (npm start: the Electron window, or the headless server where Electron cannot run)',
};

function helpText() {
  return `ardesk: local-first accounts-receivable collection desk

Usage:
${Object.values(USAGE)
  .map((line) => `  ${line}`)
  .join('\n')}

Without --db or --data-dir a command uses the per-user data folder (serve and desktop with --demo: a separate demo folder).
`;
}

module.exports = { USAGE, helpText };
