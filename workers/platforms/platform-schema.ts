/**
 * Platform connections (`SPONSON_PLATFORMS`, docs/design.md, "The platform door"): a Vercel project
 * or a Netlify site whose preview deploys register their URLs themselves, with no CI step. Each is
 * bound to exactly one configured repository and one environment, and carries the plan its previews
 * apply; the secrets are named, never given (shared/schemas/secret-name.ts).
 */
import { z } from "zod";
import { isValidEnvironment } from "../../shared/lock-keys";
import { planSchema } from "../../shared/schemas/plan";
import { repositoryNameSchema } from "../../shared/schemas/repository";
import { webhookSecretNameSchema, workerSecretNameSchema } from "../../shared/schemas/secret-name";
import { connectionNameSchema } from "../connections/connection-schema";

export const PLATFORMS = ["vercel", "netlify"] as const;
export type PlatformKind = (typeof PLATFORMS)[number];

const environmentSchema = z.string().refine(isValidEnvironment, "not a valid environment name");

/** Vercel's target of a preview is `null`; a custom environment's is its slug; never production. */
const vercelTargetSchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,62}$/, "preview, or a custom environment's slug")
  .refine((t) => t !== "production", "production deployments never register preview URLs");

/** Netlify's deploy contexts a connection may take (`production` never). */
const netlifyContextSchema = z.enum(["deploy-preview", "branch-deploy"]);

const common = {
  name: connectionNameSchema,
  /** The one configured repository (SPONSON_REPOSITORIES) whose scopes these deploys are. */
  repository: repositoryNameSchema,
  /** The environment its scopes live in; a close destroys it there when SPONSON_ENVIRONMENTS names it. */
  environment: environmentSchema,
  /** The plan every preview deploy applies (platform placeholders: shared/placeholders.ts). */
  plan: planSchema,
  /**
   * Which URL `{previewUrl}` and `{previewHost}` stand for: the stable branch alias (one entry per
   * pull request, whatever it pushes) or each deployment's own URL (replaced at every deploy).
   */
  url: z.enum(["branch", "deployment"]).default("branch"),
  /** The Worker secret the platform signs this connection's events with. */
  webhookSecret: webhookSecretNameSchema,
};

export const vercelPlatformSchema = z.strictObject({
  ...common,
  platform: z.literal("vercel"),
  /** Vercel's project id (`prj_…`): events of other projects find no connection. */
  project: z.string().regex(/^prj_[A-Za-z0-9]{1,64}$/, "a Vercel project id, prj_…"),
  /** The team owning the project (`team_…`), sent as `teamId` on every API call; absent: a personal account. */
  team: z
    .string()
    .regex(/^team_[A-Za-z0-9]{1,64}$/, "a Vercel team id, team_…")
    .optional(),
  /** The Worker secret holding the token that reads the project's deployments (their `gitSource`). */
  apiToken: workerSecretNameSchema(["TOKEN", "SECRET"], "VERCEL_TOKEN_ACME_WEB"),
  /** Targets whose deployments register (`preview` is Vercel's `null` target). */
  targets: z.array(vercelTargetSchema).min(1).max(10).default(["preview"]),
});

export const netlifyPlatformSchema = z.strictObject({
  ...common,
  platform: z.literal("netlify"),
  /** Netlify's site id (a UUID): deploys of other sites find no connection. */
  site: z
    .string()
    .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, "a Netlify site id"),
  /** Deploy contexts that register. */
  contexts: z.array(netlifyContextSchema).min(1).max(2).default(["deploy-preview"]),
});

export const platformConnectionSchema = z.discriminatedUnion("platform", [
  vercelPlatformSchema,
  netlifyPlatformSchema,
]);
export type PlatformConnection = z.infer<typeof platformConnectionSchema>;
export type VercelPlatform = z.infer<typeof vercelPlatformSchema>;
export type NetlifyPlatform = z.infer<typeof netlifyPlatformSchema>;

/** Secrets other doors sign with: never a platform connection's. */
const SHARED_WEBHOOK_SECRETS: readonly string[] = ["GITHUB_WEBHOOK_SECRET"];

const unique = <T>(values: readonly T[]) => new Set(values).size === values.length;
const targetOf = (p: PlatformConnection) => (p.platform === "vercel" ? p.project : p.site);

/**
 * The whole `SPONSON_PLATFORMS` value. A scope's plan has one author: an apply removes what its plan
 * no longer names, so two connections applying into one repository's environment would remove each
 * other's entries at every deploy.
 */
export const platformsConfigSchema = z
  .array(platformConnectionSchema)
  .max(100)
  .refine((all) => unique(all.map((p) => p.name)), "platform connection names must be unique")
  .refine((all) => unique(all.map(targetOf)), "a project or site is connected once")
  .refine(
    (all) =>
      unique(all.map((p) => p.webhookSecret)) &&
      all.every((p) => !SHARED_WEBHOOK_SECRETS.includes(p.webhookSecret)),
    // The unsigned body names the connection whose secret is checked: a secret two connections
    // share lets one site's admins sign events for the other (docs/design.md, "The platform door").
    "each platform connection signs with a secret of its own: not another connection's, nor GITHUB_WEBHOOK_SECRET",
  )
  .refine(
    (all) => unique(all.map((p) => `${p.repository.toLowerCase()}\n${p.environment}`)),
    "one platform connection per repository and environment: each apply removes what its plan does not name",
  );
