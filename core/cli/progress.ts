const BAR_WIDTH = 30;

/**
 * One line of progress for `what` (customers, invoices, indexes): a bar redrawn in place on a
 * terminal, else a line per tenth (logs and pipes stay short).
 */
export function progressPrinter(stream: NodeJS.WriteStream, what: string) {
  let lastTenth = -1;
  return ({ done, total }: { done: number; total: number }) => {
    const share = total ? done / total : 1;
    if (stream.isTTY) {
      const filled = Math.round(share * BAR_WIDTH);
      stream.write(`\r[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${done}/${total} ${what}${done === total ? '\n' : ''}`);
      return;
    }
    const tenth = Math.floor(share * 10);
    if (tenth === lastTenth) return;
    lastTenth = tenth;
    stream.write(`${what}: ${Math.round(share * 100)}% (${done}/${total})\n`);
  };
}
