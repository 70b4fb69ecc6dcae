/** How far apart two strings are: edits (insert, delete, replace) from one to the other. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length];
}

/**
 * The names nearest to what was typed, best first (at most `limit`): names that contain it, or
 * that it contains, first ("Ledger 1" finds "Generated Ledger 1"), then by edits, ignoring case;
 * names more edits away than half their length are left out.
 */
export function closestNames(typed: string, names: string[], limit = 3): string[] {
  const t = typed.trim().toLowerCase();
  return names
    .map((name) => {
      const n = name.toLowerCase();
      const contains = n.includes(t) || t.includes(n);
      return { name, contains, distance: editDistance(t, n) };
    })
    .filter((c) => c.contains || c.distance <= Math.ceil(Math.max(c.name.length, typed.length) / 2))
    .sort((a, b) => Number(b.contains) - Number(a.contains) || a.distance - b.distance || a.name.localeCompare(b.name))
    .slice(0, limit)
    .map((c) => c.name);
}

/** "; did you mean X?" for the closest of `names`, or nothing. */
export function didYouMean(typed: string, names: string[]): string {
  const close = closestNames(typed, names, 1);
  return close.length ? `; did you mean ${close[0]}?` : '';
}
