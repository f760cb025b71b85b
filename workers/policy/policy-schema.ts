/**
 * The server-side write policy (docs/design.md, "Security model"): configuration of the service, never of the
 * plan. Per environment, which parent identities may be written, which items are allowed and, optionally,
 * which ops. Read from the SPONSON_POLICY var (JSON) by the Worker's config (workers/config/).
 */
import { z } from "zod";
import { patternProblem } from "./glob";

const patternSchema = z
  .string()
  .max(512)
  .superRefine((pattern, ctx) => {
    const problem = patternProblem(pattern);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

export const environmentPolicySchema = z.strictObject({
  /** Parent identity patterns that may be written, e.g. `auth0:acme.us.auth0.com:client:*`. */
  parents: z.array(patternSchema).max(200),
  /** Item patterns that may be written, e.g. `https://*.preview.example.com/*`. */
  items: z.array(patternSchema).max(200),
  /** Op patterns (e.g. `auth0.*`); absent means any op. */
  ops: z.array(patternSchema).max(200).optional(),
  /**
   * The preview-URL shape check's rules (shared/url-shape.ts), each on unless set to `false` here:
   * an opt-out for this environment only, listed by `config check`.
   */
  urlChecks: z
    .strictObject({
      /** `false`: items whose wildcard covers a public suffix (`https://*.vercel.app/*`) are allowed. */
      publicSuffixWildcard: z.boolean().optional(),
      /** `false`: `http://` items other than loopback are allowed. */
      plainHttp: z.boolean().optional(),
    })
    .optional(),
});
export type EnvironmentPolicy = z.infer<typeof environmentPolicySchema>;

export const policySchema = z.strictObject({
  version: z.literal(1),
  environments: z.record(z.string().regex(/^[a-z][a-z0-9-]{0,62}$/), environmentPolicySchema),
});
export type PolicyDocument = z.infer<typeof policySchema>;

/**
 * `enforced`: the document decides; an environment it does not list is denied every write (fail
 * closed). `open-dev`: only when SPONSON_POLICY is absent entirely and EMULATORS=on (tests, `npm
 * start`), every write is allowed — the emulated providers are the only thing to write to.
 */
export type PolicyConfig = { mode: "enforced"; document: PolicyDocument } | { mode: "open-dev" };
