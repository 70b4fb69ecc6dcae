import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { Hono } from 'hono';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.map': 'application/json',
};

/** Content-Security-Policy for the renderer: only our own origin, no remote code or fonts. */
export const RENDERER_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/** The path with its percent-escapes decoded, or null when an escape is malformed (`/%`, `/%zz`, `/%c0`). */
function decodedPath(path: string): string | null {
  try {
    return decodeURIComponent(path);
  } catch {
    return null;
  }
}

/**
 * Serves the built renderer (electron-vite's out/renderer) at /, with the SPA fallback to
 * index.html. A path that leaves the folder is refused.
 */
export function rendererRoutes(dir: string | null): Hono {
  const app = new Hono();
  const root = dir ? resolve(dir) : null;
  app.get('*', async (c) => {
    if (!root || !existsSync(join(root, 'index.html'))) {
      return c.html('<!doctype html><title>ardesk</title><p>The ardesk renderer is not built. Run <code>npm run build</code>, then reload. The API is at <a href="/api/docs">/api/docs</a>.</p>', 200);
    }
    const path = decodedPath(c.req.path);
    if (path === null) return c.text('Bad request: malformed percent-escape in the path', 400);
    const candidate = normalize(join(root, path));
    const inside = candidate === root || candidate.startsWith(root + sep);
    const file = inside && extname(candidate) && existsSync(candidate) ? candidate : join(root, 'index.html');
    const body = await readFile(file);
    const isIndex = file.endsWith('index.html');
    return c.body(body, 200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'cache-control': isIndex ? 'no-cache' : 'public, max-age=31536000, immutable',
      'content-security-policy': RENDERER_CSP,
      'x-content-type-options': 'nosniff',
    });
  });
  return app;
}
