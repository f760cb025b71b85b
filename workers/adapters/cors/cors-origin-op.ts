/**
 * The one shape of the bucket-CORS ops (GCS, S3, R2): inspect reads the bucket's rules; create and
 * remove edit one origin in the rules that inspection saw (under the parent lease, docs/design.md, "Run
 * algorithm") and send nothing when the rules already say what the line wants. A provider brings its line
 * params, lease identity, rule shape, and the read/write pair; the rule editing is `cors-origin.ts`.
 */
import { z } from "zod";
import { SponsonError } from "../../../shared/errors";
import type { ConnectionSettings } from "../../connections/connection-schema";
import type { Inspection, OpContext, OpSpec, Params } from "../../engine/op-spec";
import {
  type CorsLineParams,
  findRule,
  hasOrigin,
  type RuleAccess,
  withOrigin,
  withoutOrigin,
} from "./cors-origin";

/** The rules wanted, from the rules given; null when there is nothing to send. */
export type RulesEdit<R> = (rules: R[]) => R[] | null;

export interface CorsOriginOpSpec<Config, R, Seen extends { rules: R[] }> {
  /** e.g. "s3.corsOrigin" */
  name: string;
  providerType: string;
  /** The provider's line params: `corsLineParamsSchema` or a narrowing of it. */
  params: z.ZodType<Params>;
  lockOn(params: CorsLineParams, provider: ConnectionSettings): string;
  access(params: CorsLineParams): RuleAccess<R>;
  /** The bucket's rules, plus whatever a conditional write needs (GCS: the metageneration). */
  read(ctx: OpContext<Config>, bucket: string): Promise<Seen>;
  /** Checks the inspection's state (handed back untyped) is one `read` returned. */
  seenSchema: z.ZodType<Seen>;
  /** Sends `edit(seen.rules)` unless it is null; with a precondition, may re-read and edit again. */
  write(ctx: OpContext<Config>, bucket: string, seen: Seen, edit: RulesEdit<R>): Promise<void>;
}

const bucketSchema = z.object({ bucket: z.string() });

export function corsOriginOp<Config, R, Seen extends { rules: R[] }>(
  spec: CorsOriginOpSpec<Config, R, Seen>,
): OpSpec<Config> {
  const parse = (params: Params) => spec.params.parse(params) as CorsLineParams;

  const seenState = (seen: Inspection, bucket: string): Seen => {
    const owner = bucketSchema.safeParse(seen.state);
    const state = spec.seenSchema.safeParse(seen.state);
    if (!owner.success || owner.data.bucket !== bucket || !state.success) {
      throw new SponsonError(
        "INTERNAL",
        `${spec.name}: a write needs this op's inspection of bucket ${bucket}`,
      );
    }
    return state.data;
  };

  return {
    name: spec.name,
    providerType: spec.providerType,
    params: spec.params,
    key: (params) => parse(params).origin,
    itemParam: "origin",
    async list(ctx, params) {
      const p = parse(params);
      const { rules } = await spec.read(ctx, p.bucket);
      const at = findRule(rules, p.rule, spec.access(p));
      return at < 0 ? [] : spec.access(p).origins(rules[at] as R);
    },
    lockOn: (params, provider) => spec.lockOn(parse(params), provider),

    async inspect(ctx, params) {
      const p = parse(params);
      const seen = await spec.read(ctx, p.bucket);
      return {
        present: hasOrigin(seen.rules, p.rule, p.origin, spec.access(p)),
        state: { bucket: p.bucket, ...seen },
      };
    },

    async create(ctx, params, seen) {
      const p = parse(params);
      const access = spec.access(p);
      await spec.write(ctx, p.bucket, seenState(seen, p.bucket), (rules) =>
        hasOrigin(rules, p.rule, p.origin, access) ? null : withOrigin(rules, p.rule, p.origin, access),
      );
    },

    async remove(ctx, params, seen) {
      const p = parse(params);
      const access = spec.access(p);
      await spec.write(ctx, p.bucket, seenState(seen, p.bucket), (rules) =>
        hasOrigin(rules, p.rule, p.origin, access) ? withoutOrigin(rules, p.rule, p.origin, access) : null,
      );
    },
  };
}

/**
 * For providers whose PUT replaces the whole rule document with no precondition (S3, R2): the
 * parent lease serializes writers, so one write of the edited rules seen is the whole story.
 */
export function unconditionalRules<Ctx, R>(
  read: (ctx: Ctx, bucket: string) => Promise<R[]>,
  write: (ctx: Ctx, bucket: string, rules: R[]) => Promise<void>,
) {
  return {
    read: async (ctx: Ctx, bucket: string) => ({ rules: await read(ctx, bucket) }),
    seenSchema: z.object({ rules: z.array(z.any()) }),
    async write(ctx: Ctx, bucket: string, seen: { rules: R[] }, edit: RulesEdit<R>) {
      const next = edit(seen.rules);
      if (next !== null) await write(ctx, bucket, next);
    },
  };
}
