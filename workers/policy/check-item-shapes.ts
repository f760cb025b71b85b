/**
 * The preview-URL shape check as the engine asks it (docs/design.md, "Security model"): once per
 * plan, beside the write policy, before any lease and any outbound request, for preview and apply.
 * Every refused line is listed in one answer. Which rules hold in an environment is the service's
 * configuration (SPONSON_POLICY's `urlChecks`); every rule holds unless an environment turns it off.
 */
import { SponsonError } from "../../shared/errors";
import { ALL_URL_CHECKS, type ItemShape, itemShapeProblems, type UrlChecks } from "../../shared/url-shape";
import type { PolicyConfig } from "./policy-schema";

export interface ShapedItem {
  /** The line id. */
  line: string;
  op: string;
  item: string;
  /** What the op's provider makes of the item (a bare domain matching its subdomains). */
  shape?: ItemShape;
}

export interface RefusedItem extends ShapedItem {
  rule: string;
  message: string;
}

/** How many refusals the problem's `detail` text spells out; `refused` lists them all. */
const MAX_SPELLED_OUT = 5;

/** The rules that hold in `environment`: each on unless the environment's policy says `false`. */
export function urlChecksOf(policy: PolicyConfig, environment: string): UrlChecks {
  const own = policy.mode === "enforced" ? policy.document.environments[environment]?.urlChecks : undefined;
  return { ...ALL_URL_CHECKS, ...own };
}

/** Every line's refusals, in plan order (a line breaking both rules appears twice). */
export function refusedItems(items: readonly ShapedItem[], checks: UrlChecks): RefusedItem[] {
  return items.flatMap(({ shape, ...item }) =>
    itemShapeProblems(item.item, checks, shape).map((p) => ({ ...item, rule: p.rule, message: p.message })),
  );
}

/** Throws FORBIDDEN (403) listing every refused line, as the write policy's refusals do. */
export function assertItemShapes(environment: string, items: readonly ShapedItem[], checks: UrlChecks): void {
  const refused = refusedItems(items, checks);
  if (refused.length === 0) return;
  const lines = new Set(refused.map((r) => r.line)).size;
  const spelled = refused.slice(0, MAX_SPELLED_OUT).map((r) => `line "${r.line}": ${r.message}`);
  if (refused.length > MAX_SPELLED_OUT)
    spelled.push(`and ${refused.length - MAX_SPELLED_OUT} more (see refused)`);
  throw new SponsonError(
    "FORBIDDEN",
    `${lines} line${lines === 1 ? "" : "s"} refused by the URL shape check: ${spelled.join("; ")}`,
    { environment, refused },
  );
}
