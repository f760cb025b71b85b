/** Request bodies of the scope endpoints (docs/api.md, "Routes"). */
import { z } from "zod";
import { MAX_VAR_VALUE_LENGTH, MAX_VARS, SHA_PATTERN, VAR_NAME } from "../placeholders";
import { planSchema } from "./plan";
import { declaredProvenanceSchema } from "./provenance";

export const MAX_WAIT_TIMEOUT_SECONDS = 900;

const waitFields = {
  wait: z.boolean().optional(),
  waitTimeoutSeconds: z.number().int().min(0).max(MAX_WAIT_TIMEOUT_SECONDS).optional(),
  /** Service tokens: where the run comes from, stored as declared (ignored for GitHub tokens). */
  provenance: declaredProvenanceSchema.optional(),
};

/** The commit the run is for, filling `{sha}` and `{shortSha}` (the CLI sends GITHUB_SHA). */
const shaField = {
  sha: z.string().regex(SHA_PATTERN, "a full lowercase commit id (40 or 64 hex)").optional(),
};

/**
 * Values from CI for `{vars.<name>}` in item params, e.g. `{ "url": "https://my-app-git-feat-x.vercel.app" }`
 * (CLI `--var url=…`, the Action's `vars:` input). Each filled item is checked like any other.
 */
export const varsSchema = z
  .record(
    z.string().regex(VAR_NAME, "a var name: a lowercase letter, then up to 31 of a-z 0-9 _"),
    z
      .string()
      .min(1)
      .max(MAX_VAR_VALUE_LENGTH)
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
      .regex(/^[^\u0000-\u001f\u007f]*$/, "no control characters"),
  )
  .refine((vars) => Object.keys(vars).length <= MAX_VARS, `at most ${MAX_VARS} vars`);

const varsField = { vars: varsSchema.optional() };

export const applyBodySchema = z.strictObject({
  plan: planSchema,
  ...shaField,
  ...varsField,
  ...waitFields,
  /** A plan with no lines on a scope that owns entries removes them all: only when this says so. */
  allowEmpty: z.boolean().optional(),
});
export type ApplyBody = z.infer<typeof applyBodySchema>;

export const previewBodySchema = z.strictObject({
  plan: planSchema,
  ...shaField,
  ...varsField,
  provenance: declaredProvenanceSchema.optional(),
});

export const destroyBodySchema = z.strictObject({ ...waitFields });

export const rollbackBodySchema = z.strictObject({
  runId: z.string().min(1).max(100).optional(),
  ...waitFields,
});

export const scopePathSchema = z.object({
  environment: z.string().regex(/^[a-z][a-z0-9-]{0,62}$/),
  scope: z.string().regex(/^(pr-[1-9][0-9]{0,9}|branch-[A-Za-z0-9._/-]{1,200}|main)$/),
});
