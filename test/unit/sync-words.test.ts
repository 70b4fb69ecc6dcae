import { describe, expect, it } from 'vitest';
import { commandInWords, syncSummary } from '../../renderer/src/sync/words';

const base = { online: true, syncing: false, pending: 0, last_error: null, rejected: [] as unknown[] };

describe('sync state in words', () => {
  it('names commands as a person would', () => {
    expect(commandInWords('approve_action')).toBe('Approve action');
    expect(commandInWords('create_customer')).toBe('Create customer');
    expect(commandInWords('')).toBe('A change');
  });

  it('says what the indicator shows, worst news first', () => {
    expect(syncSummary(base)).toEqual({ tone: 'ok', label: 'Synced' });
    expect(syncSummary({ ...base, syncing: true, pending: 3 })).toEqual({ tone: 'busy', label: 'Syncing…' });
    expect(syncSummary({ ...base, pending: 1 })).toEqual({ tone: 'busy', label: '1 change waiting' });
    expect(syncSummary({ ...base, online: false, pending: 2 })).toEqual({ tone: 'warn', label: 'Team server unreachable: 2 changes waiting' });
    expect(syncSummary({ ...base, online: false })).toEqual({ tone: 'bad', label: 'Team server unreachable' });
    expect(syncSummary({ ...base, rejected: [{}, {}] })).toEqual({ tone: 'warn', label: '2 changes refused' });
  });
});
