/**
 * What a customer may attach in the portal: a PDF, PNG or JPEG of at most 10 MB, its type read from
 * its first bytes (what the browser or the file name claims is not trusted). Anything else is
 * refused, so nothing that a browser would run as a page is ever kept.
 */
import type { PortalFileType } from '../db/schema';

export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

const SIGNATURES: Array<{ type: PortalFileType; bytes: number[] }> = [
  { type: 'application/pdf', bytes: [0x25, 0x50, 0x44, 0x46, 0x2d] },
  { type: 'image/png', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { type: 'image/jpeg', bytes: [0xff, 0xd8, 0xff] },
];

/** The file's type by its magic bytes, or null when it is none of the three. */
export function sniffUpload(data: Uint8Array): PortalFileType | null {
  return SIGNATURES.find((s) => s.bytes.every((b, i) => data[i] === b))?.type ?? null;
}

/** Why an attachment is refused, in words, or null when it may be kept. */
export function uploadProblem(data: Uint8Array): string | null {
  if (data.byteLength === 0) return 'The file is empty.';
  if (data.byteLength > MAX_UPLOAD_BYTES) return 'The file is larger than 10 MB.';
  if (!sniffUpload(data)) return 'Attach a PDF, PNG or JPEG file.';
  return null;
}

const EXTENSIONS: Record<PortalFileType, string> = { 'application/pdf': 'pdf', 'image/png': 'png', 'image/jpeg': 'jpg' };

/**
 * The name a file is kept and offered under: the customer's name without path or control
 * characters, at most 100 characters, its extension the sniffed type's.
 */
export function safeFileName(name: string, type: PortalFileType): string {
  const base = (name.split(/[\\/]/).pop() ?? '')
    .replace(/[\u0000-\u001f\u007f"<>|:*?]/g, '')
    .replace(/\.[A-Za-z0-9]{1,5}$/, '')
    .trim()
    .slice(0, 90);
  return `${base || 'attachment'}.${EXTENSIONS[type]}`;
}
