// Lets this process require the core's TypeScript through tsx, which needs no build step (the
// command, the refresh process and the seed's worker threads start here). kysely and uuid ship
// only ES modules, which tsx would transform one file at a time: 320 files, ~0.5 s of every start.
// Required before tsx is, a Node that can require ES modules (22.12 on) loads them natively, and
// the core's later requires find them loaded; an older one leaves them to tsx.
if (process.features.require_module) {
  require('kysely');
  require('kysely/migration');
  require('uuid');
}
require('tsx/cjs');
