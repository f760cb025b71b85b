/**
 * Issue 33: SPONSON_NOTIFY, SPONSON_CLOSE_GRACE_SECONDS and SPONSON_CLOSE_MAX_RESENDS are read
 * with every other setting, so `sponson config check` and `GET /v1/config/status` report a bad
 * value by name (never a secret's value) and the Worker refuses to run with a guess.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { assertConfigValid, configFromEnv } from "../../workers/config/config";
import { checkConfig } from "../../workers/config/config-report";

const NAMES = /^(SPONSON_NOTIFY|SPONSON_CLOSE_GRACE_SECONDS|SPONSON_CLOSE_MAX_RESENDS)/;

function problems(vars: Record<string, unknown>) {
  return checkConfig(vars, { secretsKnown: true }).problems.filter((p) => NAMES.test(p.path));
}

const GOOD_NOTIFY = JSON.stringify({
  webhook: { url: "https://ops.example.com/sponson", secret: "NOTIFY_WEBHOOK_SECRET" },
  kinds: { "orphan-found": false },
});

describe("config check: notification and close-grace vars", () => {
  it("valid or unset values have no problem (control)", () => {
    expect(problems({})).toEqual([]);
    expect(
      problems({
        SPONSON_NOTIFY: GOOD_NOTIFY,
        NOTIFY_WEBHOOK_SECRET: "s3cret-value",
        SPONSON_CLOSE_GRACE_SECONDS: "7200",
        SPONSON_CLOSE_MAX_RESENDS: "0",
      }),
    ).toEqual([]);
  });

  it("each bad value is reported by its name", () => {
    const found = problems({
      SPONSON_NOTIFY: JSON.stringify({
        webhook: { url: "http://ops.example.com", secret: "SERVICE_SIGNING_KEY" },
      }),
      SPONSON_CLOSE_GRACE_SECONDS: "soon",
      SPONSON_CLOSE_MAX_RESENDS: "-1",
    });
    expect(found.map((p) => p.path).sort()).toEqual([
      "SPONSON_CLOSE_GRACE_SECONDS",
      "SPONSON_CLOSE_MAX_RESENDS",
      "SPONSON_NOTIFY.webhook.secret",
      "SPONSON_NOTIFY.webhook.url",
    ]);
    expect(problems({ SPONSON_NOTIFY: "{not json" }).map((p) => p.path)).toEqual(["SPONSON_NOTIFY"]);
  });

  it("a named notification secret that is not set is reported by name, its value never", () => {
    const secret = "hook-secret-value-0123";
    const withSecret = problems({ SPONSON_NOTIFY: GOOD_NOTIFY, NOTIFY_WEBHOOK_SECRET: secret });
    expect(withSecret).toEqual([]);
    const missing = problems({ SPONSON_NOTIFY: GOOD_NOTIFY });
    expect(missing).toEqual([
      { path: "SPONSON_NOTIFY.webhook.secret", message: expect.stringContaining("NOTIFY_WEBHOOK_SECRET") },
    ]);
    const report = JSON.stringify(
      checkConfig({ SPONSON_NOTIFY: GOOD_NOTIFY, NOTIFY_WEBHOOK_SECRET: secret }, { secretsKnown: true }),
    );
    expect(report).not.toContain(secret);
  });

  it("the Worker's config reads them: an invalid one is refused naming the var", () => {
    for (const [name, value] of [
      ["SPONSON_NOTIFY", "[]"],
      ["SPONSON_CLOSE_GRACE_SECONDS", "0"],
      ["SPONSON_CLOSE_MAX_RESENDS", "many"],
    ] as const) {
      const config = configFromEnv({ ...env, [name]: value });
      expect(() => assertConfigValid(config)).toThrow(name);
    }
    expect(() => assertConfigValid(configFromEnv({ ...env, SPONSON_NOTIFY: GOOD_NOTIFY }))).not.toThrow();
  });
});
