/**
 * docs/design.md, "Federated connections": a gcs, firebase or google connection's federated fields
 * are checked by `sponson config check` (and GET /v1/config/status) before any request.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { checkConfig } from "../../workers/config/config-report";

const AUDIENCE =
  "//iam.googleapis.com/projects/123456789012/locations/global/workloadIdentityPools/sponson/providers/sponson-prod";
const SERVICE_ACCOUNT = "sponson-edge@acme-prod.iam.gserviceaccount.com";
const VARS = {
  SPONSON_PUBLIC_URL: "https://sponson.example.com",
  FEDERATION_SIGNING_KEY: env.FEDERATION_SIGNING_KEY,
};

function report(type: string, connection: Record<string, unknown>) {
  const connections = { "google-keyless": { type, environments: ["preview"], ...connection } };
  const { problems } = checkConfig(
    { SPONSON_CONNECTIONS: JSON.stringify(connections), GOOGLE_KEY: "{}", ...VARS },
    { secretsKnown: true },
  );
  return problems.filter((p) => /FEDERATION|PUBLIC_URL|google-keyless/.test(p.path));
}

describe("config check: federated Google connections", () => {
  it("a complete federated gcs, firebase or google connection has no problem (control)", () => {
    for (const type of ["gcs", "firebase", "google"])
      expect(report(type, { federated: { audience: AUDIENCE, serviceAccount: SERVICE_ACCOUNT } })).toEqual(
        [],
      );
  });

  it("a missing serviceAccount is reported at its path", () => {
    const problems = report("gcs", { federated: { audience: AUDIENCE } });
    expect(problems.map((p) => p.path)).toEqual([
      "SPONSON_CONNECTIONS.google-keyless.federated.serviceAccount",
    ]);
  });

  it("an audience that is not the pool provider's full resource name says what it must be", () => {
    for (const audience of [`https:${AUDIENCE}`, AUDIENCE.replace("123456789012", "acme-prod")]) {
      const problems = report("firebase", { federated: { audience, serviceAccount: SERVICE_ACCOUNT } });
      expect(problems).toEqual([
        {
          path: "SPONSON_CONNECTIONS.google-keyless.federated.audience",
          message: expect.stringContaining("//iam.googleapis.com/projects/<project number>"),
        },
      ]);
    }
  });

  it("a key and federated together, or neither, is refused", () => {
    const both = report("google", {
      secrets: { serviceAccountKey: "GOOGLE_KEY" },
      federated: { audience: AUDIENCE, serviceAccount: SERVICE_ACCOUNT },
    });
    expect(both.map((p) => p.message)).toEqual([expect.stringContaining("not both")]);
    const neither = report("gcs", {});
    expect(neither.map((p) => p.message)).toEqual([expect.stringContaining("either serviceAccountKey")]);
  });

  it("a federated connection without SPONSON_PUBLIC_URL is named", () => {
    const connections = {
      "google-keyless": {
        type: "gcs",
        environments: ["preview"],
        federated: { audience: AUDIENCE, serviceAccount: SERVICE_ACCOUNT },
      },
    };
    const { problems } = checkConfig(
      {
        SPONSON_CONNECTIONS: JSON.stringify(connections),
        FEDERATION_SIGNING_KEY: env.FEDERATION_SIGNING_KEY,
      },
      { secretsKnown: true },
    );
    expect(problems).toContainEqual({
      path: "SPONSON_PUBLIC_URL",
      message: expect.stringContaining("connection google-keyless is federated"),
    });
  });
});
