/**
 * Fair use (docs/security.md, "Fair use"): how many distinct provider objects one plan may reach.
 * A preview reads each, an apply locks, reads and writes each; past MAX_PLAN_OBJECTS either is
 * refused before any lock, provider request or token exchange, so one caller cannot make one run
 * hold the lock of, and spend the management-API quota behind, every object the service knows.
 */
import { SponsonError } from "../../../shared/errors";
import { groupKeyOf, itemOfLine } from "./item";
import type { ResolvedLine } from "./resolve-plan";

/** The most distinct provider objects one apply or preview reaches. */
export const MAX_PLAN_OBJECTS = 50;

/**
 * The provider object a line reaches. Lines on one object (same parent, op kind and connection)
 * share one read and one write through the many-items form; other lines reach their own item.
 */
export function objectKeyOf(line: ResolvedLine, index: number): string {
  if (line.op.batch === undefined || line.parent === null) return `line:${index}`;
  return `object:${groupKeyOf(itemOfLine(line))}`;
}

/** Refuses a plan over MAX_PLAN_OBJECTS distinct objects (rule `<action>.object-limit`); pure, before any I/O. */
export function refuseTooManyObjects(lines: readonly ResolvedLine[], action: "apply" | "preview"): void {
  const objects = new Set(lines.map(objectKeyOf)).size;
  if (objects <= MAX_PLAN_OBJECTS) return;
  const verb = action === "apply" ? "writes" : "reads";
  throw new SponsonError(
    "VALIDATION",
    `${action === "apply" ? "an apply" : "a preview"} ${verb} at most ${MAX_PLAN_OBJECTS} distinct provider objects; this plan ${verb} ${objects}: split it`,
    { rule: `${action}.object-limit`, objects, limit: MAX_PLAN_OBJECTS },
  );
}
