/** The token object's one decision (durable-objects/token-broker.ts): give, claim or wait. */
import { describe, expect, it } from "vitest";
import { decide } from "../../durable-objects/token-broker";

const held = { token: "shared-token-abcdef", refreshAtMs: 1_000, expiresAtMs: 2_000 };

describe("what a caller of the token object is given", () => {
  it("a token before its refresh time is given to everyone", () => {
    expect(decide(held, false, 999)).toBe("token");
    expect(decide(held, true, 999)).toBe("token");
  });

  it("past the refresh time, the first caller claims the exchange", () => {
    expect(decide(held, false, 1_000)).toBe("exchange");
    expect(decide(undefined, false, 0)).toBe("exchange");
  });

  it("while one refreshes, the old token is given until it expires; after that callers wait", () => {
    expect(decide(held, true, 1_500)).toBe("token");
    expect(decide(held, true, 2_000)).toBe("wait");
    expect(decide(undefined, true, 0)).toBe("wait");
  });
});
