/**
 * The jti deny list's records (docs/security.md, "Service tokens"): ids that cannot be stored as a
 * key are refused 400, never a 500, whether an admin names one or a token carries one.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { listRevokedTokens } from "../../workers/auth/revoked-tokens";
import { call, observedApp } from "../helpers/app";
import { mintServiceToken } from "../helpers/tokens";

const { app } = observedApp();

async function recordedWithReason(reason: string): Promise<number> {
  return (await listRevokedTokens(env.RECEIPTS)).filter((r) => r.reason === reason).length;
}

describe("a jti holding a lone surrogate", () => {
  it("an admin's revocation of it is refused 400 VALIDATION naming jti; nothing is recorded", async () => {
    const reason = `probe-${crypto.randomUUID()}`;
    const res = await call(app, "POST", "/v1/tokens/revoked", `{"jti":"x\\ud800","reason":"${reason}"}`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { code: string; issues?: Array<{ path: string }> };
    expect(body.code).toBe("VALIDATION");
    expect(JSON.stringify(body)).toContain("jti");
    expect(await recordedWithReason(reason)).toBe(0);
  });

  it("a token carrying one is refused 401 (its claims are invalid), not a 500", async () => {
    const token = await mintServiceToken({ role: "viewer", jti: "y\ud800" });
    const res = await call(app, "GET", "/v1/locks", undefined, { authorization: `Bearer ${token}` });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe("UNAUTHENTICATED");
  });

  it("control: a well-formed jti with non-ASCII letters is revoked", async () => {
    const jti = `ci-é-${crypto.randomUUID()}`;
    const res = await call(app, "POST", "/v1/tokens/revoked", { jti, reason: "left" });
    expect(res.status).toBe(200);
  });
});
