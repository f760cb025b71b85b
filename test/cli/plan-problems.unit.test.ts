/**
 * `sponson plan check` (cli/commands/check.ts, `planProblems`): a value that came from CI is shown
 * as it was filled in, with the placeholder it came from and the fix; and one mistake never hides
 * the others (a duplicate line id used to stop the check at the plan's shape).
 */
import { describe, expect, it } from "vitest";
import { planProblems } from "../../cli/commands/plan-check";
import { ADAPTERS } from "../../workers/adapters";

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

/** What a deploy step prints: the preview's URL with a trailing slash. */
const DEPLOY_URL = "https://web-git-feature-x-acme.vercel.app/";
const TRIMMED = "https://web-git-feature-x-acme.vercel.app";

const auth0Line = (id: string, op: string, url: string) => ({
  id,
  op,
  connection: "demo-auth0",
  params: { client: "preview-app", url },
});

describe("a trailing slash from CI", () => {
  /** A new user's plan: the callback under the URL, the logout URL and the web origin the URL itself. */
  const plan = {
    version: 2,
    lines: [
      auth0Line("callback", "auth0.callbackUrl", "{vars.url}/callback"),
      auth0Line("logout", "auth0.logoutUrl", "{vars.url}"),
      auth0Line("origin", "auth0.webOrigin", "{vars.url}"),
    ],
  };

  it("the callback's `//` and the web origin's slash are problems, each saying where it came from and the --var to pass", () => {
    const problems = planProblems(plan, { url: DEPLOY_URL });
    expect(problems.map((p) => p.path)).toEqual([
      "lines.0(callback).params.url",
      "lines.2(origin).params.url",
    ]);
    const [callback, origin] = problems.map((p) => p.message);
    expect(callback).toBe(
      `"${TRIMMED}//callback" (from {vars.url} = "${DEPLOY_URL}") has an empty path segment (\`//\`); ` +
        `remove the trailing slash: "${TRIMMED}/callback" (--var url="${TRIMMED}")`,
    );
    expect(origin).toContain(`(from {vars.url} = "${DEPLOY_URL}") is not an origin: scheme://host[:port]`);
    expect(origin).toContain(`remove the trailing slash: "${TRIMMED}" (--var url="${TRIMMED}")`);
  });

  it("control: the same plan with the slash removed has no problem", () => {
    expect(planProblems(plan, { url: TRIMMED })).toEqual([]);
  });

  it("control: a `//` the plan itself writes is the plan's own choice", () => {
    const own = {
      version: 2,
      lines: [auth0Line("cb", "auth0.callbackUrl", "https://{vars.host}//callback")],
    };
    expect(planProblems(own, { host: "pr-1.preview.example.com" })).toEqual([]);
  });

  it("a web origin with a path: an origin has no path", () => {
    const withPath = { version: 2, lines: [auth0Line("origin", "auth0.webOrigin", `${TRIMMED}/foo`)] };
    const [problem, ...rest] = planProblems(withPath);
    expect(rest).toEqual([]);
    expect(problem?.message).toContain("is not an origin");
    expect(problem?.message).toContain(`an origin has no path: "${TRIMMED}"`);
  });
});

/** Every op whose item is an origin, with a line of it; a new origin op must be added here. */
const ORIGIN_OPS: Record<string, { params: Record<string, string>; item: string }> = {
  "auth0.webOrigin": { params: { client: "preview-app" }, item: "url" },
  "auth0.allowedOrigin": { params: { client: "preview-app" }, item: "url" },
  "keycloak.webOrigin": { params: { client: "preview-app" }, item: "url" },
  "clerk.allowedOrigin": { params: {}, item: "origin" },
  "gcs.corsOrigin": { params: { bucket: "assets", rule: "#0" }, item: "origin" },
  "s3.corsOrigin": { params: { bucket: "assets", rule: "previews" }, item: "origin" },
  "r2.corsOrigin": { params: { bucket: "assets", rule: "previews" }, item: "origin" },
};

describe("every op whose item is an origin checks its shape", () => {
  it("the ops that declare origin items are exactly these", () => {
    const declared = ADAPTERS.flatMap((a) =>
      a.ops.filter((op) => op.origin !== undefined).map((op) => op.name),
    );
    expect(declared.sort()).toEqual(Object.keys(ORIGIN_OPS).sort());
  });

  it.each(Object.entries(ORIGIN_OPS))(
    "%s: a trailing slash from a var is named, with the fix",
    (op, line) => {
      const plan = {
        version: 2,
        lines: [{ id: "o", op, connection: "c", params: { ...line.params, [line.item]: "{vars.url}" } }],
      };
      const [problem, ...rest] = planProblems(plan, { url: DEPLOY_URL });
      expect(rest).toEqual([]);
      expect(problem?.path).toBe(`lines.0(o).params.${line.item}`);
      expect(problem?.message).toMatch(/is not an origin: scheme:\/\/host\[:port\]/);
      expect(problem?.message).toContain(`remove the trailing slash: "${TRIMMED}" (--var url="${TRIMMED}")`);
      // Control: the origin itself is fine.
      expect(planProblems(plan, { url: TRIMMED })).toEqual([]);
    },
  );

  it("Keycloak's `+` (the redirect URIs' origins) is a web origin", () => {
    const plan = { version: 2, lines: [auth0Line("o", "keycloak.webOrigin", "+")] };
    expect(planProblems(plan)).toEqual([]);
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

describe("an item that admits its subdomains (Turnstile's hostnames), offline as in the service", () => {
  const hostnameLine = (hostname: string) => ({
    id: "widget",
    op: "turnstile.hostname",
    connection: "demo-turnstile",
    params: { sitekey: "0x4AAAAAAAsponson-demo", hostname },
  });

  it.each(["vercel.app", "pages.dev", "com"])(
    "%s, a public suffix, is a wildcard over it: refused",
    (host) => {
      const [problem, ...rest] = planProblems({ version: 2, lines: [hostnameLine(host)] });
      expect(rest).toEqual([]);
      expect(problem?.path).toBe("lines.0(widget).params.hostname");
      expect(problem?.message).toMatch(/^urlChecks\.publicSuffixWildcard: .*covers every name under/);
    },
  );

  it("the control: a preview's own host from CI is fine", () => {
    const plan = { version: 2, lines: [hostnameLine("{vars.host}")] };
    expect(planProblems(plan, { host: "web-git-feat-x-acme.vercel.app" })).toEqual([]);
  });
});

describe("the offline URL shape check judges a domain that matches its subdomains as the wildcard it is", () => {
  const recaptchaLine = (domain: string) => ({
    id: "captcha",
    op: "recaptcha.domain",
    connection: "demo-recaptcha",
    params: { project: "sponson-demo", siteKey: "sponson-demo-site-key", domain },
  });

  it("a reCAPTCHA allowed domain from CI that is a public suffix is a problem, with the fix", () => {
    const [problem, ...rest] = planProblems(
      { version: 2, lines: [recaptchaLine("{vars.host}")] },
      {
        host: "vercel.app",
      },
    );
    expect(rest).toEqual([]);
    expect(problem?.path).toBe("lines.0(captcha).params.domain");
    expect(problem?.message).toMatch(/^urlChecks\.publicSuffixWildcard: .*covers every name under/);
  });

  it("control: the deployment's own host is fine", () => {
    expect(
      planProblems(
        { version: 2, lines: [recaptchaLine("{vars.host}")] },
        { host: "my-app-git-x.vercel.app" },
      ),
    ).toEqual([]);
  });

  it("the ops whose items match their subdomains are exactly these", () => {
    const declared = ADAPTERS.flatMap((a) => a.ops.filter((op) => op.coversSubdomains).map((op) => op.name));
    expect(declared.sort()).toEqual(["recaptcha.domain", "turnstile.hostname"]);
  });
});
