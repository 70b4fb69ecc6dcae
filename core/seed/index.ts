/**
 * The deterministic data generator: `ardesk seed`, `ardesk serve --demo`, the first-launch
 * "open the demo workspace", tests and benchmarks all come through here.
 *
 * Same seed and same clock date give the same rows, ids included: ids are UUIDv7-shaped values
 * drawn from the seed, timestamps are derived from dates relative to the clock's today. Only
 * password hashes and the encrypted SMTP password differ between runs (random salt and IV).
 *
 * Seeding is not a user command: it writes straight through one transaction (all or nothing)
 * and records a single `seed` entry per company in `changes`, not one per row.
 */
import { hashPassword } from '../auth/passwords';
import { fixedClock, timestamp, today } from '../clock';
import { addDays } from '../dates';
import { type Engine, inWriteTransaction, runCommand, systemActor } from '../engine';
import { refreshIntelligence } from '../intelligence/runner';
import { followPromises } from '../promises/followup';
import { ConflictError, ValidationError } from '../errors';
import { Calendar } from './calendar';
import { type LedgerJob, runLedgerJob, runLedgerJobInWorker } from './ledger-job';
import type { LedgerResult } from './ledger';
import { CATERING_CUSTOMERS, SUPPLY_CUSTOMERS } from './names';
import { writePastPromises } from './past-promises';
import { createRng, type IdFactory, idFactory } from './random';
import { type StoryCounts, writeStories } from './stories';
import { type CompanyFrame, insertCompany, insertConnection, insertLabels, insertMembership, insertTeam, insertUser, type SeedContext } from './workspace';
import { bulkLoad, chunkWriter } from './writer';

/** The demo's first company, unless told otherwise. */
const DEMO_SIZES = { invoices: 360, customers: 48 };
const SECOND_COMPANY = { invoices: 40, customers: 8 };
/**
 * Up to this many invoices a demo company's insights and proposals are computed while seeding (a
 * few seconds); a larger generated ledger leaves them to `ardesk insights refresh` or the running
 * server's daily refresh (minutes at a million invoices), so seeding stays a seeding.
 */
const ENGINE_IN_SEED_MAX_INVOICES = 20_000;
/** From this many invoices on, the ledger is loaded with triggers and indexes set aside. */
const BULK_THRESHOLD = 5_000;
const MAX_INVOICES = 20_000_000;
const MAX_CUSTOMERS = 2_000_000;
const SPAN_DAYS = 450;
const DAY_MS = 86_400_000;

export interface SeedOptions {
  /** The demo workspace (users, two companies, stories); the database must have no users yet. */
  demo: boolean;
  /** Invoices of the (first) company. */
  invoices?: number;
  customers?: number;
  seed?: number;
  /** Force the bulk path on or off (default: on from BULK_THRESHOLD invoices). */
  bulk?: boolean;
  /**
   * The caller is the database's only user while seeding (the CLI): write with a rollback journal,
   * without fsync and without foreign-key checks (the generator's rows are consistent by
   * construction), then restore the connection's settings. A crash mid-seed can then leave a
   * damaged file, which for a freshly generated database is only a rerun.
   */
  exclusive?: boolean;
  /**
   * Generate a bulk-loaded ledger in a worker thread while this one writes it (the CLI: the worker
   * loads the TypeScript sources through tsx, which only the CLI's runtime has).
   */
  worker?: boolean;
  /** Told as a large ledger's invoices are written (a hundredth at a time) and its indexes rebuilt. */
  onProgress?: (step: SeedProgress) => void;
}

export interface SeedProgress {
  phase: 'invoices' | 'indexes';
  done: number;
  total: number;
}

export interface SeededCompany {
  id: string;
  name: string;
  ledger: LedgerResult['counts'];
  stories: StoryCounts | null;
  /** Whether the seed ran the intelligence engine over this company. */
  insights: boolean;
}

export interface SeedReport {
  seed: number;
  companies: SeededCompany[];
  users: string[];
}

function validateSeedOptions(options: SeedOptions): Required<Pick<SeedOptions, 'invoices' | 'customers' | 'seed'>> {
  const errors: Record<string, string[]> = {};
  const whole = (name: 'invoices' | 'customers' | 'seed', value: number | undefined, fallback: number, min: number, max: number) => {
    const v = value ?? fallback;
    if (!Number.isSafeInteger(v) || v < min || v > max) errors[name] = [`Use a whole number from ${min} to ${max}`];
    return v;
  };
  const invoices = whole('invoices', options.invoices, DEMO_SIZES.invoices, 0, MAX_INVOICES);
  const customers = whole('customers', options.customers, DEMO_SIZES.customers, 1, MAX_CUSTOMERS);
  const seed = whole('seed', options.seed, 1, 0, 0xffffffff);
  if (Object.keys(errors).length) throw new ValidationError('The seed options are invalid', errors);
  // The demo's stories need its hand-written customers and enough invoices to cover every status.
  if (options.demo) return { invoices: Math.max(invoices, DEMO_SIZES.invoices), customers: Math.max(customers, DEMO_SIZES.customers), seed };
  return { invoices, customers, seed };
}

/** `--demo` and the first-launch button: the demo workspace at its default size. */
export function seedDemo(engine: Engine): Promise<SeedReport> {
  return seedDatabase(engine, { demo: true });
}

export async function seedDatabase(engine: Engine, options: SeedOptions): Promise<SeedReport> {
  const { invoices, customers, seed } = validateSeedOptions(options);
  // Checked again inside the transaction; this early answer spares the password hashing.
  if (options.demo && (await engine.db.selectFrom('users').select('id').limit(1).executeTakeFirst())) throw alreadyInitialized();
  const hashes = options.demo ? await Promise.all([hashPassword('demo'), hashPassword('outsider')]) : [];
  const day0 = today(engine.clock);
  const cal = new Calendar(day0);
  // Ids start well before the oldest generated row, so ids created later by the app sort after them.
  const idBase = Date.parse(`${day0}T00:00:00Z`) - (SPAN_DAYS + 800) * DAY_MS;
  const ids = idFactory(seed, idBase);
  const sqlite = engine.database.sqlite;
  const bulk = (n: number) => options.bulk ?? n >= BULK_THRESHOLD;

  const restore = options.exclusive ? exclusiveSettings(sqlite) : null;
  let report: SeedReport;
  try {
    report = await seedInTransaction(engine, options, { invoices, customers, seed, hashes, cal, ids, idBase, bulk });
  } finally {
    restore?.();
  }
  if (options.demo) {
    for (const company of report.companies) company.insights = company.ledger.invoices <= ENGINE_IN_SEED_MAX_INVOICES;
    // The past promises judged as the daily follow-up would have that morning (with the seed's ids,
    // so the same seed and date give the same rows): the engine learns the kept rates.
    const morning = { ...engine, clock: fixedClock(`${day0}T06:00:00.000Z`) };
    for (const company of report.companies) await followPromises(morning, company.id, ids);
    await seedIntelligence(engine, report, day0, ids);
  }
  return report;
}

/** How many days before the seed's today the engine first ran, so the demo shows superseded insights. */
const EARLIER_RUN_DAYS = 7;

/**
 * The demo's insights and AI proposals come from the intelligence engine, run as of a week ago and
 * as of today (at a fixed hour, with the seed's ids, so the same seed and date give the same rows),
 * and the demo user's feedback on two of them.
 */
async function seedIntelligence(engine: Engine, report: SeedReport, day0: string, ids: () => string): Promise<void> {
  for (const [day, hour] of [[addDays(day0, -EARLIER_RUN_DAYS), '06:00'], [day0, '06:00']] as const) {
    const at = { ...engine, clock: fixedClock(`${day}T${hour}:00.000Z`) };
    for (const company of report.companies) if (company.insights) await refreshIntelligence(at, company.id, { ids });
  }
  const demo = await engine.db.selectFrom('users').select('id').where('username', '=', 'demo').executeTakeFirstOrThrow();
  const first = report.companies[0].id;
  const pick = (type: string, extra: string) =>
    engine.database.sqlite
      .prepare(`SELECT id FROM insights WHERE company_id = ? AND insight_type = ? AND valid_to IS NULL ${extra} ORDER BY id LIMIT 1`)
      .get(first, type) as { id: string } | undefined;
  const feedback: Array<[{ id: string } | undefined, 'up' | 'down', string]> = [
    [pick('customer_conversation_summary', "AND json_extract(payload_json, '$.summary') != ''"), 'up', 'Accurate, matches my call notes'],
    [pick('invoice_pay_date_prediction', ''), 'down', 'They always pay on the 15th'],
  ];
  const stamp = `${day0}T09:00:00.000Z`;
  await runCommand({ db: engine.db, clock: fixedClock(stamp) }, 'seed_feedback', { actor: systemActor, companyId: first }, async (tx) => {
    for (const [insight, rating, comment] of feedback) {
      if (!insight) continue;
      const row = { id: ids(), company_id: first, insight_id: insight.id, user_id: demo.id, rating, comment, created_at: stamp, updated_at: stamp };
      await tx.db.insertInto('insight_feedback').values(row).execute();
      await tx.record('insight_feedback', row.id, 'insert', row);
    }
  });
}

/** How much of the file the exclusive seed reads through a memory map: index builds and the full-text build read the new rows back without a copy per page. */
const SEED_MMAP_BYTES = 16 * 1024 ** 3;

function exclusiveSettings(sqlite: Engine['database']['sqlite']): () => void {
  const before = {
    journal: sqlite.pragma('journal_mode', { simple: true }) as string,
    synchronous: sqlite.pragma('synchronous', { simple: true }) as number,
    foreignKeys: sqlite.pragma('foreign_keys', { simple: true }) as number,
    mmap: sqlite.pragma('mmap_size', { simple: true }) as number,
    tempStore: sqlite.pragma('temp_store', { simple: true }) as number,
  };
  sqlite.pragma('foreign_keys = OFF');
  sqlite.pragma('journal_mode = DELETE');
  sqlite.pragma('synchronous = OFF');
  sqlite.pragma(`mmap_size = ${SEED_MMAP_BYTES}`);
  // SQLite sorts in helper threads (the bulk load's index builds) only with temporary files on disk.
  sqlite.pragma('temp_store = FILE');
  return () => {
    sqlite.pragma(`temp_store = ${before.tempStore}`);
    sqlite.pragma(`mmap_size = ${before.mmap}`);
    sqlite.pragma(`journal_mode = ${before.journal}`);
    sqlite.pragma(`synchronous = ${before.synchronous}`);
    sqlite.pragma(`foreign_keys = ${before.foreignKeys}`);
  };
}

interface Prepared {
  invoices: number;
  customers: number;
  seed: number;
  hashes: string[];
  cal: Calendar;
  ids: IdFactory;
  /** The id sequence's base time (idFactory's baseMs), for ledger jobs that resume it. */
  idBase: number;
  bulk: (invoices: number) => boolean;
}

function seedInTransaction(engine: Engine, options: SeedOptions, p: Prepared): Promise<SeedReport> {
  const { invoices, customers, seed, hashes, cal, ids, idBase, bulk } = p;
  const sqlite = engine.database.sqlite;
  // Kysely's transaction holds the one connection, so the raw statements below share it and
  // nothing else can interleave.
  return inWriteTransaction(engine, async (trx) => {
    const ctx: SeedContext = { trx, cal, ids, secrets: engine.secrets };
    const report: SeedReport = { seed, companies: [], users: [] };
    const loadLedger = (company: CompanyFrame, curated: typeof SUPPLY_CUSTOMERS, invoiceCount: number, customerCount: number, stream: number, firstNumber: number) => {
      const bulkPath = bulk(invoiceCount);
      const job: LedgerJob = {
        companyId: company.id,
        companySlug: company.slug,
        invoices: invoiceCount,
        customers: customerCount,
        curated,
        arOwners: company.team.filter((m) => m.role === 'ar').map((m) => m.id),
        salesOwners: company.team.filter((m) => m.role === 'sales').map((m) => m.id),
        labels: company.labels,
        seed,
        stream,
        ids: { seed, baseMs: idBase, start: ids.drawn },
        today: cal.today,
        firstInvoiceNumber: firstNumber,
        spanDays: SPAN_DAYS,
        replica: bulkPath,
      };
      const write = chunkWriter(sqlite);
      // Only a large ledger takes long enough to be worth telling about.
      const progress = bulkPath ? options.onProgress : undefined;
      let written = 0;
      const writeChunk: typeof write = (chunk) => {
        write(chunk);
        if (progress && chunk.invoices) progress({ phase: 'invoices', done: (written += chunk.invoices), total: invoiceCount });
      };
      const generate = () => {
        const result = bulkPath && options.worker ? runLedgerJobInWorker(job, writeChunk) : runLedgerJob(job, writeChunk);
        ids.skip(result.idsDrawn);
        return result;
      };
      const indexes = progress ? (done: number, total: number) => progress({ phase: 'indexes', done, total }) : undefined;
      if (!bulkPath) return generate().ledger;
      return bulkLoad(
        sqlite,
        company.id,
        () => {
          const { ledger, replica } = generate();
          if (!replica) throw new Error('bulk load: the ledger job kept no replica of the triggers');
          return { result: ledger, replica };
        },
        indexes,
      );
    };
    const record = async (company: SeededCompany) => {
      await trx
        .insertInto('changes')
        .values({
          company_id: company.id,
          user_id: null,
          command: 'seed',
          entity: 'company',
          entity_id: company.id,
          op: 'insert',
          data: JSON.stringify({ name: company.name, seed, demo: options.demo, ...company.ledger }),
          created_at: timestamp(engine.clock),
        })
        .execute();
    };

    if (!options.demo) {
      const company = await insertCompany(ctx, `Generated Ledger ${seed}`, `generated-${seed}`, -SPAN_DAYS - 30);
      await insertTeam(ctx, company, teamOf('Generated Ledger'), -SPAN_DAYS - 30);
      await insertLabels(ctx, company, -SPAN_DAYS - 30);
      const ledger = loadLedger(company, [], invoices, customers, 1, 10_001);
      report.companies.push({ id: company.id, name: company.name, ledger: ledger.counts, stories: null, insights: false });
      await record(report.companies[0]);
      return report;
    }

    const anyUser = await trx.selectFrom('users').select('id').limit(1).executeTakeFirst();
    if (anyUser) throw alreadyInitialized();
    const created = -SPAN_DAYS - 60;
    const demoUser = await insertUser(ctx, 'demo', 'Dana Moreno', 'dana.moreno@acme-industrial.example.com', hashes[0], created);
    const outsider = await insertUser(ctx, 'outsider', 'Olivia Stone', 'olivia.stone@bluebird-catering.example.com', hashes[1], created);
    report.users.push('demo', 'outsider');

    const supply = await insertCompany(ctx, 'Acme Industrial Supply', 'acme-industrial', created);
    const catering = await insertCompany(ctx, 'Bluebird Catering Co.', 'bluebird-catering', created);
    await insertMembership(ctx, supply.id, demoUser, 'owner', created);
    await insertMembership(ctx, catering.id, demoUser, 'collector', created);
    await insertMembership(ctx, catering.id, outsider, 'owner', created);

    await insertTeam(
      ctx,
      supply,
      [
        { name: 'Dana Moreno', email: 'dana.moreno@acme-industrial.example.com', role: 'ar', userId: demoUser },
        { name: 'Marcus Reid', email: 'marcus.reid@acme-industrial.example.com', role: 'ar', userId: null },
        { name: 'Priya Shah', email: 'priya.shah@acme-industrial.example.com', role: 'ar', userId: null },
        { name: 'Tom Becker', email: 'tom.becker@acme-industrial.example.com', role: 'sales', userId: null },
        { name: 'Alicia Grant', email: 'alicia.grant@acme-industrial.example.com', role: 'sales', userId: null },
        { name: 'Helen Cho', email: 'helen.cho@acme-industrial.example.com', role: 'manager', userId: null },
      ],
      created,
    );
    await insertTeam(
      ctx,
      catering,
      [
        { name: 'Olivia Stone', email: 'olivia.stone@bluebird-catering.example.com', role: 'ar', userId: outsider },
        { name: 'Dana Moreno', email: 'dana.moreno@bluebird-catering.example.com', role: 'ar', userId: demoUser },
        { name: 'Sam Ortiz', email: 'sam.ortiz@bluebird-catering.example.com', role: 'sales', userId: null },
        { name: 'Ruth Adler', email: 'ruth.adler@bluebird-catering.example.com', role: 'manager', userId: null },
      ],
      created,
    );
    for (const company of [supply, catering]) await insertLabels(ctx, company, created);

    await insertConnection(ctx, supply, { name: 'Accounts Receivable', fromEmail: 'ar@acme-industrial.example.com', fromName: 'Acme Industrial Supply AR', userId: null, isDefault: true, isActive: true, shared: true }, created);
    await insertConnection(ctx, supply, { name: 'Dana Moreno', fromEmail: 'dana.moreno@acme-industrial.example.com', fromName: 'Dana Moreno', userId: demoUser, isDefault: false, isActive: true, shared: false }, created);
    await insertConnection(
      ctx,
      supply,
      { name: 'Old billing relay', fromEmail: 'billing@acme-industrial.example.com', fromName: 'Acme Billing', userId: null, isDefault: false, isActive: false, shared: false, host: 'smtp.example.com', port: 587 },
      created,
    );
    await insertConnection(ctx, catering, { name: 'Bluebird Billing', fromEmail: 'billing@bluebird-catering.example.com', fromName: 'Bluebird Catering Billing', userId: null, isDefault: true, isActive: true, shared: true }, created);

    const supplyLedger = loadLedger(supply, SUPPLY_CUSTOMERS, invoices, customers, 1, 10_001);
    const cateringLedger = loadLedger(catering, CATERING_CUSTOMERS, SECOND_COMPANY.invoices, SECOND_COMPANY.customers, 2, 24_001);
    const supplyStories = await writeStories(ctx, { company: supply, ledger: supplyLedger, rng: createRng(seed, 3), demoUserId: demoUser, maxStories: 12, withSequences: true });
    const cateringStories = await writeStories(ctx, { company: catering, ledger: cateringLedger, rng: createRng(seed, 4), demoUserId: demoUser, maxStories: 3, withSequences: false });
    for (const [company, ledger] of [[supply, supplyLedger], [catering, cateringLedger]] as const) await writePastPromises(ctx, company, ledger);
    report.companies.push(
      { id: supply.id, name: supply.name, ledger: supplyLedger.counts, stories: supplyStories, insights: false },
      { id: catering.id, name: catering.name, ledger: cateringLedger.counts, stories: cateringStories, insights: false },
    );
    for (const company of report.companies) await record(company);
    return report;
  });
}

function alreadyInitialized(): ConflictError {
  return new ConflictError('This workspace is already set up; the demo needs an empty one', 'already_initialized');
}

function teamOf(prefix: string) {
  const slug = prefix.toLowerCase().replace(/[^a-z]+/g, '-');
  return [
    { name: 'Jordan Ellis', email: `jordan.ellis@${slug}.example.com`, role: 'ar' as const, userId: null },
    { name: 'Casey Morgan', email: `casey.morgan@${slug}.example.com`, role: 'ar' as const, userId: null },
    { name: 'Riley Brooks', email: `riley.brooks@${slug}.example.com`, role: 'sales' as const, userId: null },
  ];
}
