/**
 * What both platform routes answer (docs/webhooks.md, "Platforms"): every event they acknowledge is
 * a 202 — accepted (its apply is queued), a duplicate, or ignored with its reason — so a platform
 * that retries on anything else stops retrying; every refusal is a problem with a stable code.
 */
import { z } from "@hono/zod-openapi";
import { SponsonError } from "../../shared/errors";
import type { PlatformKind } from "./platform-schema";

/** Deploy events are a few kilobytes; the same limit as every other body (docs/security.md, "Body limits"). */
export const PLATFORM_EVENT_MAX_BYTES = 1024 * 1024;

export const platformAnswerSchema = z.object({
  platform: z.enum(["vercel", "netlify"]),
  /** `<platform>:<id>`, as deduplicated. */
  event: z.string(),
  connection: z.string().optional(),
  scope: z.string().optional(),
  deployment: z.string().optional(),
  accepted: z.boolean().optional(),
  duplicate: z.boolean().optional(),
  ignored: z.boolean().optional(),
  /** Whether an apply was put on the queue by this delivery. */
  queued: z.boolean().optional(),
  reason: z.string().optional(),
});
export type PlatformAnswer = z.infer<typeof platformAnswerSchema>;

/** One message for missing, malformed and wrong signatures: nothing to probe. */
export function badSignature(): SponsonError {
  return new SponsonError("UNAUTHENTICATED", "the event's signature is missing or does not match");
}

export function unknownTarget(platform: PlatformKind): SponsonError {
  const what = platform === "vercel" ? "Vercel project" : "Netlify site";
  return new SponsonError("NOT_FOUND", `no platform connection for this ${what}`, {
    rule: "platform.unknown",
  });
}

export function parseJsonBody(body: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(body));
  } catch {
    throw new SponsonError("VALIDATION", "the body is not valid UTF-8 JSON");
  }
}

export function shapeRefusal(what: string, issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>) {
  return new SponsonError("VALIDATION", `not a ${what}`, {
    issues: issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message })),
  });
}

/** The Worker secret a connection names, or "" when it is not set (every event then refused). */
export function secretValue(env: Readonly<Record<string, unknown>>, name: string): string {
  const value = env[name];
  if (typeof value === "string" && value !== "") return value;
  console.error(`${name} is not set: its platform events are refused`);
  return "";
}
