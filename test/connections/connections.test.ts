/** Connections as configuration: what SPONSON_CONNECTIONS accepts, and what a run may ask of it. */
import { describe, expect, it } from "vitest";
import demoConnections from "../../examples/connections.local.json";
import { SecretRegistry } from "../../shared/secrets";
import { ADAPTERS } from "../../workers/adapters";
import { connections as connectionsVar } from "../../workers/config/config-vars";
import { Connections } from "../../workers/connections/connections";

const parseConnections = (raw: unknown, types: ReadonlySet<string>) =>
  connectionsVar({ SPONSON_CONNECTIONS: raw }, types);

import { refusal } from "../helpers/refusal";

const TYPES = new Set(["auth0", "supabase"]);

const auth0 = {
  type: "auth0",
  environments: ["preview"],
  config: { domain: "acme.us.auth0.com", clientId: "m2m" },
  secrets: { clientSecret: "AUTH0_CLIENT_SECRET" },
};

describe("SPONSON_CONNECTIONS", () => {
  it("absent means no connections: every line is refused as naming an unknown one", () => {
    const connections = new Connections(parseConnections(undefined, TYPES));
    expect(connections.names()).toEqual([]);
    expect(refusal(() => connections.use("x", "preview", "line a")).code).toBe("VALIDATION");
  });

  it.each([
    ["not JSON", "{"],
    ["an unknown provider type", JSON.stringify({ a: { ...auth0, type: "ldap" } })],
    ["no environments", JSON.stringify({ a: { ...auth0, environments: [] } })],
    [
      "the service's signing key",
      JSON.stringify({ a: { ...auth0, secrets: { clientSecret: "SERVICE_SIGNING_KEY" } } }),
    ],
    [
      "the webhook secret",
      JSON.stringify({ a: { ...auth0, secrets: { clientSecret: "GITHUB_WEBHOOK_SECRET" } } }),
    ],
    ["a service setting", JSON.stringify({ a: { ...auth0, secrets: { clientSecret: "SPONSON_POLICY" } } })],
    [
      "a field both plain and secret",
      JSON.stringify({ a: { ...auth0, config: { ...auth0.config, clientSecret: "x" } } }),
    ],
    ["an unknown key", JSON.stringify({ a: { ...auth0, host: "attacker.example.com" } })],
  ])("%s is refused, naming the variable", (_name, raw) => {
    const err = refusal(() => parseConnections(raw, TYPES));
    expect(err.code).toBe("INTERNAL");
    expect(err.message).toContain("SPONSON_CONNECTIONS");
  });

  it("a connection is usable only in its environments", () => {
    const connections = new Connections(parseConnections(JSON.stringify({ a: auth0 }), TYPES));
    expect(connections.use("a", "preview", "line x")).toEqual({
      name: "a",
      type: "auth0",
      settings: { type: "auth0", domain: "acme.us.auth0.com", clientId: "m2m" },
    });
    const err = refusal(() => connections.use("a", "production", "line x"));
    expect(err.code).toBe("FORBIDDEN");
    expect(err.detail).toMatchObject({ rule: "connection.environments" });
  });

  it("credentials are read only from the secrets the connection names, and registered", () => {
    const connections = new Connections(parseConnections(JSON.stringify({ a: auth0 }), TYPES));
    const secrets = new SecretRegistry();
    const vars = { AUTH0_CLIENT_SECRET: "the-real-client-secret", SERVICE_SIGNING_KEY: "signing-key-value" };
    const config = connections.credentials("a", vars, secrets);
    expect(config).toEqual({
      type: "auth0",
      domain: "acme.us.auth0.com",
      clientId: "m2m",
      clientSecret: "the-real-client-secret",
    });
    expect(JSON.stringify(config)).not.toContain("signing-key-value");
    expect(secrets.containsSecret("x the-real-client-secret x")).toBe(true);
  });

  it("a secret the connection names but the Worker lacks says which one to put", () => {
    const connections = new Connections(parseConnections(JSON.stringify({ a: auth0 }), TYPES));
    const err = refusal(() => connections.credentials("a", {}, new SecretRegistry()));
    expect(err.message).toContain("wrangler secret put AUTH0_CLIENT_SECRET");
  });

  it("an entry recorded before connections maps to the one connection whose settings it repeats", () => {
    const connections = new Connections(
      parseConnections(
        JSON.stringify({
          a: auth0,
          b: { ...auth0, config: { domain: "other.us.auth0.com", clientId: "m2m" } },
        }),
        TYPES,
      ),
    );
    const block = {
      type: "auth0",
      domain: "acme.us.auth0.com",
      clientId: "m2m",
      clientSecret: { secret: "X" },
    };
    expect(connections.legacyMatch(block)).toBe("a");
    const foreign = refusal(() => connections.legacyMatch({ ...block, domain: "attacker.example.com" }));
    expect(foreign.message).toContain("configure a auth0 connection");
  });
});

describe("entries recorded before connections, beside federated connections", () => {
  it("a legacy S3 or Cognito block carries key material: the keyed connection matches, never a federated one", () => {
    // examples/connections.local.json: demo-s3 and s3-federated (demo-cognito, cognito-federated)
    // share a region, and a federated connection's config is that region alone.
    const connections = new Connections(
      connectionsVar(
        { SPONSON_CONNECTIONS: JSON.stringify(demoConnections) },
        new Set(ADAPTERS.map((a) => a.type)),
      ),
    );
    const s3 = {
      type: "s3",
      region: "us-east-1",
      accessKeyId: "AKIASPONSONDEMO00001",
      secretAccessKey: { secret: "S3_SECRET_ACCESS_KEY" },
    };
    expect(connections.legacyMatch(s3)).toBe("demo-s3");
    const cognito = { ...s3, type: "cognito", accessKeyId: "AKIASPONSONDEMO00002" };
    expect(connections.legacyMatch(cognito)).toBe("demo-cognito");
    // A block whose key no keyed connection holds is still refused, not handed to the federated one.
    const unknown = refusal(() => connections.legacyMatch({ ...s3, accessKeyId: "AKIASOMEONEELSE00009" }));
    expect(unknown.message).toContain("configure a s3 connection");
  });
});
