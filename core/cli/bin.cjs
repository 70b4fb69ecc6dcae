#!/usr/bin/env node
// The `ardesk` command. The core is TypeScript run through tsx, so the CLI needs no build step.
require('tsx/cjs');
require('./main.ts')
  .main(process.argv.slice(2))
  .then((code) => {
    if (typeof code === 'number') process.exitCode = code;
  })
  .catch((err) => {
    console.error(`ardesk: ${err && err.message ? err.message : err}`);
    process.exitCode = 1;
  });
