/**
 * An adoption without a GitHub token (docs/design.md, "Adopting existing entries"): no pull request
 * is asked about, so every matched entry is taken as an open pull request's — a closed one's too.
 * The service destroys a scope when its pull request's close reaches it; one closed before that
 * never gets that destroy, so the answer says what is adopted into it stays until its scope is
 * destroyed, which removes it.
 */
import { describe, expect, it } from "vitest";
import { adopt, adoptionBody, callbacks, dayOne, PR_PATTERN, prUrl } from "../../helpers/adoption";
import { destroy, testApp } from "../../helpers/app";
import { freshAuth0Domain } from "../../helpers/emulators";

const app = testApp();

describe("adoption without a GitHub token", () => {
  it("adopts a closed pull request's entry as an open one's and warns that nothing destroys its scope by itself; its destroy removes it", async () => {
    const day = await dayOne(freshAuth0Domain("notoken"), { open: 1, closed: 1 });
    const [closed] = day.closed as [number];

    const result = await adopt(app, {
      ...adoptionBody(day, { apply: true, patterns: [PR_PATTERN] }),
      github: undefined,
    });
    expect(result.entries.find((e) => e.key === prUrl(closed))).toMatchObject({
      scope: `pr-${closed}`,
      pullRequest: { state: "unknown" },
      outcome: "adopted",
    });
    expect(result.warnings).toEqual([expect.stringContaining("is never destroyed by itself")]);
    expect(result.warnings[0]).toContain("`sponson destroy`");
    expect(result.warnings[0]).not.toContain("its scope's destroy removes it");

    // The remedy the warning names: the scope's destroy removes what was adopted into it.
    expect((await destroy(app, "preview", `pr-${closed}`)).lines[0]).toMatchObject({
      key: prUrl(closed),
      result: "removed",
    });
    expect(await callbacks(day.domain)).not.toContain(prUrl(closed));
  });
});
