import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * The socket inodes listening on `port`, from the kernel's table (/proc/net/tcp or tcp6): the
 * local address is HEXIP:HEXPORT, state 0A is LISTEN, the inode is the tenth column.
 */
export function listeningInodes(table: string, port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return table
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols.length > 9 && cols[1].endsWith(`:${hexPort}`) && cols[3] === '0A')
    .map((cols) => cols[9]);
}

/** Who listens on the port ("pid 1234, node"), when the system tells (Linux, a process of this user); else null. */
export function portHolder(port: number): string | null {
  try {
    const inodes = new Set(['/proc/net/tcp', '/proc/net/tcp6'].flatMap((f) => listeningInodes(readFileSync(f, 'utf8'), port)));
    if (!inodes.size) return null;
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      let fds: string[];
      try {
        fds = readdirSync(`/proc/${pid}/fd`);
      } catch {
        continue;
      }
      for (const fd of fds) {
        let target: string;
        try {
          target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        } catch {
          continue;
        }
        const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
        if (inode && inodes.has(inode)) {
          const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).slice(0, 3).join(' ');
          return `pid ${pid}, ${command}`;
        }
      }
    }
  } catch {
    // Not Linux, or /proc unreadable: the message goes without the holder.
  }
  return null;
}
