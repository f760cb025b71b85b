/**
 * The fleet's token never leaves the Worker's memory (docs/design.md, "Provider tokens"; "Security
 * model"): after runs on fresh isolates that share it through the token object, no answer, receipt,
 * lock record or log line holds the token, and the exchange still happened before any lease.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { apply, call, testApp } from "../helpers/app";
import { freshAuth0Domain } from "../helpers/emulators";
import { freshPr, receipt } from "../helpers/engine";
import { previewPlan, seedTenant } from "../helpers/plans";

afterEach(() => vi.restoreAllMocks());

describe("the shared token and what the service keeps", () => {
  it("two runs on fresh isolates share one token, and no answer, receipt, lock record or log shows it", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const logged: string[] = [];
    for (const level of ["log", "info", "warn", "error", "debug"] as const)
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        logged.push(args.map(String).join(" "));
      });
    const tokens: string[] = [];
    const app = testApp({
      engine: {
        isolateTokenCache: false,
        wrapFetch: (inner) => async (input, init) => {
          const response = await inner(input, init);
          if (new URL(new Request(input, init).url).pathname === "/oauth/token")
            tokens.push(((await response.clone().json()) as { access_token: string }).access_token);
          return response;
        },
      },
    });
    const plan = previewPlan(domain);
    const scopes = [freshPr(), freshPr()];
    const seen: string[] = [];
    for (const scope of scopes) seen.push(JSON.stringify(await apply(app, "preview", scope, plan)));
    expect(tokens).toHaveLength(1);
    for (const scope of scopes) {
      seen.push(JSON.stringify(await receipt("preview", scope)));
      seen.push(await (await call(app, "GET", `/v1/scopes/preview/${scope}/ledger`)).text());
    }
    seen.push(await (await call(app, "GET", "/v1/locks")).text());
    for (const object of (await env.RECEIPTS.list()).objects)
      seen.push((await (await env.RECEIPTS.get(object.key))?.text()) ?? "");
    // Control: what was searched holds what the runs wrote.
    expect(seen.join("\n")).toContain(`https://${scopes[1]}.preview.example.com/callback`);
    const token = tokens[0] as string;
    for (const text of [...seen, ...logged]) expect(text).not.toContain(token);
  });
});
