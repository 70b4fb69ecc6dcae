/** Optional free text as stored: trimmed, and null when nothing but blanks was given. */
export function blankToNull(value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

const UNTYPEABLE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Text a person could have typed: no NUL (it ends strings in C libraries, CSV readers and LIKE
 * patterns) and no unpaired UTF-16 surrogate (SQLite would store U+FFFD instead, so what was
 * stored would differ from what was sent).
 */
export function isTypeableText(value: string): boolean {
  return !UNTYPEABLE.test(value);
}

/** Text placed into an HTML email body: the five characters HTML gives a meaning escaped. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] as string);
}
