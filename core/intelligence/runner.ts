/**
 * The runner: computes every model for a company (or only some of its customers) and writes the
 * results as versioned insights and proposals. One entry point per company, so whichever process
 * owns a company's intelligence (the desktop, or later the team server) calls just this.
 *
 * - The pay-date model is fitted once per company and day from the whole settled history (paged
 *   queries) and kept in memory; a refresh of a few customers refits only their part.
 * - Customers are processed in chunks bounded by work (their open invoices, hence the rows the
 *   chunk writes), not by a number of customers: five set-based queries per chunk, the models in
 *   memory, and one transaction (the named command refresh_intelligence) per chunk; a chunk of one
 *   customer with more rows than that is written in transactions of about SLICE_MS each.
 * - The server runs it in its own process (refresh-process.ts), so no chunk holds a request; the
 *   CLI and the seed run it in theirs. It yields between pages of the fit and between chunks.
 */
import { sql } from 'kysely';
import { today as todayOf } from '../clock';
import { workingDate } from '../companies/as-of';
import { type CommandTx, type Engine, runCommand, systemActor } from '../engine';
import { yieldToEventLoop } from '../yielding';
import { conversationState, customerConversationSummary, invoiceConversationSummary } from './conversation';
import { portfolioSurvival, type PortfolioSurvival } from './conditional';
import { activeCustomerIds, type CustomerFacts, fitPayDateModel, loadCustomerFacts, loadOpenAges, loadSettledOf } from './facts';
import { PayDateModel } from './pay-date';
import { lessonsInsight, loadHistoryFigures } from './lessons';
import { forecastAccuracyInsight, loadAccuracyHistory } from './forecast-accuracy';
import { portfolioFigures } from './portfolio';
import { payDatePrediction } from './predictions';
import { latestPromise, type PaymentPromise } from './promises';
import { type ProposedAction, proposeActions } from './proposals';
import { customerSignal, invoiceSignal, isBroken, portfolioSignal, type Signal, silenceAfterReminders, viewedWithoutActing } from './signals';
import { strategyPlan } from './strategy';
import { activeInsights, applyInsightSteps, type DesiredInsight, planInsights, writeInsights, writeProposals } from './writer';
import { assessValueAtRisk, changedValuesAtRisk, storeValuesAtRisk } from '../actions/value-at-risk';
import { forecastInflowsWriter, type PredictedInvoice } from '../analytics/forecast-inflows';

export const REFRESH_COMMAND = 'refresh_intelligence';
/**
 * Estimated insight rows per chunk. Each chunk is one transaction holding the write lock, so this
 * bounds how long a write of the server waits behind the refresh, and the chunk's working set. A
 * customer counts its customer-level insights plus those of each open invoice: one customer with
 * thousands of invoices is a chunk of its own, thousands of small customers share one.
 */
export const CHUNK_ROWS = 1_000;
/** Insights a customer always gets (signal, conversation summary, strategy plan). */
const CUSTOMER_ROWS = 3;
/** Insights per open invoice (pay date, signal, conversation summary). */
const INVOICE_ROWS = 3;
/** Customers whose open invoices are counted per query when chunks are formed. */
const COUNT_PAGE_CUSTOMERS = 500;

/**
 * Splits customers, in order, into chunks of at most `budget` work each (a customer heavier than
 * the budget is a chunk by itself). Pure: the weights come from the caller.
 */
export function chunkByWork<T>(items: T[], weightOf: (item: T) => number, budget: number): T[][] {
  const chunks: T[][] = [];
  let chunk: T[] = [];
  let work = 0;
  for (const item of items) {
    const weight = weightOf(item);
    if (chunk.length && work + weight > budget) {
      chunks.push(chunk);
      chunk = [];
      work = 0;
    }
    chunk.push(item);
    work += weight;
  }
  if (chunk.length) chunks.push(chunk);
  return chunks;
}

/** How long one of a large customer's transactions may hold the write lock (writeInSlices). */
export const SLICE_MS = 20;
/**
 * Between two of a large customer's transactions outside the server's refresh process (the CLI):
 * long enough for another process's waiting write, which looks for the lock every few ms, to take
 * it (a turn of the event loop let the next transaction take it back at once).
 */
const LOCK_GAP_MS = 10;
const lockGap = () => new Promise<void>((resolve) => setTimeout(resolve, LOCK_GAP_MS));

/** Items written between two looks at the clock within a slice. */
const SLICE_STEP = 10;

/**
 * Writes `items` in transactions of about SLICE_MS each, calling `between` after each one (the
 * server's refresh process waits there while the server has a write waiting: refresh-child.ts).
 * An item is written exactly once: a transaction that is tried again (the lock was busy) starts
 * again from where the last commit ended.
 */
export async function writeInSlices<T>(
  engine: EngineLike,
  companyId: string,
  items: T[],
  write: (tx: CommandTx, slice: T[]) => Promise<void>,
  between: () => Promise<void>,
): Promise<void> {
  for (let done = 0; done < items.length; ) {
    done = await runCommand(engine, REFRESH_COMMAND, { actor: systemActor, companyId }, async (tx) => {
      const started = performance.now();
      let next = done;
      do {
        const slice = items.slice(next, next + SLICE_STEP);
        await write(tx, slice);
        next += slice.length;
      } while (next < items.length && performance.now() - started < SLICE_MS);
      return next;
    });
    await between();
  }
}

/** Open invoices per customer (the customer index covers it), for customers with any. */
function openInvoiceCounts(engine: EngineLike, companyId: string, customerIds: string[]): Map<string, number> {
  const rows = engine.database.sqlite
    .prepare(
      `SELECT customer_id, count(*) AS n FROM invoices INDEXED BY invoices_customer
       WHERE company_id = ? AND customer_id IN (${customerIds.map(() => '?').join(',')}) AND closing_reason IS NULL GROUP BY customer_id`,
    )
    .all(companyId, ...customerIds) as { customer_id: string; n: number }[];
  return new Map(rows.map((r) => [r.customer_id, r.n]));
}

/** The customers' chunks by work, counted a page of customers at a time; a chunk never spans two pages. */
async function* workChunks(engine: EngineLike, companyId: string, customerIds: string[]): AsyncGenerator<string[]> {
  for (let i = 0; i < customerIds.length; i += COUNT_PAGE_CUSTOMERS) {
    const page = customerIds.slice(i, i + COUNT_PAGE_CUSTOMERS);
    const open = openInvoiceCounts(engine, companyId, page);
    yield* chunkByWork(page, (id) => CUSTOMER_ROWS + INVOICE_ROWS * (open.get(id) ?? 0), CHUNK_ROWS);
  }
}

export interface RefreshOptions {
  /** Only these customers (and no portfolio signal); all active customers when absent. */
  customerIds?: string[];
  onProgress?: (progress: { done: number; total: number }) => void;
  /** Runs inside each chunk's transaction with the progress it commits (a job's progress: jobs.ts). */
  inChunk?: (tx: CommandTx, progress: { done: number; total: number }) => Promise<void>;
  /**
   * Awaited between two chunks (default: one turn of the event loop) and between two transactions
   * of a large customer's (default: LOCK_GAP_MS); the server's refresh process waits there while a
   * write of the server's waits.
   */
  between?: () => Promise<void>;
  /** Ids for the rows written (the demo seed passes its own, so the same seed gives the same ids). */
  ids?: () => string;
}

export interface RefreshReport {
  customers: number;
  insights_opened: number;
  insights_closed: number;
  insights_unchanged: number;
  actions_proposed: number;
  actions_cancelled: number;
}

type EngineLike = Pick<Engine, 'db' | 'clock' | 'database'>;

/**
 * Fitted models per engine and company, valid for the day they were fitted on, with the portfolio's
 * survival curve drawn at the fit. An incremental refresh refits its customers in the model but
 * keeps the day's curve: drawing it reads every open invoice of the company (over a second at 1M
 * invoices, most of one payment's refresh), and one customer's payment moves a curve of the whole
 * portfolio by a hair. The next full refresh draws it again.
 */
const models = new WeakMap<object, Map<string, { day: string; model: PayDateModel; survival: PortfolioSurvival | null }>>();

async function payDateModel(engine: EngineLike, companyId: string, day: string, customerIds: string[] | undefined): Promise<{ model: PayDateModel; survival: PortfolioSurvival | null }> {
  let perCompany = models.get(engine.database);
  if (!perCompany) models.set(engine.database, (perCompany = new Map()));
  const cached = perCompany.get(companyId);
  if (cached && cached.day === day && customerIds) {
    for (const id of customerIds) cached.model.forget(id);
    for (const s of loadSettledOf(engine, companyId, customerIds, day)) cached.model.observe(s);
    return cached;
  }
  const model = await fitPayDateModel(engine, companyId, day, yieldToEventLoop);
  const survival = model.observationCount ? portfolioSurvival(model.residualSamples(), loadOpenAges(engine, model, companyId, day)) : null;
  perCompany.set(companyId, { day, model, survival });
  return { model, survival };
}

/** The company's latest change record, 0 when it has none. */
async function changeHead(engine: EngineLike, companyId: string): Promise<number> {
  const { head } = await engine.db.selectFrom('changes').select((eb) => eb.fn.max<number | null>('seq').as('head')).where('company_id', '=', companyId).executeTakeFirstOrThrow();
  return head ?? 0;
}

export async function refreshIntelligence(engine: EngineLike, companyId: string, options: RefreshOptions = {}): Promise<RefreshReport> {
  // Models count from the company's as-of date while it has one (a ledger exported long ago).
  const today = workingDate(engine, companyId);
  const company = await engine.db.selectFrom('companies').select(['id', 'name', 'currency']).where('id', '=', companyId).executeTakeFirstOrThrow();
  const { model, survival } = await payDateModel(engine, companyId, today, options.customerIds);
  // A full refresh reads every change made before it starts: the change watcher need not refresh their customers again.
  const changesRead = options.customerIds ? null : await changeHead(engine, companyId);
  const customerIds = options.customerIds ?? (await activeCustomerIds(engine, companyId, yieldToEventLoop));
  const report: RefreshReport = { customers: 0, insights_opened: 0, insights_closed: 0, insights_unchanged: 0, actions_proposed: 0, actions_cancelled: 0 };
  const total = customerIds.length + (options.customerIds ? 0 : 1);
  options.onProgress?.({ done: 0, total });
  const inflows = forecastInflowsWriter(engine.database.sqlite, companyId);
  for await (const chunk of workChunks(engine, companyId, customerIds)) {
    const facts = loadCustomerFacts(engine, companyId, chunk);
    let desired: DesiredInsight[] = [];
    const proposals: Array<ProposedAction & { customerId: string }> = [];
    const stale: Array<{ id: string; reason: string }> = [];
    for (const customer of facts) {
      const computed = computeCustomer(customer, model, survival, company.name, today, todayOf(engine.clock));
      // Loops, not push(...): one customer's hundreds of thousands of insights overflow the stack as arguments.
      for (const insight of computed.insights) desired.push(insight);
      for (const p of computed.proposals) proposals.push({ ...p, customerId: customer.id });
      for (const s of computed.stale) stale.push(s);
    }
    // Planned before any transaction (reads need no lock). A chunk of many small customers is
    // written in one transaction, as chunks are bounded by work; one customer with tens of
    // thousands of open invoices is written in slices (writeInSlices), so no write of the server
    // waits for its whole refresh (issue 37).
    const predicted = predictedInvoices(facts, desired);
    const { steps, unchanged } = planInsights(companyId, activeInsights(engine.database.sqlite, companyId, { customerIds: chunk }), desired);
    // The steps hold what is written: the desired objects can go (one customer's are hundreds of MB).
    desired = [];
    report.insights_unchanged += unchanged;
    const count = (written: { opened: number; closed: number }) => {
      report.insights_opened += written.opened;
      report.insights_closed += written.closed;
    };
    const countActions = (acted: { proposed: number; cancelled: number }) => {
      report.actions_proposed += acted.proposed;
      report.actions_cancelled += acted.cancelled;
    };
    const progress = { done: report.customers + chunk.length, total };
    if (steps.length + proposals.length + stale.length <= CHUNK_ROWS) {
      await runCommand(engine, REFRESH_COMMAND, { actor: systemActor, companyId }, async (tx) => {
        count(await applyInsightSteps(tx, engine.database.sqlite, steps, options.ids));
        countActions(await writeProposals(tx, engine.database.sqlite, companyId, proposals, stale, options.ids));
        await assessValueAtRisk(tx.db, companyId, tx.today, { customerIds: chunk });
        inflows.replace(chunk, predicted);
        await options.inChunk?.(tx, progress);
      });
    } else {
      const between = options.between ?? lockGap;
      await writeInSlices(engine, companyId, steps, async (tx, slice) => count(await applyInsightSteps(tx, engine.database.sqlite, slice, options.ids)), between);
      // From the last proposal to the first: each slice is written in reverse (writeProposals), so
      // the proposals are made in the same order as in one transaction.
      await writeInSlices(engine, companyId, [...proposals].reverse(), async (tx, slice) => countActions(await writeProposals(tx, engine.database.sqlite, companyId, [...slice].reverse(), [], options.ids)), between);
      await writeInSlices(engine, companyId, stale, async (tx, slice) => countActions(await writeProposals(tx, engine.database.sqlite, companyId, [], slice, options.ids)), between);
      // Weighing every open invoice of such a customer is a second of reads: done outside the write
      // lock, and only the values that changed are written.
      const values = await changedValuesAtRisk(engine.db, companyId, todayOf(engine.clock), { customerIds: chunk });
      await writeInSlices(engine, companyId, values, (tx, slice) => storeValuesAtRisk(tx.db, slice), between);
      await runCommand(engine, REFRESH_COMMAND, { actor: systemActor, companyId }, async (tx) => {
        inflows.replace(chunk, predicted);
        await options.inChunk?.(tx, progress);
      });
    }
    report.customers += chunk.length;
    options.onProgress?.({ done: report.customers, total });
    // Lets other work run, and the finalizers of the chunk's collected statements: better-sqlite3
    // frees a statement's native memory only on a later turn of the event loop, so a refresh that
    // never left the microtask queue held every statement it prepared (RSS grew with each chunk).
    await (options.between ?? yieldToEventLoop)();
  }
  if (!options.customerIds) {
    const figures = portfolioFigures(engine, companyId, company.currency, today);
    // Read before the transaction: whole-history scans (seconds at 1M invoices) would hold the
    // write lock, and a write of the server's waits for it.
    const history = loadHistoryFigures(engine, companyId);
    const accuracy = forecastAccuracyInsight(companyId, company.name, loadAccuracyHistory(engine, companyId), today);
    await runCommand(engine, REFRESH_COMMAND, { actor: systemActor, companyId }, async (tx) => {
      const draft = portfolioSignal(companyId, company.name, figures);
      const lessons = lessonsInsight(companyId, company.name, history);
      const written = await writeInsights(tx, engine.database.sqlite, companyId, { portfolio: true }, [
        { targetType: 'portfolio', targetId: companyId, customerId: null, invoiceId: null, insightType: 'portfolio_signal', ...draft },
        { targetType: 'portfolio', targetId: companyId, customerId: null, invoiceId: null, insightType: 'portfolio_lessons', ...lessons },
        { targetType: 'portfolio', targetId: companyId, customerId: null, invoiceId: null, insightType: 'portfolio_forecast_accuracy', ...accuracy },
      ], options.ids);
      report.insights_opened += written.opened;
      report.insights_closed += written.closed;
      report.insights_unchanged += written.unchanged;
      await tx.db
        .insertInto('intelligence_state')
        .values({ company_id: companyId, last_change_seq: changesRead ?? 0, last_full_refresh_date: tx.today, updated_at: tx.now })
        .onConflict((oc) =>
          oc.column('company_id').doUpdateSet({ last_change_seq: sql<number>`max(last_change_seq, ${changesRead ?? 0})`, last_full_refresh_date: tx.today, updated_at: tx.now }),
        )
        .execute();
      inflows.complete(customerIds, tx.now);
      await options.inChunk?.(tx, { done: total, total });
    });
    options.onProgress?.({ done: total, total });
  }
  return report;
}

/**
 * The chunk's open invoices with the pay-date predictions just computed for them, as much of each
 * as the forecast reads (core/analytics/forecast-inflows.ts): kept while the chunk is written, and
 * a whole prediction per invoice of a customer with 100,000 was most of the refresh's memory.
 */
function predictedInvoices(facts: CustomerFacts[], desired: DesiredInsight[]): PredictedInvoice[] {
  const predictions = new Map<string, Record<string, unknown>>();
  for (const d of desired) {
    if (d.insightType !== 'invoice_pay_date_prediction' || !d.invoiceId) continue;
    const { predicted_date, collectible_90d, alternative_scenarios } = d.payload;
    predictions.set(d.invoiceId, { predicted_date, collectible_90d, alternative_scenarios });
  }
  return facts.flatMap((customer) =>
    customer.openInvoices.map((i) => ({ customerId: customer.id, dueDate: i.dueDate, balance: i.balance, prediction: predictions.get(i.id) ?? null })),
  );
}

/**
 * Every model for one customer: its insights, new proposals, and its proposals that lost their
 * trigger. `today` is the date the models count from (the company's as-of date while set);
 * `answerFrom` the real day, from which a proposal's response deadline runs.
 */
export function computeCustomer(customer: CustomerFacts, model: PayDateModel, survival: PortfolioSurvival | null, companyName: string, today: string, answerFrom = today) {
  const insights: DesiredInsight[] = [];
  const promises = new Map<string, PaymentPromise | null>();
  const overdue = customer.openInvoices.filter((i) => i.dueDate < today).map((i) => ({ dueDate: i.dueDate, disputed: i.disputed, billChannel: i.billChannel }));
  const dist = model.distribution(customer.id, today, overdue);
  const customerPromise = latestPromise(customer.communications);
  const brokenPromises: { invoice: CustomerFacts['openInvoices'][number]; promise: PaymentPromise }[] = [];
  let earliestPrediction: string | null = null;
  for (const invoice of customer.openInvoices) {
    const promise = latestPromise(customer.communications, invoice.id);
    promises.set(invoice.id, promise);
    if (promise && isBroken(promise, invoice, today)) brokenPromises.push({ invoice, promise });
    const base = { customerId: customer.id, invoiceId: invoice.id, targetType: 'invoice' as const, targetId: invoice.id };
    const prediction = payDatePrediction(invoice, dist, promise, today, survival);
    const predicted = prediction.payload.predicted_date as string | null;
    if (predicted && (earliestPrediction === null || predicted < earliestPrediction)) earliestPrediction = predicted;
    insights.push({ ...base, insightType: 'invoice_pay_date_prediction', ...prediction });
    insights.push({ ...base, insightType: 'invoice_signal', ...invoiceSignal(invoice, customer.name, promise, today) });
    if (customer.communications.length) insights.push({ ...base, insightType: 'invoice_conversation_summary', ...invoiceConversationSummary(customer, invoice, promise, today) });
  }
  const cbase = { customerId: customer.id, invoiceId: null, targetType: 'customer' as const, targetId: customer.id };
  const signal = customerSignal({ customer, daysLate: model.daysLateOf(customer.id), brokenPromises, today });
  insights.push({ ...cbase, insightType: 'customer_signal', ...signal });
  insights.push({ ...cbase, insightType: 'customer_conversation_summary', ...customerConversationSummary(customer, customerPromise, earliestPrediction, today) });
  const state = conversationState(customer.communications, customerPromise, customer.openInvoices.some((i) => i.disputed), today);
  const silent = silenceAfterReminders(customer.communications, today) !== null;
  const viewedIdleSince = viewedWithoutActing(customer, today)?.firstView ?? null;
  insights.push({ ...cbase, insightType: 'customer_strategy_plan', ...strategyPlan({ customer, tone: state.tone, promise: customerPromise, brokenPromise: brokenPromises.length > 0, silent, viewedIdleSince, today }) });
  const { proposals, liveKeys } = proposeActions({ customer, promises, customerSignal: (signal.payload.signal as Signal | null) ?? null, companyName, today, answerFrom });
  const stale = customer.actions
    .filter((a) => a.status === 'proposed' && a.triggerKey !== null && !a.deleted && !liveKeys.has(a.triggerKey))
    .map((a) => ({ id: a.id, reason: 'No longer needed: what triggered it has changed' }));
  return { insights, proposals, stale };
}
