/** A misconfigured Worker refuses requests (INTERNAL) instead of running with a guess. */
import { beforeAll, describe, expect, it } from "vitest";
import { mintServiceToken } from "../helpers/tokens";
import { type Harness, harness, problem, securityEnv, send } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await harness();
});

describe("misconfiguration", () => {
  it("an invalid SPONSON_POLICY makes every authenticated request answer 500 policy misconfigured", async () => {
    const env = securityEnv({
      SPONSON_POLICY: JSON.stringify({ version: 1, environments: { preview: {} } }),
    });
    const token = await mintServiceToken({ role: "admin" });
    const res = await send(h.app, "GET", "/v1/locks", { token, env });
    expect(res.status).toBe(500);
    const body = await problem(res);
    expect(body.code).toBe("INTERNAL");
    expect(body.detail).toBe("policy misconfigured");
  });

  it("liveness and the OpenAPI document still answer with an invalid policy", async () => {
    const env = securityEnv({ SPONSON_POLICY: "{" });
    expect((await send(h.app, "GET", "/healthz", { env })).status).toBe(200);
    expect((await send(h.app, "GET", "/v1/openapi.json", { env })).status).toBe(200);
  });

  it("an invalid SPONSON_REPOSITORIES answers 500 auth misconfigured", async () => {
    const env = securityEnv({ SPONSON_REPOSITORIES: JSON.stringify([{ name: "acme/web" }]) });
    const token = await mintServiceToken({ role: "admin" });
    const res = await send(h.app, "GET", "/v1/locks", { token, env });
    expect(res.status).toBe(500);
    expect((await problem(res)).detail).toBe("auth misconfigured");
  });

  it("a SERVICE_SIGNING_KEY that is not an Ed25519 JWK answers 500 without echoing it", async () => {
    const env = securityEnv({
      SERVICE_SIGNING_KEY: JSON.stringify({ kty: "oct", k: "c2VjcmV0LWtleS12YWx1ZQ" }),
    });
    const token = await mintServiceToken({ role: "admin" });
    const res = await send(h.app, "GET", "/v1/locks", { token, env });
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain("c2VjcmV0LWtleS12YWx1ZQ");
  });
});
