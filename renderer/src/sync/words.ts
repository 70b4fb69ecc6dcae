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

export function syncSummary(s: { online: boolean; syncing: boolean; pending: number; last_error: string | null; rejected: unknown[] }): SyncSummary {
  const waiting = s.pending === 1 ? '1 change waiting' : `${s.pending} changes waiting`;
  if (s.syncing) return { tone: 'busy', label: 'Syncing…' };
  if (!s.online) return { tone: s.pending ? 'warn' : 'bad', label: s.pending ? `Team server unreachable: ${waiting}` : 'Team server unreachable' };
  if (s.rejected.length) return { tone: 'warn', label: s.rejected.length === 1 ? '1 change refused' : `${s.rejected.length} changes refused` };
  if (s.pending) return { tone: 'busy', label: waiting };
  return { tone: 'ok', label: 'Synced' };
}
