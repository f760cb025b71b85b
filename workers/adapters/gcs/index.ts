/**
 * Google Cloud Storage: one origin in one CORS rule of a bucket (DESIGN §1). The only provider with
 * a write precondition: every PATCH carries `ifMetagenerationMatch` from the state read under the
 * parent lease (DESIGN §4, fencing). A 412 means someone wrote in between: re-read and decide again
 * from the fresh state, a bounded number of times; never overwrite.
 *
 * Plan block: `{ "type": "gcs", "serviceAccountKey": { "secret": "GOOGLE_SERVICE_ACCOUNT_KEY" } }`;
 * line params: `{ "bucket": "assets", "rule": "#0", "origin": "https://pr-1.preview.example.com" }`.
 */
import { z } from "zod";
import { SponsonError } from "../../../shared/errors";
import type { Inspection, OpSpec, Params, ProviderAdapter } from "../../engine/op-spec";
import {
  type CorsLineParams,
  hasOrigin,
  type RuleAccess,
  ruleMethods,
  withOrigin,
  withoutOrigin,
} from "../cors/cors-origin";
import { withGoogleToken } from "../firebase/google-auth";
import { type GcsContext, type GcsCorsRule, readBucketCors, writeBucketCors } from "./bucket-api";
import { type GcsConfig, gcsConfigSchema, gcsCorsIdentity, gcsLineParamsSchema } from "./config";

/**
 * Writes attempted before the line fails CONCURRENT_MODIFICATION (each after a 412 and a fresh
 * read). Under the parent lease a 412 only comes from writers outside Sponson; the bound still lets
 * several unlocked writers (the control case of the concurrency journey) all land in turn.
 */
export const GCS_MAX_PRECONDITION_ATTEMPTS = 8;

const parse = (params: Params) => gcsLineParamsSchema.parse(params) as CorsLineParams;
const seenSchema = z.object({ bucket: z.string(), metageneration: z.string(), cors: z.array(z.any()) });

function access(params: CorsLineParams): RuleAccess<GcsCorsRule> {
  return {
    id: () => undefined,
    origins: (rule) => rule.origin ?? [],
    withOrigins: (rule, origin) => ({ ...rule, origin }),
    create: (_id, origin) => ({
      origin: [origin],
      method: ruleMethods(params),
      responseHeader: ["Content-Type"],
      maxAgeSeconds: 3600,
    }),
  };
}

function seenState(seen: Inspection, bucket: string) {
  const state = seenSchema.safeParse(seen.state);
  if (!state.success || state.data.bucket !== bucket) {
    throw new SponsonError(
      "INTERNAL",
      `gcs.corsOrigin: a write needs this op's inspection of bucket ${bucket}`,
    );
  }
  return state.data as { bucket: string; metageneration: string; cors: GcsCorsRule[] };
}

/** Applies `edit` from the seen state; after a 412, from a fresh read, until written or done. */
async function writeWithPrecondition(
  ctx: GcsContext,
  params: CorsLineParams,
  seen: Inspection,
  edit: (rules: GcsCorsRule[]) => GcsCorsRule[] | null,
): Promise<void> {
  let state = seenState(seen, params.bucket);
  for (let attempt = 1; ; attempt += 1) {
    const next = edit(state.cors);
    if (next === null) return;
    const outcome = await writeBucketCors(ctx, params.bucket, state.metageneration, next);
    if (outcome === "written") return;
    if (attempt >= GCS_MAX_PRECONDITION_ATTEMPTS) {
      throw new SponsonError(
        "CONCURRENT_MODIFICATION",
        `gcs: bucket ${params.bucket} kept changing (412 conditionNotMet ${attempt} times); nothing was overwritten`,
        { provider: "gcs", status: 412, attempts: attempt },
      );
    }
    const fresh = await readBucketCors(ctx, params.bucket);
    state = { bucket: params.bucket, ...fresh };
  }
}

const corsOrigin: OpSpec<GcsConfig> = {
  name: "gcs.corsOrigin",
  providerType: "gcs",
  params: gcsLineParamsSchema,
  key: (params) => parse(params).origin,
  lockOn: (params) => gcsCorsIdentity(parse(params).bucket),

  async inspect(ctx, params) {
    const p = parse(params);
    const { metageneration, cors } = await readBucketCors(ctx, p.bucket);
    return {
      present: hasOrigin(cors, p.rule, p.origin, access(p)),
      state: { bucket: p.bucket, metageneration, cors },
    };
  },

  create(ctx, params, seen) {
    const p = parse(params);
    return writeWithPrecondition(ctx, p, seen, (rules) =>
      hasOrigin(rules, p.rule, p.origin, access(p)) ? null : withOrigin(rules, p.rule, p.origin, access(p)),
    );
  },

  remove(ctx, params, seen) {
    const p = parse(params);
    return writeWithPrecondition(ctx, p, seen, (rules) =>
      hasOrigin(rules, p.rule, p.origin, access(p))
        ? withoutOrigin(rules, p.rule, p.origin, access(p))
        : null,
    );
  },
};

const typedAdapter: ProviderAdapter<GcsConfig> = {
  type: "gcs",
  config: gcsConfigSchema,
  // The jwt-bearer token exchange happens here, before any lease is taken (DESIGN §7).
  prepare: (ctx) => withGoogleToken(ctx, "gcs", ctx.config.serviceAccountKey, async () => {}),
  ops: [corsOrigin],
};

export const gcsAdapter: ProviderAdapter = typedAdapter as unknown as ProviderAdapter;
export { gcsCorsIdentity } from "./config";
