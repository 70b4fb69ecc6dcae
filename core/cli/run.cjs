// Runs the ardesk command in this process. The core is TypeScript run through tsx, so the CLI
// needs no build step. bin.cjs decides which Node runs this file.

/** Runs the command line `argv` and sets the exit code from its result. */
function run(argv) {
  require('../typescript.cjs');
  require('./main.ts')
    .main(argv)
    .then((code) => {
      if (typeof code === 'number') process.exitCode = code;
    })
    .catch((err) => {
      console.error(`ardesk: ${err && err.message ? err.message : err}`);
      process.exitCode = 1;
    });
}

// Started by bin.cjs as its child: when the launcher is gone, however it ended (even SIGKILL),
// stop as if told to, so no server outlives it holding its port.
function stopWithLauncher() {
  if (!process.channel) return;
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}

if (require.main === module) {
  stopWithLauncher();
  run(process.argv.slice(2));
}

module.exports = { run };
