/**
 * The one shape of the bucket-CORS ops (GCS, S3, R2): inspect reads the bucket's rules; an edit adds
 * or removes one origin in the rules read (under the parent lease, docs/design.md, "Run algorithm"),
 * a write sends every edit of a run in one request and nothing when the rules already say what the
 * lines want. A provider brings its line
 * params, lease identity, rule shape, and the read/write pair; the rule editing is `cors-origin.ts`.
 */
import { z } from "zod";
import { SponsonError } from "../../../shared/errors";
import type { ConnectionSettings } from "../../connections/connection-schema";
import type { BatchForm, ItemAction, OpContext, OpSpec, Params } from "../op-spec";
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
  /**
   * Sends `edit(seen.rules)` unless it is null. With a precondition, a refused write re-reads and
   * edits again (one item's create or remove), or with `redecide` throws StaleState so the caller
   * decides again from a fresh read (a group's write: docs/design.md, "Lease protocol").
   */
  write(
    ctx: OpContext<Config>,
    bucket: string,
    seen: Seen,
    edit: RulesEdit<R>,
    options?: { redecide: boolean },
  ): Promise<void>;
}

const bucketSchema = z.object({ bucket: z.string() });

export function corsOriginOp<Config, R, Seen extends { rules: R[] }>(
  spec: CorsOriginOpSpec<Config, R, Seen>,
): OpSpec<Config> {
  const parse = (params: Params) => spec.params.parse(params) as CorsLineParams;

  const seenState = (seen: unknown, bucket: string): Seen => {
    const owner = bucketSchema.safeParse(seen);
    const state = spec.seenSchema.safeParse(seen);
    if (!owner.success || owner.data.bucket !== bucket || !state.success) {
      throw new SponsonError(
        "INTERNAL",
        `${spec.name}: a write needs this op's inspection of bucket ${bucket}`,
      );
    }
    return state.data;
  };

  /** The rules with this line's origin added or removed; the same state when already so. */
  const edit = (state: unknown, params: Params, action: ItemAction): unknown => {
    const p = parse(params);
    const seen = seenState(state, p.bucket);
    const access = spec.access(p);
    const has = hasOrigin(seen.rules, p.rule, p.origin, access);
    if (has === (action === "create")) return state;
    const rules = has
      ? withoutOrigin(seen.rules, p.rule, p.origin, access)
      : withOrigin(seen.rules, p.rule, p.origin, access);
    return { ...seen, bucket: p.bucket, rules };
  };

  // One bucket's rules: a run's origins in any of its rules go out in one write.
  const batch: BatchForm<Config> = {
    kind: spec.name,
    read: async (ctx, params) => {
      const { bucket } = parse(params);
      return { bucket, ...(await spec.read(ctx, bucket)) };
    },
    keys(state, params) {
      const p = parse(params);
      const { rules } = seenState(state, p.bucket);
      const at = findRule(rules, p.rule, spec.access(p));
      return at < 0 ? [] : spec.access(p).origins(rules[at] as R);
    },
    // Each rule is its own list of origins: an operator's cap counts each rule (S3's documented
    // cap counts the rules themselves, measured whole: s3/capacity.ts).
    listName: (params) => `rule ${parse(params).rule}`,
    edit,
    async write(ctx, params, state, editAll) {
      const { bucket } = parse(params);
      // A refused precondition is the caller's to decide again (StaleState): the edits were
      // decided from the rules read, and a fresh read may call for other decisions.
      await spec.write(
        ctx,
        bucket,
        seenState(state, bucket),
        (rules) => {
          const next = seenState(editAll({ ...seenState(state, bucket), bucket, rules }), bucket).rules;
          return JSON.stringify(next) === JSON.stringify(rules) ? null : next;
        },
        { redecide: true },
      );
    },
  };

  const writeOne = (ctx: OpContext<Config>, params: Params, state: unknown, action: ItemAction) => {
    const { bucket } = parse(params);
    return spec.write(ctx, bucket, seenState(state, bucket), (rules) => {
      const next = seenState(
        edit({ ...seenState(state, bucket), bucket, rules }, params, action),
        bucket,
      ).rules;
      return JSON.stringify(next) === JSON.stringify(rules) ? null : next;
    });
  };

  return {
    name: spec.name,
    providerType: spec.providerType,
    params: spec.params,
    key: (params) => parse(params).origin,
    itemParam: "origin",
    // `*`: every origin, as the rule's own schema allows (the URL shape check refuses it unless opted out).
    origin: { tokens: ["*"] },
    list: async (ctx, params) => batch.keys(await batch.read(ctx, params), params),
    lockOn: (params, provider) => spec.lockOn(parse(params), provider),
    batch,

    async inspect(ctx, params) {
      const state = await batch.read(ctx, params);
      return { present: batch.keys(state, params).includes(parse(params).origin), state };
    },
    // One item alone: its own edit made again to fresh rules is deciding again for it.
    create: (ctx, params, seen) => writeOne(ctx, params, seen.state, "create"),
    remove: (ctx, params, seen) => writeOne(ctx, params, seen.state, "remove"),
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
