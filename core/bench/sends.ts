/**
 * `npm run bench:sends`: an email action approved while a statement run mails every customer
 * (issue 37, N4). The real server (its job lanes) and a real SMTP server on loopback; 3,000
 * customers each get their statement PDF by email; some seconds into the run a collector approves
 * an email action. Measured: from the approval to the action's message reaching the SMTP server
 * (target: at most 10 s), the statements sent by then, and the run's whole length.
 *
 *   npm run bench:sends -- [--customers 3000] [--approve-after 5]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SMTPServer } from 'smtp-server';
import { createUser } from '../auth/users';
import { chunks } from '../chunks';
import { insertCompany, insertMembership } from '../companies/companies';
import { runCommand, systemActor } from '../engine';
import { newId } from '../ids';
import { openEngine } from '../runtime/engine';
import { startRuntime } from '../runtime/server';
import { exitWith } from './exit';

const TARGET_MS = 10_000;
const ACTION_SUBJECT = 'Invoice BENCH-0 is past due';

/** An SMTP server on loopback that accepts every message and notes each subject as it arrives. */
async function mailSink(onMessage: (subject: string) => void): Promise<{ port: number; close: () => Promise<void> }> {
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    onData(stream, _session, callback) {
      let head = '';
      stream.on('data', (chunk: Buffer) => {
        if (head.length < 4096) head += chunk.toString('latin1');
      });
      stream.on('end', () => {
        onMessage(/^Subject: (.*)$/im.exec(head)?.[1]?.trim() ?? '');
        callback();
      });
    },
  });
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.server.address() as AddressInfo).port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { customers: { type: 'string' }, 'approve-after': { type: 'string' } } });
  const customerCount = Number(values.customers ?? 3000);
  const approveAfterMs = Number(values['approve-after'] ?? 5) * 1000;
  let statements = 0;
  let actionAt: number | null = null;
  const sink = await mailSink((subject) => {
    if (subject === ACTION_SUBJECT) actionAt ??= performance.now();
    else statements++;
  });
  const dir = mkdtempSync(join(tmpdir(), 'ardesk-bench-sends-'));
  const engine = await openEngine({ file: join(dir, 'bench.sqlite'), checkpointInBackground: true });
  const runtime = await startRuntime(engine, { port: 0, host: '127.0.0.1', replyReadIntervalMs: 0 });
  try {
    const companyId = await runCommand(engine, 'bench_company', { actor: systemActor, companyId: null }, (tx) => insertCompany(tx, 'Bench Supply'));
    const userId = await createUser(engine, { username: 'bench', password: 'bench-password' });
    const customerIds = Array.from({ length: customerCount + 1 }, () => newId());
    const invoiceIds = customerIds.map(() => newId());
    await runCommand(engine, 'bench_ledger', { actor: systemActor, companyId }, async (tx) => {
      await insertMembership(tx, companyId, userId, 'owner');
      const now = tx.now;
      await tx.db.insertInto('team_members').values({ id: newId(), company_id: companyId, user_id: userId, name: 'Bench Collector', email: null, role: 'ar', is_active: 1, created_at: now, updated_at: now }).execute();
      await tx.db
        .insertInto('email_connections')
        .values({ id: newId(), company_id: companyId, user_id: null, name: 'Bench relay', from_email: 'ar@bench.example', from_name: 'Bench Supply', smtp_host: '127.0.0.1', smtp_port: sink.port, smtp_secure: 0, smtp_username: null, smtp_password_enc: null, is_default: 1, is_active: 1, allow_shared_sending: 1, created_at: now, updated_at: now })
        .execute();
      const customers = customerIds.map((id, i) => ({ id, company_id: companyId, name: `Customer ${String(i).padStart(5, '0')}`, is_person: 0 as const, ar_owner_id: null, sales_owner_id: null, remote_id: null, currency: 'USD', payment_terms_days: 30, notes: null, created_at: now, updated_at: now }));
      for (const rows of chunks(customers, 200)) await tx.db.insertInto('customers').values(rows).execute();
      const contacts = customerIds.map((customerId, i) => ({ id: newId(), company_id: companyId, customer_id: customerId, name: 'Payables', email: `ap${i}@customer${i}.example`, phone: null, title: null, is_billing: 1 as const, created_at: now, updated_at: now }));
      for (const rows of chunks(contacts, 200)) await tx.db.insertInto('customer_contacts').values(rows).execute();
      const invoices = customers.map((c, i) => ({ id: invoiceIds[i], company_id: companyId, customer_id: c.id, customer_name: c.name, invoice_number: `BENCH-${i}`, invoice_date: '2026-10-01', due_date: '2026-10-31', currency: 'USD', total_amount: 125_000 + i, paid_amount: 0, balance: 125_000 + i, transaction_type: 'invoice', created_at: now, updated_at: now }));
      for (const rows of chunks(invoices, 200)) await tx.db.insertInto('invoices').values(rows).execute();
    });
    const login = await fetch(`${runtime.url}/api/v1/auth/login/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'bench', password: 'bench-password' }) });
    const headers = { authorization: `Token ${((await login.json()) as { token: string }).token}`, 'content-type': 'application/json' };
    const base = `${runtime.url}/api/companies/${companyId}`;
    const created = await fetch(`${base}/actions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ invoice: invoiceIds[0], action_type: 'email', description: 'Send a reminder for BENCH-0', metadata: { draft_subject: ACTION_SUBJECT, draft_body: 'Hello,\n\nBENCH-0 is past due.\n\nBench Supply' } }),
    });
    if (created.status !== 201) throw new Error(`action: ${created.status} ${await created.text()}`);
    const actionId = ((await created.json()) as { id: string }).id;
    const runStarted = performance.now();
    const run = await fetch(`${base}/statement-runs`, { method: 'POST', headers, body: JSON.stringify({ customer_ids: customerIds.slice(1) }) });
    if (run.status !== 202) throw new Error(`statement run: ${run.status} ${await run.text()}`);
    const runId = ((await run.json()) as { id: string }).id;
    // Approved once the run is mailing, some seconds in.
    while (statements === 0 || performance.now() - runStarted < approveAfterMs) await new Promise((resolve) => setTimeout(resolve, 50));
    const approvedAt = performance.now();
    const statementsAtApproval = statements;
    const approved = await fetch(`${base}/actions/${actionId}/approve`, { method: 'POST', headers, body: '{}' });
    if (approved.status !== 200) throw new Error(`approve: ${approved.status} ${await approved.text()}`);
    while (actionAt === null) await new Promise((resolve) => setTimeout(resolve, 20));
    const statementsAtAction = statements;
    const waitedMs = (actionAt as number) - approvedAt;
    for (;;) {
      const state = (await (await fetch(`${base}/statement-runs/${runId}`, { headers })).json()) as { finished: boolean; sent: number };
      if (state.finished) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const runMs = performance.now() - runStarted;
    console.log(`statement run: ${customerCount} customers, ${statements} statements mailed in ${(runMs / 1000).toFixed(1)} s`);
    console.log(`action approved ${((approvedAt - runStarted) / 1000).toFixed(1)} s into the run (${statementsAtApproval} statements sent): its email reached the SMTP server ${(waitedMs / 1000).toFixed(2)} s later (${statementsAtAction} statements sent by then), target <= ${TARGET_MS / 1000} s`);
    return waitedMs <= TARGET_MS ? 0 : 1;
  } finally {
    await runtime.stop();
    await engine.close();
    await sink.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

exitWith(main);
