/**
 * The few fields of a Vercel webhook the door reads (docs/webhooks.md, "Vercel"); everything else
 * passes through unread, `payload.deployment.meta` above all: its git keys are undocumented and set
 * by whoever deploys (`vercel deploy -m githubPrId=…`), so nothing is decided from them.
 */
import { z } from "zod";

/** Events whose deployment registers: created (its URLs are assigned), then succeeded or ready. */
export const VERCEL_REGISTERING_EVENTS: ReadonlySet<string> = new Set([
  "deployment.created",
  "deployment.succeeded",
  "deployment.ready",
]);

export const vercelEnvelopeSchema = z.looseObject({
  /** "The ID of the webhook delivery": what a duplicate delivery shares. */
  id: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, "not a Vercel event id"),
  type: z.string().regex(/^[a-z][a-z0-9.-]{0,63}$/, "not a Vercel event type"),
  payload: z.looseObject({}),
});

export const vercelDeploymentPayloadSchema = z.looseObject({
  project: z.looseObject({ id: z.string().min(1).max(100) }),
  deployment: z.looseObject({ id: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, "not a deployment id") }),
  /** `production`, `staging`, a custom environment's slug, or null for a preview. */
  target: z.string().max(100).nullable().optional(),
  links: z.looseObject({ deployment: z.string().max(500).optional() }).optional(),
});
export type VercelDeploymentPayload = z.infer<typeof vercelDeploymentPayloadSchema>;

/** The project an unverified body names: only which connection's secret to check it with. */
export function claimedVercelProject(body: Uint8Array): string | null {
  try {
    const parsed = JSON.parse(new TextDecoder().decode(body)) as { payload?: { project?: { id?: unknown } } };
    const id = parsed?.payload?.project?.id;
    return typeof id === "string" && id.length > 0 && id.length <= 100 ? id : null;
  } catch {
    return null;
  }
}

/** The preview target of a connection is Vercel's `null`; others are named as Vercel names them. */
export function vercelTargetName(target: string | null | undefined): string {
  return target === null || target === undefined ? "preview" : target;
}
