/**
 * A signing-key secret's values are registered secrets (docs/design.md, "Vocabulary"): the whole
 * JSON and every private part of every key, so a log line, receipt or message holding one is
 * redacted or refused.
 */
import type { SecretRegistry } from "../../shared/secrets";

const PRIVATE_PARTS = ["d", "p", "q", "dp", "dq", "qi"] as const;

export function registerKeySecrets(secrets: SecretRegistry, raw: unknown): void {
  if (typeof raw !== "string" || raw.length === 0) return;
  secrets.register(raw);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    // Not JSON: the raw value is registered, and loading it refuses requests anyway.
    return;
  }
  const keys = (parsed as { keys?: unknown })?.keys;
  for (const key of Array.isArray(keys) ? keys : [parsed]) {
    if (typeof key !== "object" || key === null) continue;
    for (const part of PRIVATE_PARTS) {
      const value = (key as Record<string, unknown>)[part];
      if (typeof value === "string" && value.length > 0) secrets.register(value);
    }
  }
}
