/**
 * Registered secrets (docs/design.md, "Vocabulary"): every secret value the Worker resolves for a provider
 * and its own signing keys. Nothing that contains one may be stored, logged or returned.
 */

/** Values shorter than this are not tracked: redacting "1" everywhere would help no one. */
const MIN_SECRET_LENGTH = 6;
export const REDACTED = "[redacted]";

export class SecretRegistry {
  readonly #values = new Set<string>();

  register(value: string | undefined | null): void {
    if (typeof value === "string" && value.length >= MIN_SECRET_LENGTH) this.#values.add(value);
  }

  get size(): number {
    return this.#values.size;
  }

  containsSecret(text: string): boolean {
    for (const value of this.#values) if (text.includes(value)) return true;
    return false;
  }

  redact(text: string): string {
    let out = text;
    // Longest first, so a secret that contains another is replaced whole.
    for (const value of [...this.#values].sort((a, b) => b.length - a.length)) {
      out = out.split(value).join(REDACTED);
    }
    return out;
  }
}
