/**
 * The name of a Worker secret a setting points at (never its value): a repository's `webhookSecret`,
 * a platform connection's `webhookSecret` and `apiToken`. One rule for every such name, so a name
 * that could not be a secret, or is one of the service's own keys, is refused the same way
 * everywhere.
 */
import { z } from "zod";

/**
 * The service's own keys sign its tokens (docs/design.md, "Signing keys"): no setting may hand one
 * to a sender to verify with, nor to a platform as a bearer token.
 */
const OWN_KEY_PREFIXES = ["SERVICE_", "FEDERATION_"];

/**
 * A Worker secret's name containing `word` (e.g. SECRET), so the Worker registers its value as a
 * secret (workers/wiring/wire.ts: names with SECRET, KEY, TOKEN or PASSWORD) and never logs it.
 */
export function workerSecretNameSchema(words: readonly string[], example: string) {
  return z
    .string()
    .regex(/^[A-Z][A-Z0-9_]{0,63}$/, `a Worker secret name, e.g. ${example}`)
    .refine(
      (name) => !OWN_KEY_PREFIXES.some((prefix) => name.startsWith(prefix)),
      "the service's own keys cannot sign webhooks or act as a token",
    )
    .refine(
      (name) => words.some((word) => name.includes(word)),
      `the secret's name must contain ${words.join(" or ")}`,
    );
}

/** What signs webhook deliveries: a repository's and a platform connection's `webhookSecret`. */
export const webhookSecretNameSchema = workerSecretNameSchema(["SECRET"], "WEBHOOK_SECRET_ACME_WEB");
