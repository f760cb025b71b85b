/** "Did you mean" (shared/did-you-mean.ts): a slip finds its name, a different word finds none. */
import { describe, expect, it } from "vitest";
import { planProblems } from "../../cli/commands/plan-check";
import { didYouMean, nearest } from "../../shared/did-you-mean";
import { ADAPTERS } from "../../workers/adapters";

const OPS = ADAPTERS.flatMap((a) => a.ops.map((op) => op.name));

describe("did you mean", () => {
  it("finds the name a slip was meant to be: a letter left out, swapped, doubled or in capitals", () => {
    expect(nearest("aply", ["apply", "preview", "destroy"])).toBe("apply");
    expect(nearest("lcoks", ["locks", "ledger", "unlock"])).toBe("locks");
    expect(nearest("auth0.callbakUrl", OPS)).toBe("auth0.callbackUrl");
    expect(nearest("Auth0.CallbackURL", OPS)).toBe("auth0.callbackUrl");
  });

  it("control: a different word suggests nothing", () => {
    expect(nearest("deploy", ["apply", "preview", "destroy", "rollback"])).toBeUndefined();
    expect(nearest("auth0.nope", OPS)).toBeUndefined();
    expect(didYouMean("x", ["apply"])).toBe("");
  });

  it("plan check names the op a mistyped one was meant to be", () => {
    const plan = {
      version: 2,
      lines: [
        {
          id: "a",
          op: "auth0.callbakUrl",
          connection: "c",
          params: { client: "app", url: "https://a.example.com" },
        },
      ],
    };
    expect(planProblems(plan)[0]?.message).toContain(
      'unknown op "auth0.callbakUrl". Did you mean "auth0.callbackUrl"?',
    );
  });
});
