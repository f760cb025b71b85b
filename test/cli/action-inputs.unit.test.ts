/**
 * The Action's inputs (action.yml) read the way popular Actions read them: booleans through
 * `core.getBooleanInput` (YAML 1.2 core schema: `true`, `True`, `TRUE`, `false`, …), anything else
 * refused naming the input; `vars:` as `name=value` lines with the service's name rule; an `http://`
 * service URL only on loopback. The declared provenance a service token's run carries comes from
 * the runner's GITHUB_* variables.
 */
import { afterEach, describe, it } from "vitest";
import { actionInputs, cliArgs } from "../../action/inputs";
import { parseVars } from "../../action/vars";
import { serviceUrlProblem } from "../../cli/service-url";

const saved = { ...process.env };
afterEach(() => {
  for (const key of Object.keys(process.env)) if (key.startsWith("INPUT_")) delete process.env[key];
  Object.assign(process.env, saved);
});

function withInputs(inputs: Record<string, string>): void {
  process.env.INPUT_URL = "https://sponson.example.com";
  for (const [name, value] of Object.entries(inputs)) process.env[`INPUT_${name.toUpperCase()}`] = value;
}

describe("boolean inputs", () => {
  it.for(["true", "True", "TRUE"])("`wait: %s` waits", (value, { expect }) => {
    withInputs({ wait: value });
    expect(actionInputs().wait).toBe(true);
    expect(cliArgs(actionInputs())).toContain("--wait");
  });

  it.for(["false", "False", "FALSE"])("`comment: %s` turns the comment off", (value, { expect }) => {
    withInputs({ comment: value });
    expect(actionInputs().comment).toBe(false);
  });

  it("unset booleans take action.yml's defaults: no wait, a comment", ({ expect }) => {
    withInputs({});
    expect(actionInputs()).toMatchObject({ wait: false, comment: true });
  });

  it.for(["yes", "1", "on", "ture"])(
    "`wait: %s` is refused, naming the input and the accepted values",
    (value, { expect }) => {
      withInputs({ wait: value });
      expect(() => actionInputs()).toThrow(/wait.*true \| True \| TRUE \| false \| False \| FALSE/s);
    },
  );
});

describe("the service URL", () => {
  it.for([
    "https://sponson.example.com",
    "http://127.0.0.1:8787",
    "http://localhost:8787/",
    "http://[::1]:8787",
  ])("%s is accepted", (url, { expect }) => {
    expect(serviceUrlProblem(url)).toBeNull();
  });

  it.for([
    "http://sponson.example.com",
    "http://127.0.0.1.nip.io:8787",
    "http://localhost.evil.example",
    "http://10.0.0.5:8787",
  ])("%s is refused: a token would cross the network in clear", (url, { expect }) => {
    expect(serviceUrlProblem(url)).toMatch(/https:\/\/.*only on loopback/);
  });

  it.for(["ftp://sponson.example.com", "sponson.example.com"])(
    "%s is not an http(s) URL",
    (url, { expect }) => {
      expect(serviceUrlProblem(url)).toMatch(/not an http\(s\) URL/);
    },
  );

  it("the Action refuses an http:// URL before anything else", ({ expect }) => {
    withInputs({ url: "http://sponson.example.com" });
    expect(() => actionInputs()).toThrow(/url: .*only on loopback/);
  });
});

describe("vars", () => {
  it("name=value lines become the body's vars; blank lines and surrounding spaces are ignored", ({
    expect,
  }) => {
    const vars = parseVars("url=https://my-app-git-feat-x.vercel.app\n\n  branch_slug = feat-x \nq=a=b\n");
    expect(vars).toEqual({
      ok: true,
      vars: { url: "https://my-app-git-feat-x.vercel.app", branch_slug: "feat-x", q: "a=b" },
    });
  });

  it.for([
    ["Url=https://x.example", /line 1: "Url" is not a var name/],
    ["1url=x", /"1url" is not a var name/],
    ["my-url=x", /"my-url" is not a var name/],
    [`${"a".repeat(33)}=x`, /is not a var name/],
    ["url", /line 1: .*name=value/],
    ["=x", /line 1: .*name=value/],
    ["url=", /line 1: "url" has no value/],
    ["url=a\nurl=b", /line 2: "url" is given twice/],
  ])("%j is refused clearly", ([text, message], { expect }) => {
    const parsed = parseVars(text as string);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem).toMatch(message as RegExp);
  });

  it("a 32-character name is the longest accepted", ({ expect }) => {
    expect(parseVars(`a${"b".repeat(31)}=x`).ok).toBe(true);
  });

  it("the Action hands each var to the CLI as --var name=value (apply and preview)", ({ expect }) => {
    withInputs({ vars: "url=https://my-app.example.com\nslug=feat-x" });
    const args = cliArgs(actionInputs());
    expect(args).toEqual(
      expect.arrayContaining(["--var", "url=https://my-app.example.com", "--var", "slug=feat-x"]),
    );
    withInputs({ vars: "url=https://my-app.example.com", command: "destroy" });
    expect(cliArgs(actionInputs())).not.toContain("--var");
  });

  it("a bad var fails the inputs, before any token is asked for", ({ expect }) => {
    withInputs({ vars: "URL=https://x.example" });
    expect(() => actionInputs()).toThrow(/vars line 1: "URL" is not a var name/);
  });
});
