/**
 * A LIST_FULL refusal, readably (docs/design.md, "Lists at their cap"): who holds the list and the
 * commands that free room, printed after the run's outcome. The detail is read leniently: an older
 * service sends only the counts, and then nothing more is printed.
 */
import { z } from "zod";

const detailSchema = z.object({
  list: z.object({ object: z.string(), op: z.string(), name: z.string().optional() }),
  cap: z.number(),
  entries: z.number(),
  /** Set when the cap counts something other than the owners' entries (S3: rules, origins). */
  counts: z.object({ cap: z.string(), owners: z.string() }).optional(),
  scopes: z.array(
    z.object({
      scope: z.string(),
      pullRequest: z.number().nullable(),
      lastRunAt: z.number().nullable(),
      entries: z.number(),
      stale: z.string().nullable(),
    }),
  ),
  /** `stale` null: not read (the service reads only the caller's repository's scopes). */
  otherRepositories: z.object({ scopes: z.number(), entries: z.number(), stale: z.number().nullable() }),
  /** Each repository's share, the caller's named (absent from an older service). */
  repositories: z
    .array(z.object({ name: z.string().nullable(), scopes: z.number(), entries: z.number() }))
    .optional(),
  foreign: z.number(),
  unowned: z.number(),
  freeRoom: z.array(z.string()),
});

const iso = (ms: number | null) => (ms === null ? "-" : new Date(ms).toISOString().replace(/\.\d+Z$/, "Z"));
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
const entriesWord = (n: number) => (n === 1 ? "1 entry" : `${n} entries`);

/** The lines after the outcome; none for any other error. */
export function listFullLines(
  error: { code: string; detail?: Record<string, unknown> } | undefined,
): string[] {
  if (error?.code !== "LIST_FULL") return [];
  const parsed = detailSchema.safeParse(error.detail);
  if (!parsed.success) return [];
  const d = parsed.data;
  const rows = d.scopes.map((s) => [
    s.scope,
    s.pullRequest === null ? "-" : `#${s.pullRequest}`,
    iso(s.lastRunAt),
    String(s.entries),
    s.stale ?? "live",
  ]);
  const list = d.list.name ? `${d.list.op} (${d.list.name})` : d.list.op;
  const [capCounts, ownersCount] = d.counts ? [d.counts.cap, d.counts.owners] : ["entries", "entries"];
  const out = [`  ${list} on ${d.list.object}: ${d.entries} of at most ${d.cap} ${capCounts}`];
  if (rows.length > 0) out.push(...table(["scope", "pull", "last run", ownersCount, "stale"], rows));
  const o = d.otherRepositories;
  if (o.scopes > 0)
    out.push(
      `    other repositories: ${plural(o.scopes, "scope")}, ${entriesWord(o.entries)}${o.stale === null ? "" : ` (${o.stale} stale)`}`,
    );
  // Each repository's share of the list (docs/design.md, "A share of each list").
  if (d.repositories && d.repositories.length > 0)
    out.push(
      `    shares: ${d.repositories
        .map(
          (r) => `${r.name ?? "another repository"} ${entriesWord(r.entries)} (${plural(r.scopes, "scope")})`,
        )
        .join("; ")}`,
    );
  if (d.foreign > 0) out.push(`    foreign (never removed by a scope): ${d.foreign}`);
  if (d.unowned > 0) out.push(`    owned by no scope (an admin's orphan removal): ${d.unowned}`);
  for (const command of d.freeRoom) out.push(`  to free room: ${command}`);
  return out;
}

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const format = (cells: string[]) =>
    `    ${cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd()}`;
  return [format(header), ...rows.map(format)];
}
