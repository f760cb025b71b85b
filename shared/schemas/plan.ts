/**
 * Plans (docs/design.md, "Plans and connections"). A plan comes from the pull request and is
 * untrusted: each line names a connection the service's own configuration defines and gives only
 * the item's params. Nothing in a plan chooses a host, a credential or a secret.
 */
import { z } from "zod";

export const PLAN_VERSION = 2;

/** What an old plan (provider blocks with secret references) is told; docs/upgrading.md has the steps. */
export const PLAN_MIGRATION =
  "plans no longer carry provider blocks or secret references: remove `providers`, replace each " +
  'line\'s `provider` with `connection: "<name>"` naming a connection the service defines in ' +
  'SPONSON_CONNECTIONS, and set `version: 2` (docs/upgrading.md, "Plans of version 1")';

const nameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/);

/** Keys an old plan had: present at all, they refuse the plan with the migration message. */
function unknownKeys(removed: string) {
  return (issue: { code?: string; keys?: string[] }) =>
    issue.code === "unrecognized_keys" && issue.keys?.includes(removed) ? PLAN_MIGRATION : undefined;
}

export const lineSchema = z.strictObject(
  {
    id: nameSchema,
    op: z.string().regex(/^[a-z0-9]+\.[A-Za-z0-9]+$/),
    /** A connection of the service's configuration (SPONSON_CONNECTIONS), e.g. `auth0-preview`. */
    connection: nameSchema,
    params: z.record(z.string().max(64), z.string().max(2_000)),
  },
  { error: unknownKeys("provider") },
);
export type Line = z.infer<typeof lineSchema>;

export const MAX_PLAN_LINES = 500;

/**
 * A plan's shape. Two lines with one id are refused too, but by the plan's checks
 * (`duplicateLineIds`), not here: a refusal at the request's boundary would hide every other
 * problem of the plan behind it (docs/design.md, "Run algorithm", step 1: every problem at once).
 */
export const planSchema = z.strictObject(
  {
    /** The plan's JSON Schema, for editors (schemas/plan.schema.json); ignored by the service. */
    $schema: z.string().max(2_000).optional(),
    version: z.literal(PLAN_VERSION, { error: PLAN_MIGRATION }),
    lines: z.array(lineSchema).max(MAX_PLAN_LINES),
  },
  { error: unknownKeys("providers") },
);
export type Plan = z.infer<typeof planSchema>;

/** Each line whose id an earlier line already has: its index, and the first line's. */
export function duplicateLineIds(
  lines: ReadonlyArray<{ id: string }>,
): Array<{ index: number; id: string; first: number }> {
  const seen = new Map<string, number>();
  const out: Array<{ index: number; id: string; first: number }> = [];
  lines.forEach((line, index) => {
    const first = seen.get(line.id);
    if (first === undefined) seen.set(line.id, index);
    else out.push({ index, id: line.id, first });
  });
  return out;
}
