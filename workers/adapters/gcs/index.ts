/**
 * Google Cloud Storage: one origin in one CORS rule of a bucket. The only provider with
 * a write precondition: every PATCH carries `ifMetagenerationMatch` from the state read under the
 * parent lease (docs/design.md, "Lease protocol", fencing). A 412 means someone wrote in between: re-read and
 * decide again from the fresh state, a bounded number of times; never overwrite.
 *
 * Plan block: `{ "type": "gcs", "serviceAccountKey": { "secret": "GOOGLE_SERVICE_ACCOUNT_KEY" } }`;
 * line params: `{ "bucket": "assets", "rule": "#0", "origin": "https://pr-1.preview.example.com" }`.
 * Keyless: `federated: { audience, serviceAccount }` instead of the key (../firebase/google-credentials.ts).
 */
import { z } from "zod";
import { SponsonError } from "../../../shared/errors";
import { GCS_BUDGET } from "../budgets";
import { ruleMethods } from "../cors/cors-origin";
import { corsOriginOp, type RulesEdit } from "../cors/cors-origin-op";
import { withGoogleToken } from "../firebase/google-credentials";
import { defineAdapter, type OpContext, type ProviderAdapter } from "../op-spec";
import { MAX_DECIDE_ATTEMPTS, StaleState } from "../stale-state";
import { type GcsCorsRule, readBucketCors, writeBucketCors } from "./bucket-api";
import { type GcsConfig, gcsConfigSchema, gcsCorsIdentity, gcsLineParamsSchema } from "./config";

/**
 * Writes attempted before the line fails CONCURRENT_MODIFICATION (each after a 412 and a fresh
 * read). Under the parent lease a 412 only comes from writers outside Sponson; the bound still lets
 * several unlocked writers (the control case of the concurrency journey) all land in turn. A
 * group's write is decided again by the engine (StaleState) under the same bound.
 */
export const GCS_MAX_PRECONDITION_ATTEMPTS = MAX_DECIDE_ATTEMPTS;

/** The rules as read, with the metageneration a write sends back as its precondition. */
const seenSchema = z.object({ metageneration: z.string(), rules: z.array(z.any()) });
type SeenCors = { metageneration: string; rules: GcsCorsRule[] };

async function readSeen(ctx: OpContext<GcsConfig>, bucket: string): Promise<SeenCors> {
  const { metageneration, cors } = await readBucketCors(ctx, bucket);
  return { metageneration, rules: cors };
}

/** Applies `edit` from the seen state; after a 412, from a fresh read, until written or done. */
async function writeWithPrecondition(
  ctx: OpContext<GcsConfig>,
  bucket: string,
  seen: SeenCors,
  edit: RulesEdit<GcsCorsRule>,
  options: { redecide: boolean } = { redecide: false },
): Promise<void> {
  let state = seen;
  for (let attempt = 1; ; attempt += 1) {
    const next = edit(state.rules);
    if (next === null) return;
    const outcome = await writeBucketCors(ctx, bucket, state.metageneration, next);
    if (outcome === "written") return;
    if (options.redecide) throw new StaleState({ provider: "gcs", status: 412, bucket });
    if (attempt >= GCS_MAX_PRECONDITION_ATTEMPTS) {
      throw new SponsonError(
        "CONCURRENT_MODIFICATION",
        `gcs: bucket ${bucket} kept changing (412 conditionNotMet ${attempt} times); nothing was overwritten`,
        { provider: "gcs", status: 412, attempts: attempt },
      );
    }
    state = await readSeen(ctx, bucket);
  }
}

const corsOrigin = corsOriginOp<GcsConfig, GcsCorsRule, SeenCors>({
  name: "gcs.corsOrigin",
  providerType: "gcs",
  params: gcsLineParamsSchema,
  lockOn: (p) => gcsCorsIdentity(p.bucket),
  access: (p) => ({
    id: () => undefined,
    origins: (rule) => rule.origin ?? [],
    withOrigins: (rule, origin) => ({ ...rule, origin }),
    create: (_id, origin) => ({
      origin: [origin],
      method: ruleMethods(p),
      responseHeader: ["Content-Type"],
      maxAgeSeconds: 3600,
    }),
  }),
  read: readSeen,
  seenSchema,
  write: writeWithPrecondition,
});

const typedAdapter: ProviderAdapter<GcsConfig> = {
  type: "gcs",
  config: gcsConfigSchema,
  // The jwt-bearer token exchange happens here, before any lease is taken (docs/design.md, "Lease protocol").
  prepare: (ctx) => withGoogleToken(ctx, "gcs", ctx.config, async () => {}),
  budget: GCS_BUDGET,
  ops: [corsOrigin],
};

export const gcsAdapter: ProviderAdapter = defineAdapter(typedAdapter);
export { gcsCorsIdentity } from "./config";
