import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Hono } from 'hono';

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>ardesk API reference</title>
<link rel="stylesheet" href="/api/docs/swagger-ui.css">
</head>
<body>
<div id="ui"></div>
<script src="/api/docs/swagger-ui-bundle.js"></script>
<script src="/api/docs/init.js"></script>
</body>
</html>`;

const INIT = `window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#ui', deepLinking: true, persistAuthorization: true });`;

/** The API reference at /api/docs, from swagger-ui-dist in our own install: no CDN, works offline. */
export function docsRoutes(): Hono {
  const require = createRequire(__filename);
  const dir = dirname(require.resolve('swagger-ui-dist/package.json'));
  const app = new Hono();
  app.get('/api/docs', (c) => c.html(PAGE));
  app.get('/api/docs/init.js', (c) => c.body(INIT, 200, { 'content-type': 'text/javascript; charset=utf-8' }));
  app.get('/api/docs/:asset', async (c) => {
    const asset = c.req.param('asset');
    const type = ASSETS[asset];
    if (!type) return c.notFound();
    const body = await readFile(join(dir, asset));
    return c.body(body, 200, { 'content-type': type, 'cache-control': 'public, max-age=86400' });
  });
  return app;
}
