/**
 * Who holds a database file open: the processes whose open files include it (Linux /proc), so
 * "database is locked" can name them. Elsewhere, or when /proc tells nothing, none are found.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

export interface Holder {
  pid: number;
  command: string;
}

/** The command line of a process, as `ps` would show it, shortened. */
function commandOf(pid: number): string {
  try {
    const words = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    // "node /repo/core/cli/bin.cjs serve --db x" reads better as "ardesk serve --db x".
    const bin = words.findIndex((w) => /[/\\](bin|run)\.cjs$/.test(w) || w.endsWith('/ardesk'));
    const shown = bin >= 0 ? ['ardesk', ...words.slice(bin + 1)] : words;
    const text = shown.join(' ');
    return text.length > 120 ? `${text.slice(0, 117)}...` : text;
  } catch {
    return 'a process';
  }
}

function parentOf(pid: number, procDir: string): number | null {
  try {
    // /proc/PID/stat: "pid (command) state ppid ...", the command may hold spaces and parentheses.
    const stat = readFileSync(join(procDir, String(pid), 'stat'), 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/** The processes holding the file; a holder's own children (a server's worker processes) are left out. */
export function holdersOf(file: string, procDir = '/proc'): Holder[] {
  let pids: string[];
  try {
    pids = readdirSync(procDir).filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid);
  } catch {
    return [];
  }
  const wanted = new Set([file, `${file}-wal`, `${file}-shm`]);
  const out: Holder[] = [];
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(join(procDir, pid, 'fd'));
    } catch {
      continue;
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = readlinkSync(join(procDir, pid, 'fd', fd));
      } catch {
        continue;
      }
      if (wanted.has(target)) {
        out.push({ pid: Number(pid), command: commandOf(Number(pid)) });
        break;
      }
    }
  }
  const pidsHolding = new Set(out.map((h) => h.pid));
  return out.filter((h) => !pidsHolding.has(parentOf(h.pid, procDir) ?? -1));
}
