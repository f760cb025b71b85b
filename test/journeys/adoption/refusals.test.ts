/**
 * `POST /v1/adopt` is an admin's (docs/security.md, "Who can do what"): a viewer or ci token is refused 403
 * before anything is read — no provider request, no GitHub request. So is every request whose own
 * content is wrong (a pattern that cannot be read back, a connection the environment may not use,
 * a closed pull request's removal without a way to ask GitHub). The GitHub token is the request's
 * only: it is never stored (receipts, audit trail) and never logged, even when GitHub refuses it.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ADOPTION_AUDIT_PREFIX } from "../../../workers/audit/adoption-audit";
import type { AuditEntry } from "../../../workers/audit/audit-trail";
import { receiptKey } from "../../../workers/receipts/layout";
import { adopt, adoptionBody, callbacks, dayOne, PR_PATTERN } from "../../helpers/adoption";
import { call, observedApp, testApp } from "../../helpers/app";
import { registerConnection } from "../../helpers/connections";
import { emulatorStub, freshAuth0Domain } from "../../helpers/emulators";
import { GITHUB_API_HOST } from "../../helpers/emulators-github";
import { providerWrites } from "../../helpers/engine";
import { TEST_M2M } from "../../helpers/plans";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";
import { bearer } from "../../helpers/tokens";

const githubRequests = async () => (await emulatorStub(GITHUB_API_HOST).stats()).requests;

afterEach(() => {
  vi.restoreAllMocks();
});

describe("who may adopt", () => {
  for (const [role, scopes] of [
    ["viewer", undefined],
    ["ci", ["preview/*"]],
  ] as const) {
    it(`a ${role} token is refused 403 with no outbound request`, async () => {
      const day = await dayOne(freshAuth0Domain(role), { open: 1, closed: 1 });
      const { app, hosts } = observedApp();
      const before = await githubRequests();
      for (const apply of [false, true]) {
        const res = await call(
          app,
          "POST",
          "/v1/adopt",
          adoptionBody(day, { apply }),
          await bearer(role, scopes ? [...scopes] : undefined),
        );
        expect(res.status).toBe(403);
        expect(await res.json()).toMatchObject({ code: "FORBIDDEN", rule: "role.admin" });
      }
      expect(hosts).toEqual([]);
      expect(await githubRequests()).toBe(before);
      expect(await callbacks(day.domain)).toEqual(day.entries);
    });
  }

  it("control: an admin token, same request, reads the provider and GitHub", async () => {
    const day = await dayOne(freshAuth0Domain("admin"), { open: 1, closed: 1 });
    const { app, hosts } = observedApp();
    const res = await call(app, "POST", "/v1/adopt", adoptionBody(day));
    expect(res.status).toBe(200);
    expect(hosts).toContain(day.domain);
    expect(hosts).toContain(GITHUB_API_HOST);
  });
});

describe("requests refused for what they say, before any outbound request", () => {
  const cases: Array<[string, (day: Awaited<ReturnType<typeof dayOne>>) => object, number, string]> = [
    [
      "a pattern with no placeholder naming a pull request",
      (day) => adoptionBody(day, { patterns: ["https://preview.example.com"] }),
      400,
      "VALIDATION",
    ],
    [
      "a pattern with a placeholder that cannot be read back",
      (day) => adoptionBody(day, { patterns: ["https://{shortSha}.preview.example.com"] }),
      400,
      "VALIDATION",
    ],
    [
      "an op the service does not know",
      (day) => adoptionBody(day, { op: "auth0.nothing" }),
      400,
      "VALIDATION",
    ],
    [
      "removeClosed without a GitHub token",
      (day) => ({ ...adoptionBody(day, { removeClosed: true, patterns: [PR_PATTERN] }), github: undefined }),
      400,
      "VALIDATION",
    ],
    [
      "a {branch} pattern without a GitHub token",
      (day) => ({ ...adoptionBody(day), github: undefined }),
      400,
      "VALIDATION",
    ],
    [
      "a connection the environment may not use",
      (day) => {
        const name = registerConnection(`auth0-prod-only-${day.domain}`, {
          type: "auth0",
          environments: ["production"],
          config: { domain: day.domain, clientId: TEST_M2M.clientId },
          secrets: { clientSecret: "AUTH0_CLIENT_SECRET" },
        });
        return adoptionBody(day, { connection: name });
      },
      403,
      "FORBIDDEN",
    ],
    [
      "a connection bound to another repository (an adopted entry is one the scope then writes)",
      (day) => {
        const name = registerConnection(`auth0-other-repo-${day.domain}`, {
          type: "auth0",
          repositories: ["acme/other"],
          config: { domain: day.domain, clientId: TEST_M2M.clientId },
          secrets: { clientSecret: "AUTH0_CLIENT_SECRET" },
        });
        return adoptionBody(day, { connection: name });
      },
      403,
      "CONNECTION_NOT_BOUND",
    ],
  ];
  for (const [what, body, status, code] of cases) {
    it(`${what}: ${status} ${code}`, async () => {
      const day = await dayOne(freshAuth0Domain("refused"), { open: 1, closed: 1 });
      const { app, hosts } = observedApp();
      const before = await githubRequests();
      const res = await call(app, "POST", "/v1/adopt", { ...body(day), apply: true });
      expect(res.status).toBe(status);
      expect(await res.json()).toMatchObject({ code });
      expect(hosts).toEqual([]);
      expect(await githubRequests()).toBe(before);
    });
  }
});

describe("the GitHub token", () => {
  it("is never stored nor logged: not in receipts, the audit trail or any log line", async () => {
    const day = await dayOne(freshAuth0Domain("token"), { open: 2, closed: 2 });
    const logged: string[] = [];
    for (const level of ["log", "warn", "error", "info", "debug"] as const)
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        logged.push(args.map(String).join(" "));
      });
    const result = await adopt(testApp(), adoptionBody(day, { apply: true, removeClosed: true }));
    expect(result.counts).toMatchObject({ adopted: 2, removed: 2 });
    expect(JSON.stringify(result)).not.toContain(day.token);

    // Everything the adoption wrote: each pull request's receipt, and its audit record.
    const audit = await env.RECEIPTS.list({ prefix: ADOPTION_AUDIT_PREFIX });
    const written = [
      ...[...day.open, ...day.closed].map((n) => receiptKey(DEFAULT_REPOSITORY.id, "preview", `pr-${n}`)),
      ...audit.objects.filter((o) => o.key.includes(result.runId)).map((o) => o.key),
    ];
    expect(written.some((k) => k.startsWith(ADOPTION_AUDIT_PREFIX))).toBe(true);
    for (const key of written) {
      const body = await (await env.RECEIPTS.get(key))?.text();
      expect(body, key).toBeDefined();
      expect(body, key).not.toContain(day.token);
    }
    expect(logged.join("\n")).not.toContain(day.token);
  });

  it("refused by GitHub (401 Bad credentials): 502 naming GitHub's answer, nothing written, the token in no answer or log", async () => {
    const day = await dayOne(freshAuth0Domain("badtoken"), { open: 1, closed: 1 });
    const wrong = `${day.token}-revoked`;
    const logged: string[] = [];
    vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
      logged.push(args.map(String).join(" "));
    });
    const writes = await providerWrites(day.domain);
    const res = await call(
      testApp(),
      "POST",
      "/v1/adopt",
      adoptionBody({ ...day, token: wrong }, { apply: true }),
    );
    expect(res.status).toBe(502);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ code: "PROVIDER_ERROR", retriable: false });
    expect(text).toContain("Bad credentials");
    expect(text).not.toContain(wrong);
    expect(logged.join("\n")).not.toContain(wrong);
    expect(await providerWrites(day.domain)).toBe(writes);

    // Audited all the same: started before GitHub was asked, then completed as failed.
    const audit = await call(testApp(), "GET", "/v1/audit?limit=1000");
    const entries = ((await audit.json()) as { entries: AuditEntry[] }).entries;
    const mine = entries.find(
      (e) => e.kind === "adoption" && "connection" in e && e.connection === adoptionBody(day).connection,
    );
    expect(mine).toMatchObject({ kind: "adoption", status: "failed", errorCode: "PROVIDER_ERROR" });
  });
});
