/**
 * docs/design.md, "Federated connections": the config report names what would make a federated
 * connection's every exchange fail, before any request (sponson config check, /v1/config/status).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { checkConfig } from "../../workers/config/config-report";

const TENANT = "5ed0a5e0-0000-4000-8000-00000000de70";
const CLIENT = "5ed0c11e-0000-4000-8000-00000000de70";

function report(
  vars: Record<string, unknown>,
  federated: Record<string, string> = { tenantId: TENANT, clientId: CLIENT },
) {
  const connections = {
    "entra-keyless": { type: "entra", environments: ["preview"], config: { tenant: TENANT }, federated },
  };
  const { problems } = checkConfig(
    { SPONSON_CONNECTIONS: JSON.stringify(connections), ...vars },
    { secretsKnown: true },
  );
  return problems.filter((p) => /FEDERATION|PUBLIC_URL|entra-keyless/.test(p.path));
}

const KEY = env.FEDERATION_SIGNING_KEY as string;

describe("config check: federated connections", () => {
  it("a complete federated connection has no problem (control)", () => {
    expect(
      report({ SPONSON_PUBLIC_URL: "https://sponson.example.com", FEDERATION_SIGNING_KEY: KEY }),
    ).toEqual([]);
  });

  it("SPONSON_PUBLIC_URL unset is named with the connection", () => {
    const problems = report({ FEDERATION_SIGNING_KEY: KEY });
    expect(problems).toEqual([
      {
        path: "SPONSON_PUBLIC_URL",
        message: expect.stringContaining("connection entra-keyless is federated"),
      },
    ]);
  });

  it("an issuer that is not https is refused", () => {
    const problems = report({
      SPONSON_PUBLIC_URL: "http://sponson.example.com",
      FEDERATION_SIGNING_KEY: KEY,
    });
    expect(problems.map((p) => p.message)).toEqual([expect.stringContaining("must be an https URL")]);
  });

  it("FEDERATION_SIGNING_KEY unset, or an Ed25519 key, is named without its value", () => {
    expect(report({ SPONSON_PUBLIC_URL: "https://s.example.com" }).map((p) => p.path)).toEqual([
      "FEDERATION_SIGNING_KEY",
    ]);
    const ed = env.SERVICE_SIGNING_KEY as string;
    const wrong = report({ SPONSON_PUBLIC_URL: "https://s.example.com", FEDERATION_SIGNING_KEY: ed });
    expect(wrong.map((p) => p.path)).toEqual(["FEDERATION_SIGNING_KEY"]);
    expect(JSON.stringify(wrong)).not.toContain(JSON.parse(ed).d);
  });

  it("incomplete federated fields are reported at their path", () => {
    const problems = report(
      { SPONSON_PUBLIC_URL: "https://s.example.com", FEDERATION_SIGNING_KEY: KEY },
      { tenantId: TENANT },
    );
    // `federated` is the connection's own field, not under `config`.
    expect(problems.map((p) => p.path)).toContain("SPONSON_CONNECTIONS.entra-keyless.federated.clientId");
  });
});
