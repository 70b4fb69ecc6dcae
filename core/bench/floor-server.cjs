// The benchmark's floor: a bare node:http server that answers GET /<name> with the bytes of the
// file <dir>/<name> (captured from the real server), so the ratio to it shows what ardesk adds
// over the cost of HTTP itself. Plain JavaScript: no TypeScript loader in the measured process.
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');

const dir = process.argv[2];
const bodies = new Map();
for (const name of fs.readdirSync(dir)) bodies.set(`/${name}`, fs.readFileSync(path.join(dir, name)));

const server = http.createServer((req, res) => {
  const body = bodies.get(req.url);
  if (!body) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`floor listening on http://127.0.0.1:${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
