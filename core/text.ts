/** Optional free text as stored: trimmed, and null when nothing but blanks was given. */
export function blankToNull(value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}
