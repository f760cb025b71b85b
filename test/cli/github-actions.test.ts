/**
 * Inside GitHub Actions the CLI fetches the job's OIDC token itself: a stand-in for the runner's
 * token endpoint (node:http on 127.0.0.1) checks the bearer and the audience and answers
 * `{ value }`. The local service cannot trust a fake GitHub issuer, so the value is a service
 * token minted here: what is asserted is the request the CLI made and that it used the answer.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, inject, it } from "vitest";
import { runResultSchema } from "../../shared/schemas/run";
import { EXAMPLE_PLAN, freshPr, mintToken, scratchFile, sponson } from "./helpers";

const REQUEST_TOKEN = "runner-request-token-1234";

interface Seen {
  authorization: string | undefined;
  audience: string | null;
  apiVersion: string | null;
}

let server: Server;
let endpoint: string;
let issued: string;
const seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    seen.push({
      authorization: req.headers.authorization,
      audience: url.searchParams.get("audience"),
      apiVersion: url.searchParams.get("api-version"),
    });
    if (req.headers.authorization !== `bearer ${REQUEST_TOKEN}` || url.pathname !== "/idtoken") {
      res.writeHead(401, { "content-type": "application/json" }).end('{"message":"bad request token"}');
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ value: issued }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("no address");
  // Like the runner's: the URL already carries a query, so the audience is appended with `&`.
  endpoint = `http://127.0.0.1:${address.port}/idtoken?api-version=2.0`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function actionsEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    GITHUB_ACTIONS: "true",
    CI: "true",
    ACTIONS_ID_TOKEN_REQUEST_URL: endpoint,
    ACTIONS_ID_TOKEN_REQUEST_TOKEN: REQUEST_TOKEN,
    ...extra,
  };
}

describe("in GitHub Actions", () => {
  it("`sponson token` fetches the job's OIDC token with the configured audience and prints it, masked in the log", async ({
    expect,
  }) => {
    issued = await mintToken("viewer");
    seen.length = 0;
    const { code, stdout, stderr } = await sponson(
      ["token"],
      actionsEnv({ SPONSON_AUDIENCE: "https://sponson.example" }),
    );
    expect(code).toBe(0);
    expect(stdout).toBe(`${issued}\n`);
    expect(seen).toEqual([
      { authorization: `bearer ${REQUEST_TOKEN}`, audience: "https://sponson.example", apiVersion: "2.0" },
    ]);
    // The runner hides the value in every later log line; the command line itself is not shown.
    expect(stderr).toBe(`::add-mask::${issued}\n`);
  });

  it("--audience wins; without one the audience is the service URL's origin", async ({ expect }) => {
    issued = await mintToken("viewer");
    seen.length = 0;
    await sponson(["token", "--audience", "api://sponson"], actionsEnv({ SPONSON_AUDIENCE: "ignored" }));
    await sponson(["token"], actionsEnv({ SPONSON_URL: "https://sponson.example.com/base/" }));
    expect(seen.map((s) => s.audience)).toEqual(["api://sponson", "https://sponson.example.com"]);
  });

  it("apply uses the fetched token, takes the scope from the pull request ref, and writes the step summary", async ({
    expect,
  }) => {
    const scope = freshPr();
    const n = scope.slice("pr-".length);
    issued = await mintToken("ci", [`preview/${scope}`]);
    seen.length = 0;
    const summary = scratchFile(`actions-${scope}.md`);
    const { code, stdout, stderr } = await sponson(
      ["apply", "--plan", EXAMPLE_PLAN, "--env", "preview", "--json"],
      actionsEnv({
        SPONSON_AUDIENCE: inject("audience"),
        GITHUB_EVENT_NAME: "pull_request",
        GITHUB_REF: `refs/pull/${n}/merge`,
        GITHUB_HEAD_REF: "feature-x",
        GITHUB_STEP_SUMMARY: summary,
      }),
    );
    expect(stderr).not.toContain("sponson:");
    expect(code).toBe(0);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.audience).toBe(inject("audience"));
    const result = runResultSchema.parse(JSON.parse(stdout));
    expect(result.run).toMatchObject({ scope, status: "succeeded" });
    expect(readFileSync(summary, "utf8")).toContain(`### ✅ sponson apply \`preview/${scope}\`: succeeded`);
  });

  it("the fetched token is refused for another pull request's scope: exit 2", async ({ expect }) => {
    issued = await mintToken("ci", ["preview/pr-1"]);
    const { code, stderr } = await sponson(
      ["destroy", "--scope", freshPr()],
      actionsEnv({ SPONSON_AUDIENCE: inject("audience") }),
    );
    expect(code).toBe(2);
    expect(stderr).toContain("sponson: FORBIDDEN");
    // Only the mask command carries the token; no message repeats it.
    const [mask, ...rest] = stderr.split("\n");
    expect(mask).toBe(`::add-mask::${issued}`);
    expect(rest.join("\n")).not.toContain(issued);
  });

  it("SPONSON_TOKEN, when set, is used instead and no OIDC token is requested", async ({ expect }) => {
    const token = await mintToken("viewer");
    seen.length = 0;
    const { code, stdout } = await sponson(["token"], actionsEnv({ SPONSON_TOKEN: token }));
    expect(code).toBe(0);
    expect(stdout).toBe(`${token}\n`);
    expect(seen).toEqual([]);
  });

  it("a refused token request (no `id-token: write`) is an authentication error: exit 2, no token shown", async ({
    expect,
  }) => {
    const { code, stdout, stderr } = await sponson(
      ["locks"],
      actionsEnv({ ACTIONS_ID_TOKEN_REQUEST_TOKEN: "wrong-request-token" }),
    );
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain("answered 401");
    expect(stderr).toContain("id-token: write");
    expect(stderr).not.toContain("wrong-request-token");
  });

  it("in CI, SPONSON_URL must be set: exit 2", async ({ expect }) => {
    issued = await mintToken("viewer");
    const { code, stderr } = await sponson(["locks"], actionsEnv({ SPONSON_URL: undefined }));
    expect(code).toBe(2);
    expect(stderr).toContain("SPONSON_URL is not set");
  });
});

describe("authentication errors", () => {
  it("a token the service does not accept exits 2 with UNAUTHENTICATED", async ({ expect }) => {
    const { code, stderr } = await sponson(["locks"], { SPONSON_TOKEN: "not-a-jwt" });
    expect(code).toBe(2);
    expect(stderr).toMatch(/^sponson: UNAUTHENTICATED: /);
    expect(stderr).not.toContain("not-a-jwt");
  });

  it("`sponson token` outside Actions prints SPONSON_TOKEN", async ({ expect }) => {
    const { code, stdout, stderr } = await sponson(["token"], { SPONSON_TOKEN: "abc.def.ghi" });
    expect(code).toBe(0);
    expect(stdout).toBe("abc.def.ghi\n");
    expect(stderr).toBe("");
  });
});
