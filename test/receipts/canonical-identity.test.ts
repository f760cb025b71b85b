/**
 * Canonical parent identities (shared/canonical-identity.ts): spellings of one host are one
 * identity, one lock key and one name typed at the lock API; identities without a host, and ports
 * other than 443, are kept as they are; a receipt an earlier version tagged with the old spelling
 * is still found by the canonical identity's rebuild.
 */
import { describe, expect, it } from "vitest";
import { canonicalHost, canonicalIdentity, identitySpellings } from "../../shared/canonical-identity";
import { parentLockKey, resolveLockName } from "../../shared/lock-keys";
import { SecretRegistry } from "../../shared/secrets";
import { mayName, parentTags } from "../../workers/receipts/parent-tags";

const CANONICAL = "keycloak:kc.acme.com:realm:previews:client:web";
const OLD = "keycloak:kc.acme.com:443:realm:previews:client:web";

describe("canonical identities", () => {
  it("case, a trailing dot and the default port are dropped from the host; nothing else changes", () => {
    expect(canonicalHost("KC.Acme.com.:443")).toBe("kc.acme.com");
    expect(canonicalHost("kc.acme.com:8443")).toBe("kc.acme.com:8443");
    expect(canonicalIdentity(OLD)).toBe(CANONICAL);
    expect(canonicalIdentity("auth0:Acme.US.auth0.com.:client:AbC")).toBe(
      "auth0:acme.us.auth0.com:client:AbC",
    );
    for (const same of [CANONICAL, "keycloak:kc.acme.com:8443:realm:previews:client:web"])
      expect(canonicalIdentity(same)).toBe(same);
    // Not a host: a bucket's or a project's name is never touched (S3 once allowed upper case).
    for (const other of ["s3:MyBucket:cors", "gcs:b:cors", "clerk:instance:ins_1", "supabase:Ref:auth"])
      expect(canonicalIdentity(other)).toBe(other);
  });

  it("every spelling is one lock key, also as a name typed at the lock API", async () => {
    const secrets = new SecretRegistry();
    const key = await parentLockKey(CANONICAL, secrets);
    expect(await parentLockKey(OLD, secrets)).toBe(key);
    expect(await resolveLockName(OLD)).toEqual({ key, identity: CANONICAL });
  });

  it("a receipt tagged with the old spelling may name the canonical identity; another object's may not", () => {
    expect(identitySpellings(CANONICAL)).toEqual([CANONICAL, OLD]);
    expect(mayName(parentTags([OLD]), CANONICAL)).toBe(true);
    expect(mayName(parentTags([CANONICAL]), CANONICAL)).toBe(true);
    expect(mayName(parentTags(["keycloak:other.acme.com:realm:previews:client:web"]), CANONICAL)).toBe(false);
  });
});
