/** A misconfigured Worker refuses requests (INTERNAL) instead of running with a guess. */
import { beforeAll, describe, expect, it } from "vitest";
import { mintServiceToken } from "../helpers/tokens";
import { type Harness, harness, problem, securityEnv, send } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await harness();
});

describe("misconfiguration", () => {
  it("an invalid SPONSON_POLICY makes every authenticated request answer 500 naming the variable", async () => {
    const env = securityEnv({
      SPONSON_POLICY: JSON.stringify({ version: 1, environments: { preview: {} } }),
    });
    const token = await mintServiceToken({ role: "admin" });
    const res = await send(h.app, "GET", "/v1/locks", { token, env });
    expect(res.status).toBe(500);
    const body = await problem(res);
    expect(body.code).toBe("INTERNAL");
    expect(body.detail).toMatch(/^SPONSON_POLICY is not valid: environments\.preview\.parents: /);
  });

  it("liveness and the OpenAPI document still answer with an invalid policy", async () => {
    const env = securityEnv({ SPONSON_POLICY: "{" });
    expect((await send(h.app, "GET", "/healthz", { env })).status).toBe(200);
    expect((await send(h.app, "GET", "/v1/openapi.json", { env })).status).toBe(200);
  });

  it("an invalid SPONSON_REPOSITORIES answers 500 naming the variable", async () => {
    const env = securityEnv({ SPONSON_REPOSITORIES: JSON.stringify([{ name: "acme/web" }]) });
    const token = await mintServiceToken({ role: "admin" });
    const res = await send(h.app, "GET", "/v1/locks", { token, env });
    expect(res.status).toBe(500);
    expect((await problem(res)).detail).toMatch(/^SPONSON_REPOSITORIES is not valid: 0\.id: /);
  });

  it("a SERVICE_SIGNING_KEY that is not an Ed25519 JWK answers 500 without echoing it", async () => {
    const env = securityEnv({
      SERVICE_SIGNING_KEY: JSON.stringify({ kty: "oct", k: "c2VjcmV0LWtleS12YWx1ZQ" }),
    });
    const token = await mintServiceToken({ role: "admin" });
    const res = await send(h.app, "GET", "/v1/locks", { token, env });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).toContain("SERVICE_SIGNING_KEY is not an Ed25519 JWK");
    expect(text).not.toContain("c2VjcmV0LWtleS12YWx1ZQ");
  });

  it.each([
    ["LEASE_TTL_SECONDS", "abc", 'LEASE_TTL_SECONDS must be a positive number of seconds, got "abc"'],
    ["LEASE_TTL_SECONDS", "-5", 'LEASE_TTL_SECONDS must be a positive number of seconds, got "-5"'],
    ["WAIT_TIMEOUT_SECONDS", "0", 'WAIT_TIMEOUT_SECONDS must be a positive number of seconds, got "0"'],
    ["WAIT_TIMEOUT_SECONDS", " ", 'WAIT_TIMEOUT_SECONDS must be a positive number of seconds, got " "'],
    ["GITHUB_OIDC_ISSUER", "http://issuer.example.com", "GITHUB_OIDC_ISSUER must be an https URL"],
    ["SPONSON_AUDIENCE", 42, 'SPONSON_AUDIENCE must be a non-empty string, got "42"'],
    ["SPONSON_REPOSITORIES", "[", "SPONSON_REPOSITORIES is not JSON"],
    ["SPONSON_ENVIRONMENTS", JSON.stringify(["Not An Env"]), "SPONSON_ENVIRONMENTS is not valid: 0: "],
    ["SPONSON_ENVIRONMENTS", "preview", "SPONSON_ENVIRONMENTS is not JSON"],
    ["SPONSON_POLICY", "{", "SPONSON_POLICY is not JSON"],
    [
      "SPONSON_CONNECTIONS",
      JSON.stringify({ a: { type: "nope", environments: ["preview"] } }),
      "SPONSON_CONNECTIONS is not valid: a: unknown type",
    ],
    ["SERVICE_PUBLIC_KEY", 7, "SERVICE_PUBLIC_KEY must be a non-empty string"],
    ["GITHUB_WEBHOOK_SECRET", 7, "GITHUB_WEBHOOK_SECRET must be a non-empty string"],
  ])("%s=%j answers 500 INTERNAL naming the variable", async (name, value, message) => {
    const env = securityEnv({ [name]: value });
    const token = await mintServiceToken({ role: "admin" });
    const res = await send(h.app, "GET", "/v1/locks", { token, env });
    expect(res.status).toBe(500);
    const body = await problem(res);
    expect(body.code).toBe("INTERNAL");
    expect(body.detail).toContain(message);
  });

  it("a secret var that is invalid is named but never echoed", async () => {
    const env = securityEnv({ GITHUB_WEBHOOK_SECRET: { value: "hunter2-webhook" } });
    const token = await mintServiceToken({ role: "admin" });
    const res = await send(h.app, "GET", "/v1/locks", { token, env });
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain("hunter2-webhook");
  });

  it("liveness still answers with a junk LEASE_TTL_SECONDS", async () => {
    const env = securityEnv({ LEASE_TTL_SECONDS: "abc" });
    expect((await send(h.app, "GET", "/healthz", { env })).status).toBe(200);
  });
});
