/**
 * The message a verified platform deploy event puts on the destroy queue (docs/design.md, "The
 * platform door"): the apply of its connection's plan for one scope, with what the platform vouched
 * for. It is the queue's (internal, trusted) word: the receiver wrote it only after the event's
 * signature, its project and (Vercel) the deployment's `gitSource` checked out. What runs it:
 * workers/queue/platform-apply-consumer.ts.
 */
import { z } from "zod";
import { isValidEnvironment, isValidScope } from "../lock-keys";
import { SHA_PATTERN } from "../placeholders";
import { repositoryIdSchema } from "./repository";

const httpsUrl = z
  .string()
  .max(500)
  .regex(/^https:\/\/[^\s]+$/, "an https:// URL");

export const platformDeploymentSchema = z.object({
  /** The platform's deployment id (Vercel `dpl_…`, Netlify's deploy id). */
  id: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/),
  /** Its creation time as the platform says it (epoch ms): the order of a scope's deploys. */
  createdAt: z.number().int().positive(),
  /** The deployment's own URL. */
  url: httpsUrl,
  /** Its stable branch alias, when the platform names one. */
  branchUrl: httpsUrl.optional(),
  pullRequest: z.number().int().positive().max(9_999_999_999).nullable(),
  branch: z.string().min(1).max(255).nullable(),
  sha: z.string().regex(SHA_PATTERN).nullable(),
  /** The deployment's page on the platform's dashboard, for people. */
  link: httpsUrl.optional(),
});
export type PlatformDeployment = z.infer<typeof platformDeploymentSchema>;

export const queuedPlatformApplySchema = z.object({
  kind: z.literal("platform-apply"),
  platform: z.enum(["vercel", "netlify"]),
  /** The platform connection (SPONSON_PLATFORMS) whose plan is applied. */
  connection: z.string().min(1).max(64),
  /** The Vercel project or Netlify site the event came from. */
  target: z.string().min(1).max(100),
  repositoryId: repositoryIdSchema,
  repositoryName: z.string().min(1).max(201),
  environment: z.string().refine(isValidEnvironment, "not a valid environment name"),
  scope: z.string().refine(isValidScope, "not a valid scope name"),
  /** `<platform>:<event id>`, as the scope-state object deduplicated it. */
  eventId: z.string().min(1).max(120),
  deployment: platformDeploymentSchema,
  /** When the receiver got the event (epoch ms): event received → entries written is measured from it. */
  receivedAt: z.number().int().positive(),
  /** How many times the sweep has re-driven this job out of the dead-letter queue. */
  redrives: z.number().int().nonnegative().optional(),
});
export type QueuedPlatformApply = z.infer<typeof queuedPlatformApplySchema>;

/** Whether a queued body is a platform apply (else it is a destroy, as every body was before). */
export function isPlatformApplyBody(body: unknown): boolean {
  return typeof body === "object" && body !== null && (body as { kind?: unknown }).kind === "platform-apply";
}
