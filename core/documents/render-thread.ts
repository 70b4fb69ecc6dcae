/**
 * Inside a document thread (render.ts): draws each document it is sent, one at a time, and posts
 * the file back (its memory handed over, not copied). The fonts are parsed once per thread.
 */
import { parentPort } from 'node:worker_threads';
import { renderInvoice } from './draw-invoice';
import type { DrawnDocument } from './pdf';
import type { RenderRequest, RenderThreadMessage } from './render';
import { renderStatement } from './draw-statement';

const port = parentPort;
if (!port) throw new Error('render-thread runs as a worker thread');

function draw(request: RenderRequest): Promise<DrawnDocument> {
  // The logo arrives as a plain byte array (a bounded PNG, render.ts); the drawing reads it as a Buffer.
  const logo = request.details.logoData;
  const details = { ...request.details, logoData: logo ? Buffer.from(logo.buffer, logo.byteOffset, logo.byteLength) : null };
  return request.kind === 'invoice' ? renderInvoice(request.data, details, request.today) : renderStatement(request.data, details);
}

/** One document at a time: the shared fonts' glyph caches are reset per document (pdf.ts). */
let queue: Promise<void> = Promise.resolve();

port.on('message', ({ id, request }: { id: number; request: RenderRequest }) => {
  queue = queue
    .then(() => draw(request))
    .then(
      ({ pdf, missing }) => {
        // A small Buffer may sit in Node's shared pool: hand over a copy of its own.
        const own = pdf.byteOffset === 0 && pdf.byteLength === pdf.buffer.byteLength ? pdf : Uint8Array.prototype.slice.call(pdf);
        port.postMessage({ id, pdf: own, missing } satisfies RenderThreadMessage, [own.buffer as ArrayBuffer]);
      },
      (err: unknown) => port.postMessage({ id, error: err instanceof Error ? err.message : String(err) } satisfies RenderThreadMessage),
    );
});
