/**
 * `sponson plan check` (cli/commands/check.ts, `planProblems`): a value that came from CI is shown
 * as it was filled in, with the placeholder it came from and the fix; and one mistake never hides
 * the others (a duplicate line id used to stop the check at the plan's shape).
 */
import { describe, expect, it } from "vitest";
import { planProblems } from "../../cli/commands/plan-check";

const corsLine = (id: string, origin: string) => ({
  id,
  op: "gcs.corsOrigin",
  connection: "demo-gcs",
  params: { bucket: "sponson-demo-assets", rule: "#1", origin },
});

describe("a value from CI that does not fit", () => {
  it("an origin with a trailing slash (as deploy steps print it) shows the value and says to drop the slash", () => {
    const plan = { version: 2, lines: [corsLine("origin", "{vars.url}")] };
    const [problem, ...rest] = planProblems(plan, { url: "https://x.vercel.app/" });
    expect(rest).toEqual([]);
    expect(problem?.path).toBe("lines.0(origin).params.origin");
    expect(problem?.message).toContain('{vars.url} = "https://x.vercel.app/"');
    expect(problem?.message).toContain("scheme://host[:port]");
    expect(problem?.message).toContain('remove the trailing slash: "https://x.vercel.app"');
    expect(problem?.message).toContain('--var url="https://x.vercel.app"');
  });

  it("a URL where an origin goes: the value after filling, and the origin to write instead", () => {
    const plan = { version: 2, lines: [corsLine("origin", "https://pr-{pr}.preview.example.com/app")] };
    const [problem] = planProblems(plan);
    expect(problem?.message).toContain('"https://pr-1.preview.example.com/app"');
    expect(problem?.message).toContain('{pr} = "1"');
    expect(problem?.message).toContain('"https://pr-1.preview.example.com"');
  });

  it("a domain given as a URL: write the host alone", () => {
    const plan = {
      version: 2,
      lines: [
        {
          id: "domain",
          op: "firebase.authorizedDomain",
          connection: "demo-firebase",
          params: { project: "sponson-demo", domain: "{vars.url}" },
        },
      ],
    };
    const [problem] = planProblems(plan, { url: "https://x.vercel.app/" });
    expect(problem?.message).toContain('"x.vercel.app"');
  });

  it("control: a value that fits has no problem", () => {
    expect(
      planProblems(
        { version: 2, lines: [corsLine("origin", "{vars.url}")] },
        { url: "https://x.vercel.app" },
      ),
    ).toEqual([]);
  });
});

describe("every problem at once, in line order", () => {
  it("a duplicate line id is one problem among the others, not the end of the check", () => {
    const plan = {
      version: 2,
      lines: [
        corsLine("a", "https://a.example.com/"),
        {
          id: "b",
          op: "auth0.callbakUrl",
          connection: "auth0-preview",
          params: { url: "https://b.example.com" },
        },
        corsLine("a", "https://*.vercel.app"),
        {
          id: "d",
          op: "auth0.callbackUrl",
          connection: "auth0-preview",
          params: { client: "x y", url: "https://{branchh}.example.com" },
        },
        corsLine("e", "{vars.missing}"),
        {
          id: "f",
          op: "auth0.callbackUrl",
          connection: "auth0-preview",
          params: { client: "app", url: "ftp://f" },
        },
      ],
    };
    expect(planProblems(plan).map((p) => p.path)).toEqual([
      "lines.0(a).params.origin",
      "lines.1(b).op",
      "lines.2(a).id",
      "lines.2(a).params.origin",
      "lines.3(d).params.url",
      "lines.3(d).params.client",
      "lines.4(e).params.origin",
      "lines.5(f).params.url",
    ]);
  });

  it("a line whose shape is wrong is named, and the lines around it are still checked", () => {
    const plan = {
      version: 2,
      lines: [
        { id: "a", op: "auth0.callbackUrl", params: { client: "app", url: "https://a.example.com" } },
        corsLine("b", "https://b.example.com/"),
      ],
    };
    expect(planProblems(plan).map((p) => p.path)).toEqual([
      "plan.lines.0.connection",
      "lines.1(b).params.origin",
    ]);
  });
});

describe("the offline URL shape check reads the host as a browser does (Node's WHATWG parser)", () => {
  it("a fullwidth host from CI is refused as written otherwise, and judged as *.vercel.app", () => {
    const plan = { version: 2, lines: [corsLine("origin", "{vars.url}")] };
    const messages = planProblems(plan, { url: "https://*.\uff56\uff45\uff52\uff43\uff45\uff4c.app" }).map(
      (p) => p.message,
    );
    expect(messages).toEqual([
      expect.stringMatching(/^urlChecks\.hostAsWritten: .*a browser reads its host as "\*\.vercel\.app"/),
      expect.stringMatching(/^urlChecks\.publicSuffixWildcard: /),
    ]);
  });
});
