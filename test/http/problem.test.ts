import { describe, expect, it } from "vitest";
import { SponsonError } from "../../shared/errors";
import { problemOf, problemResponse } from "../../workers/http/problem";

describe("problem details", () => {
  it("a detail field named like a standard member never replaces it", async () => {
    const err = new SponsonError("CONCURRENT_MODIFICATION", "changed", {
      status: "closed",
      code: "x",
      revision: 3,
    });
    const problem = problemOf(err, "/v1/x");
    expect(problem).toMatchObject({
      status: 409,
      code: "CONCURRENT_MODIFICATION",
      revision: 3,
      instance: "/v1/x",
    });
    expect(problemResponse(err).status).toBe(409);
  });
});
