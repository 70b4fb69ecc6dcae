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

/**
 * A status line that changes as work goes (downloading a company, its rows so far): redrawn in
 * place on a terminal and cleared when `done()` is called, so the summary lines that follow are the
 * only ones left; elsewhere (logs, pipes) each step is written once, the first time it is told.
 */
export function statusLine(stream: NodeJS.WriteStream) {
  let lastStep = '';
  return {
    show(message: string) {
      if (stream.isTTY) {
        stream.write(`\r\x1b[K${message}`);
        return;
      }
      const step = message.split(':')[0];
      if (step === lastStep) return;
      lastStep = step;
      stream.write(`${step} ...\n`);
    },
    done() {
      if (stream.isTTY) stream.write('\r\x1b[K');
    },
  };
}
