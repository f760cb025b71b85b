import { describe, expect, it } from "vitest";
import { SponsonError } from "../../../shared/errors";
import { SecretRegistry } from "../../../shared/secrets";
import { type TokenSource, withAccessToken } from "../../../workers/adapters/http";
import { StepClock } from "../../helpers/clock";

let tenant = 0;
function source(secret = "client-secret-1") {
  tenant += 1;
  const bought: string[] = [];
  const src: TokenSource = {
    endpoint: `https://t${tenant}-${crypto.randomUUID()}.test/oauth/token`,
    clientId: "m2m",
    clientSecret: secret,
    fetchToken: async () => {
      const token = `token-${bought.length + 1}-abcdef`;
      bought.push(token);
      return { accessToken: token, expiresInSeconds: 3_600 };
    },
  };
  return { src, bought };
}

const unauthorized = () =>
  new SponsonError("PROVIDER_ERROR", "x: 401 Invalid token", { provider: "x", status: 401 });

describe("token cache", () => {
  it("reuses a token until shortly before it expires, then buys a new one", async () => {
    const clock = new StepClock();
    const ctx = { clock, secrets: new SecretRegistry() };
    const { src, bought } = source();
    const seen: string[] = [];
    await withAccessToken(ctx, src, async (t) => seen.push(t));
    clock.advance(3_000_000);
    await withAccessToken(ctx, src, async (t) => seen.push(t));
    clock.advance(550_000); // 3550 s: inside the last minute before the 3600 s expiry
    await withAccessToken(ctx, src, async (t) => seen.push(t));
    expect(seen).toEqual(["token-1-abcdef", "token-1-abcdef", "token-2-abcdef"]);
    expect(bought).toHaveLength(2);
    expect(ctx.secrets.redact("Bearer token-1-abcdef")).toBe("Bearer [redacted]");
  });

  it("after a 401, buys a new token once and calls again", async () => {
    const ctx = { clock: new StepClock(), secrets: new SecretRegistry() };
    const { src, bought } = source();
    const seen: string[] = [];
    const result = await withAccessToken(ctx, src, async (t) => {
      seen.push(t);
      if (seen.length === 1) throw unauthorized();
      return "done";
    });
    expect(result).toBe("done");
    expect(seen).toEqual(["token-1-abcdef", "token-2-abcdef"]);
    expect(bought).toHaveLength(2);
  });

  it("a second 401 is the caller's error: no loop", async () => {
    const ctx = { clock: new StepClock(), secrets: new SecretRegistry() };
    const { src, bought } = source();
    let calls = 0;
    await expect(
      withAccessToken(ctx, src, async () => {
        calls += 1;
        throw unauthorized();
      }),
    ).rejects.toMatchObject({ code: "PROVIDER_ERROR" });
    expect(calls).toBe(2);
    expect(bought).toHaveLength(2);
  });

  it("a different secret for the same client does not reuse the cached token", async () => {
    const ctx = { clock: new StepClock(), secrets: new SecretRegistry() };
    const { src } = source("first-secret");
    const seen: string[] = [];
    await withAccessToken(ctx, src, async (t) => seen.push(t));
    let boughtWithSecond = 0;
    const rotated: TokenSource = {
      ...src,
      clientSecret: "second-secret",
      fetchToken: async () => {
        boughtWithSecond += 1;
        return { accessToken: "rotated-token", expiresInSeconds: 3_600 };
      },
    };
    await withAccessToken(ctx, rotated, async (t) => seen.push(t));
    expect(seen).toEqual(["token-1-abcdef", "rotated-token"]);
    expect(boughtWithSecond).toBe(1);
  });
});
