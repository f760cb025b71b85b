/**
 * Cloudflare's v4 REST API as every Cloudflare adapter meets it (R2 bucket CORS, Turnstile
 * widgets): bearer API tokens, the `{success, errors: [{code, message}], messages, result}`
 * envelope, and `Retry-After` (seconds) on a 429 only.
 */
import { z } from "zod";
import { type ProviderHttpSpec, secondsResetHeader } from "../http";

export const CLOUDFLARE_API = "https://api.cloudflare.com/client/v4";

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** The HTTP spec of one Cloudflare product, named `provider` in messages. */
export function cloudflareHttp(provider: string): ProviderHttpSpec {
  return {
    provider,
    retryAfterMs: secondsResetHeader("retry-after"),
    describeError(body) {
      const first = (body as { errors?: Array<{ code?: unknown; message?: unknown }> } | null)?.errors?.[0];
      if (!first) return { message: str(body) || undefined };
      return { message: str(first.message), code: first.code === undefined ? undefined : String(first.code) };
    },
  };
}

/** The v4 envelope around `result`. */
export const v4Envelope = <T extends z.ZodType>(result: T) =>
  z.object({
    success: z.boolean(),
    errors: z.array(z.object({ code: z.number(), message: z.string() })),
    result,
  });
