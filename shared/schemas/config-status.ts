/**
 * `GET /v1/config/status` (admin): which configuration vars are set and valid, which connections
 * lack a Worker secret or name no repository, which environments opt out of a URL shape rule, and every problem with its
 * path. Names only, never a value.
 */
import { z } from "zod";
import { URL_CHECK_RULES } from "../url-shape";

export const configProblemSchema = z.object({ path: z.string(), message: z.string() });

export const configStatusSchema = z.object({
  valid: z.boolean(),
  vars: z.array(z.object({ name: z.string(), set: z.boolean(), valid: z.boolean() })),
  connections: z.array(
    z.object({
      name: z.string(),
      type: z.string(),
      environments: z.array(z.string()),
      /** Who may write through it: repository names, `["*"]` (shared on purpose), or `[]` (names none). */
      repositories: z.array(z.string()),
      missingSecrets: z.array(z.string()),
      /**
       * The provider tenant's budget in force (docs/design.md, "Write budgets"): the connection's
       * own or its provider's documented default (`from`). Absent: the provider documents none.
       */
      budget: z
        .object({
          burst: z.number(),
          perSecond: z.number(),
          counts: z.enum(["calls", "writes"]),
          from: z.string(),
        })
        .optional(),
      valid: z.boolean(),
    }),
  ),
  /** Vercel projects and Netlify sites whose deploys register previews (SPONSON_PLATFORMS). */
  platforms: z.array(
    z.object({
      name: z.string(),
      platform: z.enum(["vercel", "netlify"]),
      /** The Vercel project id or the Netlify site id. */
      target: z.string(),
      repository: z.string(),
      environment: z.string(),
      url: z.enum(["branch", "deployment"]),
      missingSecrets: z.array(z.string()),
      valid: z.boolean(),
    }),
  ),
  /** Environments that turn off rules of the URL shape check (SPONSON_POLICY's `urlChecks`). */
  urlCheckOptOuts: z.array(z.object({ environment: z.string(), rules: z.array(z.enum(URL_CHECK_RULES)) })),
  problems: z.array(configProblemSchema),
  /** Valid but probably unintended, e.g. pull requests granted an environment a close never destroys. */
  warnings: z.array(configProblemSchema),
});
export type ConfigStatus = z.infer<typeof configStatusSchema>;
