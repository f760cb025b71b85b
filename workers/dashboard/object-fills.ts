/**
 * The object page's capacity rows (docs/design.md, "Fill levels"):
 * each capped list on the object, as the lock's last recorded fill left it, or "not measured yet"
 * for a capped list the lock has no fill for (written before its cap was set, or by a run that died
 * before its release), with each repository's share of it. Counts only: never an entry, a scope or
 * a secret. Pure.
 */
import { type FillShare, fillPercent, fillShare } from "../../shared/fill-share";
import { type FillLevel, listId } from "../../shared/schemas/fill-level";

/** `list`: which of the op's lists on the object, when it has several (a bucket's CORS rules). */
export type FillRow =
  | { op: string; level: "unmeasured" }
  | {
      op: string;
      list?: string;
      level: FillShare;
      entries: number;
      cap: number;
      percent: number;
      at: number;
      /**
       * Each repository's share of the list, largest first (docs/design.md, "A share of each
       * list"); `name` null: another repository than a repository-bound caller's.
       */
      repositories?: Array<{ name: string | null; entries: number }>;
    };

/**
 * `fills`: what the lock recorded; `cappedOps`: the object's lists that have a cap now (documented
 * or configured). A recorded fill is shown even when its cap has since been lifted: it is what the
 * last write saw, and its date says so.
 */
export function fillRows(fills: readonly FillLevel[], cappedOps: readonly string[]): FillRow[] {
  const rows: FillRow[] = fills.map((f) => ({
    op: f.op,
    ...(f.list !== undefined ? { list: f.list } : {}),
    level: fillShare(f),
    entries: f.entries,
    cap: f.cap,
    percent: fillPercent(f),
    at: f.at,
    ...(f.repositories
      ? {
          repositories: f.repositories.map((r) => ({
            name: r.id === null ? null : (r.name ?? `#${r.id}`),
            entries: r.entries,
          })),
        }
      : {}),
  }));
  // An op with several lists is measured once any of them is: the others are named by a write.
  const measured = new Set(fills.map((f) => f.op));
  for (const op of new Set(cappedOps)) if (!measured.has(op)) rows.push({ op, level: "unmeasured" });
  const id = (r: FillRow) => listId("list" in r ? r : { op: r.op });
  return rows.sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0));
}
