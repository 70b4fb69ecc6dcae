import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';

/**
 * The renderer is served over HTTP at / and answers every client route (/companies/.../invoices/...)
 * with index.html, so its asset URLs must be absolute. electron-vite sets base './' for file://
 * loading in production; this runs after it and puts '/' back.
 */
function absoluteBase(): Plugin {
  return {
    name: 'ardesk-absolute-base',
    enforce: 'post',
    config(config) {
      config.base = '/';
    },
  };
}

// Three bundles: main (Node, the core engine inside), preload (one sandboxed CommonJS file that
// only requires electron) and the renderer (served by the local HTTP server at /).
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      // The intelligence refresh's process (core/intelligence/refresh-process.ts) and the document
      // threads (core/documents/render.ts) are entries of their own.
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'electron/main.ts'),
          'refresh-child': resolve(__dirname, 'core/intelligence/refresh-child.ts'),
          'render-thread': resolve(__dirname, 'core/documents/render-thread.ts'),
          'bank-read-thread': resolve(__dirname, 'core/bank/read-thread.ts'),
          'bank-import-thread': resolve(__dirname, 'core/bank/import-thread.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      // A sandboxed preload cannot require anything but electron: bundle everything else in.
      externalizeDeps: false,
      rollupOptions: {
        input: { index: resolve(__dirname, 'electron/preload.ts') },
        external: ['electron'],
        output: { format: 'cjs', entryFileNames: '[name].js', codeSplitting: false },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'renderer'),
    plugins: [react(), absoluteBase()],
    build: {
      outDir: resolve(__dirname, 'out/renderer'),
      emptyOutDir: true,
      minify: true,
      chunkSizeWarningLimit: 1500,
      rollupOptions: { input: { index: resolve(__dirname, 'renderer/index.html') } },
    },
  },
});
