/** The write policy (docs/design.md, "Security model"): checkWrite, pure, naming the rule that refused. */
import { describe, expect, it } from "vitest";
import { SecretRegistry } from "../../shared/secrets";
import { writePolicy } from "../../workers/config/config-vars";
import { assertWrite, checkWrite, type WriteTarget } from "../../workers/policy/check-write";

const policyFromEnv = writePolicy;
const parsePolicy = (text: string) => writePolicy({ SPONSON_POLICY: text });

const policy = parsePolicy(
  JSON.stringify({
    version: 1,
    environments: {
      preview: {
        parents: ["auth0:acme.us.auth0.com:client:*"],
        items: ["https://*.preview.example.com/*", "https://*.preview.example.com"],
        ops: ["auth0.*"],
      },
    },
  }),
);

const callback: WriteTarget = {
  op: "auth0.callbackUrl",
  identity: "auth0:acme.us.auth0.com:client:abc123",
  item: "https://pr-1.preview.example.com/callback",
};

function ruleOf(result: ReturnType<typeof checkWrite>): unknown {
  return result.ok ? null : result.error.detail?.rule;
}

describe("checkWrite", () => {
  it("allows a callback URL of a preview host on an allowed Auth0 client", () => {
    expect(checkWrite(policy, "preview", callback)).toEqual({ ok: true, value: undefined });
  });

  it("refuses a plan writing to a client outside the policy, naming the parents rule", () => {
    const result = checkWrite(policy, "preview", {
      ...callback,
      identity: "auth0:other.eu.auth0.com:client:abc",
    });
    expect(result.ok).toBe(false);
    expect(ruleOf(result)).toBe("policy.environments.preview.parents");
    if (!result.ok) expect(result.error.code).toBe("FORBIDDEN");
  });

  it("refuses an item outside the allowed patterns, naming the items rule", () => {
    const result = checkWrite(policy, "preview", { ...callback, item: "https://evil.example.net/callback" });
    expect(ruleOf(result)).toBe("policy.environments.preview.items");
  });

  it("refuses an op the environment does not allow", () => {
    expect(ruleOf(checkWrite(policy, "preview", { ...callback, op: "supabase.redirectUrl" }))).toBe(
      "policy.environments.preview.ops",
    );
  });

  it("refuses every write to an environment the policy does not list (fail closed)", () => {
    expect(ruleOf(checkWrite(policy, "production", callback))).toBe("policy.environment");
  });

  it("checks items of lines without a parent object", () => {
    expect(checkWrite(policy, "preview", { ...callback, identity: null }).ok).toBe(true);
    expect(
      checkWrite(policy, "preview", { ...callback, identity: null, item: "https://x.evil.com/" }).ok,
    ).toBe(false);
  });

  it("refuses items with spaces, controls or backslashes whatever the policy", () => {
    const open = policyFromEnv({ EMULATORS: "on" });
    expect(
      ruleOf(checkWrite(open, "preview", { ...callback, item: "https://a.preview.example.com\\@evil.com" })),
    ).toBe("policy.item-syntax");
  });

  it("redacts registered secrets from the refusal", () => {
    const secrets = new SecretRegistry();
    secrets.register("s3cr3t-value");
    const result = checkWrite(
      policy,
      "preview",
      { ...callback, item: "https://x.evil.com/?k=s3cr3t-value" },
      secrets,
    );
    expect(JSON.stringify(result)).not.toContain("s3cr3t-value");
    expect(result.ok).toBe(false);
  });

  it("assertWrite throws FORBIDDEN", () => {
    expect(() => assertWrite(policy, "production", callback)).toThrowError(/no rules for environment/);
  });
});

describe("where the policy comes from", () => {
  it("with no SPONSON_POLICY and EMULATORS=on (local dev), writes are open", () => {
    expect(policyFromEnv({ EMULATORS: "on" })).toEqual({ mode: "open-dev" });
    expect(checkWrite(policyFromEnv({ EMULATORS: "on" }), "anything", callback).ok).toBe(true);
  });

  it("with no SPONSON_POLICY in production, every write is refused", () => {
    expect(ruleOf(checkWrite(policyFromEnv({}), "preview", callback))).toBe("policy.environment");
  });

  it("a configured SPONSON_POLICY is enforced even with EMULATORS=on", () => {
    const enforced = policyFromEnv({
      EMULATORS: "on",
      SPONSON_POLICY: JSON.stringify({ version: 1, environments: {} }),
    });
    expect(checkWrite(enforced, "preview", callback).ok).toBe(false);
  });

  it("an invalid SPONSON_POLICY refuses to load", () => {
    expect(() => parsePolicy("{not json")).toThrowError("SPONSON_POLICY is not JSON");
    expect(() =>
      parsePolicy(JSON.stringify({ version: 1, environments: { preview: { parents: ["a**"], items: [] } } })),
    ).toThrowError(/^SPONSON_POLICY is not valid: environments\.preview\.parents\.0: /);
    expect(() => parsePolicy(JSON.stringify({ version: 2, environments: {} }))).toThrowError(
      /^SPONSON_POLICY is not valid: version: /,
    );
  });
});
