/**
 * A queue send in a separate process over the same database file, with the clock fixed at `now`:
 * a sender that can be killed (SIGKILL) at any instant, like a crash or a power cut.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fixedClock } from '../../core/clock';
import { createEngine, systemActor } from '../../core/engine';
import { sendQueueStep } from '../../core/sequences/send';
import { TYPESCRIPT } from './cli';

export function spawnQueueSend(file: string, now: string, companyId: string, stepId: string): ChildProcess {
  const code = `require(${JSON.stringify(TYPESCRIPT)}); require(${JSON.stringify(__filename)}).queueSendPass(process.env.ARDESK_DB, process.env.ARDESK_NOW, process.env.ARDESK_COMPANY, process.env.ARDESK_STEP).catch((e) => { console.error(e); process.exit(1); });`;
  return spawn(process.execPath, ['-e', code], {
    env: { ...process.env, ARDESK_DB: file, ARDESK_NOW: now, ARDESK_COMPANY: companyId, ARDESK_STEP: stepId },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** The child's side of spawnQueueSend. */
export async function queueSendPass(file: string, now: string, companyId: string, stepId: string): Promise<void> {
  const engine = await createEngine({ file, clock: fixedClock(now) });
  try {
    await sendQueueStep(engine, { companyId, actor: systemActor }, stepId, {});
  } finally {
    await engine.close();
  }
}
