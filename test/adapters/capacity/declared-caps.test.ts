/**
 * Every list op declares its list's cap where the provider documents one, and only there
 * (docs/adapters.md, "Capacity"): the numbers the emulators enforce.
 */
import { describe, expect, it } from "vitest";
import { ADAPTERS } from "../../../workers/adapters";

const DOCUMENTED: Record<string, number> = {
  "auth0.logoutUrl": 100,
  "auth0.webOrigin": 100,
  "entra.redirectUri": 256,
  "cognito.callbackUrl": 100,
  "cognito.logoutUrl": 100,
  "s3.corsOrigin": 100,
  "recaptcha.domain": 250,
  "turnstile.hostname": 10,
};

describe("declared list caps", () => {
  it("each documented cap is declared on its op, and no op declares an undocumented one", () => {
    const declared = Object.fromEntries(
      ADAPTERS.flatMap((a) => a.ops)
        .filter((op) => op.capacity)
        .map((op) => [op.name, op.capacity?.maxEntries]),
    );
    expect(declared).toEqual(DOCUMENTED);
  });

  it("Entra's cap counts every platform and is 100 with personal accounts; 256 and 1024 characters per URI", () => {
    const ops = new Map(ADAPTERS.flatMap((a) => a.ops).map((op) => [op.name, op]));
    expect(ops.get("entra.redirectUri")?.capacity).toMatchObject({
      lower: { maxEntries: 100 },
      maxEntryChars: 256,
    });
    expect(ops.get("cognito.callbackUrl")?.capacity?.maxEntryChars).toBe(1024);
    expect(ops.get("s3.corsOrigin")?.capacity?.maxDocumentBytes).toBe(64 * 1024);
  });
});
