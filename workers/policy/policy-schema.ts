/**
 * The server-side write policy (docs/design.md, "Security model"): configuration of the service, never of the
 * plan. Per environment, which parent identities may be written, which items are allowed and, optionally,
 * which ops. Read from the SPONSON_POLICY var (JSON) and validated at load.
 */
import { z } from "zod";
import { SponsonError } from "../../shared/errors";
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
export type WritePolicy = { mode: "enforced"; document: PolicyDocument } | { mode: "open-dev" };

const DENY_ALL: WritePolicy = { mode: "enforced", document: { version: 1, environments: {} } };

let cached: { raw: string; policy: WritePolicy } | undefined;

/**
 * The policy for this Worker's vars. Throws INTERNAL "policy misconfigured" when SPONSON_POLICY is
 * present but not a valid document: the Worker then refuses requests rather than guess.
 */
export function policyFromEnv(env: { SPONSON_POLICY?: unknown; EMULATORS?: unknown }): WritePolicy {
  const raw = env.SPONSON_POLICY;
  if (raw === undefined || raw === null) return env.EMULATORS === "on" ? { mode: "open-dev" } : DENY_ALL;
  const text = typeof raw === "string" ? raw : JSON.stringify(raw);
  if (cached?.raw === text) return cached.policy;
  const policy = parsePolicy(text);
  cached = { raw: text, policy };
  return policy;
}

export function parsePolicy(text: string): WritePolicy {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    console.error("SPONSON_POLICY is not JSON");
    throw new SponsonError("INTERNAL", "policy misconfigured");
  }
  const parsed = policySchema.safeParse(json);
  if (!parsed.success) {
    // Operators read the log; callers get a generic answer.
    console.error("SPONSON_POLICY is invalid", parsed.error.issues);
    throw new SponsonError("INTERNAL", "policy misconfigured");
  }
  return { mode: "enforced", document: parsed.data };
}
