/** Sync states and refused commands in a collector's words. */

/** approve_action -> "Approve action". */
export function commandInWords(command: string): string {
  const words = command.replace(/_/g, ' ').trim();
  return words ? words[0].toUpperCase() + words.slice(1) : 'A change';
}

export interface SyncSummary {
  tone: 'ok' | 'busy' | 'warn' | 'bad';
  label: string;
}

export function pendingInWords(pending: number): string {
  return pending === 1 ? '1 change waiting' : `${pending.toLocaleString('en-US')} changes waiting`;
}

export function syncSummary(s: {
  online: boolean;
  syncing: boolean;
  pending: number;
  last_error: string | null;
  rejected: unknown[];
  transfer?: { state: string } | null;
}): SyncSummary {
  const waiting = pendingInWords(s.pending);
  if (s.transfer?.state === 'running') return { tone: 'busy', label: 'Downloading from the team server…' };
  if (s.syncing) return { tone: 'busy', label: 'Syncing…' };
  if (!s.online) return { tone: s.pending ? 'warn' : 'bad', label: s.pending ? `Team server unreachable: ${waiting}` : 'Team server unreachable' };
  if (s.rejected.length) return { tone: 'warn', label: s.rejected.length === 1 ? '1 change refused' : `${s.rejected.length} changes refused` };
  if (s.pending) return { tone: 'busy', label: waiting };
  return { tone: 'ok', label: 'Synced' };
}

/** "Downloading Acme: 1,234 rows" / "Acme: 1,234 rows downloaded". */
export function transferLine(c: { name: string; rows: number; done: boolean }): string {
  const rows = `${c.rows.toLocaleString('en-US')} ${c.rows === 1 ? 'row' : 'rows'}`;
  return c.done ? `${c.name}: ${rows} downloaded` : `${c.name}: ${rows} so far`;
}
