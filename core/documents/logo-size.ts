/**
 * A logo's stored bound, and the check that a PNG is within it from its header alone: shared by the
 * upload (logo.ts, with the decoder) and the drawing on a document thread (pdf.ts), which loads no
 * decoder.
 */

/** The stored raster's bound: wider than any logo is printed (150 x 56 pt), at 300 dpi and more. */
export const LOGO_BOX = { width: 1200, height: 400 } as const;

/** A PNG's width and height from its IHDR chunk, without decoding anything; null if it is not one. */
export function pngSize(data: Uint8Array): { width: number; height: number } | null {
  if (data.length < 24 || data[0] !== 0x89 || data[1] !== 0x50 || data[2] !== 0x4e || data[3] !== 0x47) return null;
  if (Buffer.from(data.subarray(12, 16)).toString('latin1') !== 'IHDR') return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

/** Whether a PNG already fits the stored bound, so it can be drawn as it is. */
export function isBoundedPng(data: Uint8Array): boolean {
  const size = pngSize(data);
  return size !== null && size.width > 0 && size.height > 0 && size.width <= LOGO_BOX.width && size.height <= LOGO_BOX.height;
}
