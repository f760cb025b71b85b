/**
 * What a new line's item must be beyond its op's params (docs/design.md, "Plans and connections"):
 * an op whose items are origins (`OpSpec.origin`) takes `scheme://host[:port]`, no path and no
 * trailing slash, or one of the provider's own tokens. Providers take `https://x.vercel.app/` in a
 * web-origins list without a word, and no browser's `Origin` ever equals it. Checked where a plan is
 * admitted, by the service (resolve-plan.ts) and the CLI's offline `plan check` alike, so the
 * refusal and its fix read the same (param-problem.ts); never on removal, so an entry written
 * before the check existed can still be removed. Pure.
 */
import { z } from "zod";
import type { OpSpec, OriginItems, Params } from "../../adapters/op-spec";

/** Scheme, `://`, then a host (and port) with nothing after it: no path, query, fragment or user. */
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^\s/?#@,]+$/i;

/** `an origin: scheme://host[:port]` (or the provider's tokens): what a refusal says was expected. */
export function originExpected(origin: OriginItems): string {
  const tokens = origin.tokens ?? [];
  return `an origin: scheme://host[:port]${tokens.map((t) => ` or ${t}`).join("")}`;
}

export function isOrigin(value: string, origin: OriginItems): boolean {
  return ORIGIN.test(value) || (origin.tokens ?? []).includes(value);
}

const admitted = new WeakMap<OpSpec, z.ZodType<Params>>();

/**
 * The params a new line of `op` must meet: the op's own and, for origin items, the origin's shape
 * (after them: a value the op refuses is said once, by the op).
 */
export function admissionParams(op: OpSpec): z.ZodType<Params> {
  const { origin } = op;
  if (origin === undefined) return op.params;
  const known = admitted.get(op);
  if (known) return known;
  const schema = op.params.pipe(
    z.record(z.string(), z.string()).superRefine((params, ctx) => {
      const item = params[op.itemParam];
      if (item !== undefined && !isOrigin(item, origin))
        ctx.addIssue({ code: "custom", path: [op.itemParam], message: originExpected(origin) });
    }),
  );
  admitted.set(op, schema);
  return schema;
}
