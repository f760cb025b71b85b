/**
 * "Did you mean": the known name nearest a mistyped one, for the CLI's commands, flags and
 * subcommands and for plan ops (the CLI's plan check and the service's refusal alike).
 */

/** Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) (d[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
    }
  return (d[a.length] as number[])[b.length] as number;
}

/**
 * The nearest of `known` to `given`, case aside, when near enough to be a slip (at most a third of
 * its length, at least one edit, at most three); undefined when nothing is.
 */
export function nearest(given: string, known: Iterable<string>): string | undefined {
  const g = given.toLowerCase();
  let best: { name: string; d: number } | undefined;
  for (const name of known) {
    const d = distance(g, name.toLowerCase());
    if (best === undefined || d < best.d) best = { name, d };
  }
  const limit = Math.min(3, Math.max(1, Math.floor(given.length / 3)));
  return best !== undefined && best.d <= limit ? best.name : undefined;
}

/** ` Did you mean "x"?` (with its leading space), or "" when nothing is near. */
export function didYouMean(given: string, known: Iterable<string>): string {
  const name = nearest(given, known);
  return name === undefined ? "" : ` Did you mean "${name}"?`;
}
