/** Request bodies of the scope endpoints (README, "HTTP API (v1)"). */
import { z } from "zod";
import { SHA_PATTERN } from "../placeholders";
import { planSchema } from "./plan";

export const MAX_WAIT_TIMEOUT_SECONDS = 900;

const waitFields = {
  wait: z.boolean().optional(),
  waitTimeoutSeconds: z.number().int().min(0).max(MAX_WAIT_TIMEOUT_SECONDS).optional(),
};

/** The commit the run is for, filling `{sha}` and `{shortSha}` (the CLI sends GITHUB_SHA). */
const shaField = {
  sha: z.string().regex(SHA_PATTERN, "a full lowercase commit id (40 or 64 hex)").optional(),
};

export const applyBodySchema = z.strictObject({
  plan: planSchema,
  ...shaField,
  ...waitFields,
  /** A plan with no lines on a scope that owns entries removes them all: only when this says so. */
  allowEmpty: z.boolean().optional(),
});
export type ApplyBody = z.infer<typeof applyBodySchema>;

export const previewBodySchema = z.strictObject({ plan: planSchema, ...shaField });

export const destroyBodySchema = z.strictObject({ ...waitFields });

export const rollbackBodySchema = z.strictObject({
  runId: z.string().min(1).max(100).optional(),
  ...waitFields,
});

export const scopePathSchema = z.object({
  environment: z.string().regex(/^[a-z][a-z0-9-]{0,62}$/),
  scope: z.string().regex(/^(pr-[1-9][0-9]{0,9}|branch-[A-Za-z0-9._/-]{1,200}|main)$/),
});
