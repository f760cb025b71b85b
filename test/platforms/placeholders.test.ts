/**
 * Platform placeholders (docs/design.md, "The platform door"): `{previewUrl}`, `{deploymentHost}`…
 * have values only in a platform connection's plan, and like vars fill only a line's item param.
 */
import { describe, expect, it } from "vitest";
import { SponsonError } from "../../shared/errors";
import { freshAuth0Domain } from "../helpers/emulators";
import { auth0Connection, seedTenant } from "../helpers/plans";
import { scopeAddress } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";

const platform = {
  deploymentUrl: "https://web-abc123-acme.vercel.app",
  deploymentHost: "web-abc123-acme.vercel.app",
  previewUrl: "https://web-git-topic-acme.vercel.app",
  previewHost: "web-git-topic-acme.vercel.app",
};

async function refusal(params: Record<string, string>, withPlatform: boolean): Promise<SponsonError> {
  const domain = freshAuth0Domain("ph");
  await seedTenant(domain);
  const connection = auth0Connection(domain);
  const plan = { version: 2 as const, lines: [{ id: "cb", op: "auth0.callbackUrl", connection, params }] };
  const req = { ...scopeAddress("preview", "pr-7"), plan, ...(withPlatform ? { platform } : {}) };
  const err = await testEngine()
    .preview(req)
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(SponsonError);
  return err as SponsonError;
}

describe("platform placeholders", () => {
  it("fill the item param from the deployment", async () => {
    const domain = freshAuth0Domain("ph");
    await seedTenant(domain);
    const connection = auth0Connection(domain);
    const plan = {
      version: 2 as const,
      lines: [
        {
          id: "cb",
          op: "auth0.callbackUrl",
          connection,
          params: { client: "preview-app", url: "{previewUrl}/cb" },
        },
      ],
    };
    const result = await testEngine().preview({ ...scopeAddress("preview", "pr-7"), plan, platform });
    expect(result.lines[0]?.key).toBe("https://web-git-topic-acme.vercel.app/cb");
  });

  it("have no value in a CI plan: refused, saying where they do", async () => {
    const err = await refusal({ client: "preview-app", url: "{previewUrl}/cb" }, false);
    expect(err.code).toBe("VALIDATION");
    expect(err.message).toMatch(/\{previewUrl\} has a value only in a platform connection's plan/);
  });

  it("never fill a param naming the provider object", async () => {
    const err = await refusal({ client: "{deploymentHost}", url: "{previewUrl}/cb" }, true);
    expect(err.message).toMatch(/platform values fill only the line's item param \(url\)/);
  });

  it("a value the platform did not give (no branch alias) is said, not guessed", async () => {
    const err = await refusal({ client: "preview-app", url: "https://{branchHost}/cb" }, true);
    expect(err.message).toMatch(/\{branchHost\} has no value for this deployment/);
  });
});
