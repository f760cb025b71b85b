/**
 * The config report on a list several repositories write (docs/security.md, "Several
 * repositories"; docs/configuration.md, "Shares of a list"): a connection shared by several
 * repositories (`"*"`, or naming two or more) whose capped lists set no `maxEntriesPerRepository`
 * lets one repository fill the list (its scopes are free to make, so `maxEntriesPerScope` bounds
 * nothing): a warning naming the ops and what to set, in `config check` and `GET /v1/config/status`.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ConfigStatus } from "../../shared/schemas/config-status";
import { checkConfig } from "../../workers/config/config-report";
import { call, testApp } from "../helpers/app";
import { auth0, vars } from "../helpers/config-vars";
import { bearer } from "../helpers/tokens";

const ALPHA = { name: "acme/alpha", id: 5151 };
const BETA = { name: "acme/beta", id: 5252 };
const GAMMA = { name: "acme/gamma", id: 5353 };

const shareWarnings = (v: Record<string, unknown>) =>
  checkConfig(v, { secretsKnown: false }).warnings.filter((w) => w.path.endsWith(".capacity"));

describe("config check: a list several repositories share", () => {
  it('a "*" connection with capped lists and no maxEntriesPerRepository: a warning naming each op', () => {
    const warnings = shareWarnings(
      vars([ALPHA, BETA, GAMMA], { "auth0-shared": auth0({ repositories: "*" }) }),
    );
    expect(warnings).toEqual([
      {
        path: "SPONSON_CONNECTIONS.auth0-shared.capacity",
        message: expect.stringMatching(
          /shared by 3 repositories.*auth0\.logoutUrl, auth0\.webOrigin.*maxEntriesPerRepository/,
        ),
      },
    ]);
  });

  it("a connection naming two repositories, one op given a share: the others are still named", () => {
    const warnings = shareWarnings(
      vars([ALPHA, BETA, GAMMA], {
        "auth0-two": auth0({
          repositories: [ALPHA.name, BETA.name],
          capacity: { "auth0.webOrigin": { maxEntriesPerRepository: 30 } },
        }),
      }),
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toMatch(/auth0\.logoutUrl/);
    expect(warnings[0]?.message).not.toMatch(/auth0\.webOrigin/);
  });

  it("controls: every capped op given a share, a connection of one repository, one repository configured", () => {
    const shares = Object.fromEntries(
      ["auth0.logoutUrl", "auth0.webOrigin"].map((op) => [op, { maxEntriesPerRepository: 30 }]),
    );
    expect(
      shareWarnings(vars([ALPHA, BETA], { "auth0-shared": auth0({ repositories: "*", capacity: shares }) })),
    ).toEqual([]);
    expect(
      shareWarnings(
        vars([ALPHA, BETA], {
          "auth0-alpha": auth0({ repositories: [ALPHA.name], parents: ["auth0:acme.us.auth0.com:client:a"] }),
        }),
      ),
    ).toEqual([]);
    expect(shareWarnings(vars([ALPHA], { "auth0-shared": auth0({ repositories: "*" }) }))).toEqual([]);
  });

  it("GET /v1/config/status answers the warning", async () => {
    const bindings = {
      ...env,
      ...vars([ALPHA, BETA], { "auth0-shared": auth0({ repositories: "*" }) }),
    } as typeof env;
    const res = await call(testApp(), "GET", "/v1/config/status", undefined, await bearer("admin"), bindings);
    expect(res.status).toBe(200);
    const status = (await res.json()) as ConfigStatus;
    expect(status.warnings).toContainEqual({
      path: "SPONSON_CONNECTIONS.auth0-shared.capacity",
      message: expect.stringMatching(/maxEntriesPerRepository/),
    });
  });
});
