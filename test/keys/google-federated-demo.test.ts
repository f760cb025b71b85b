/**
 * `npm start` (examples/connections.local.json): the demo pool provider trusts the local issuer
 * `https://sponson.localhost` for the four federated example connections only, and each of their
 * principals may impersonate the demo service account that administers the demo objects.
 */
import { describe, expect, it } from "vitest";
import { DEMO_GOOGLE_ACCOUNT } from "../../dev/emulators/google";
import {
  DEMO_WORKLOAD_IDENTITY_PROVIDER,
  googleStsKeys,
  principalOf,
  WORKLOAD_IDENTITY_USER,
} from "../../dev/emulators/google-sts";
import demoConnections from "../../examples/connections.local.json";
import { emulatorStub } from "../helpers/emulators";
import { IAM_CREDENTIALS_HOST, STS_HOST, stsExchange } from "../helpers/emulators-google-sts";

const NAMES = [
  "gcs-federated",
  "firebase-federated",
  "google-federated",
  "recaptcha-federated",
  "googleapikey-federated",
] as const;

describe("the demo's federated Google connections", () => {
  it("name the demo pool provider and the demo service account", () => {
    for (const name of NAMES)
      expect(demoConnections[name].federated).toEqual({
        audience: DEMO_WORKLOAD_IDENTITY_PROVIDER,
        serviceAccount: DEMO_GOOGLE_ACCOUNT,
      });
  });

  it("the pool provider trusts https://sponson.localhost (and the tests' issuer) for their subjects only", async () => {
    // The first request to the demo provider provisions it (and is refused: not a JWT).
    expect((await stsExchange(DEMO_WORKLOAD_IDENTITY_PROVIDER, "not-a-jwt")).body.error).toBe(
      "invalid_grant",
    );
    const key = googleStsKeys.provider(DEMO_WORKLOAD_IDENTITY_PROVIDER);
    expect((await emulatorStub(STS_HOST).dump(key))[key]).toEqual({
      issuer: "https://sponson.localhost",
      // Dev-only: the runtime tests' issuer too (dev/emulators/demo-issuers.ts).
      issuers: ["https://sponson.localhost", "https://sponson.test"],
      subjects: NAMES.map((n) => `sponson:connection:${n}`),
    });
  });

  it("their principals, and no other, may impersonate the demo service account", async () => {
    const url = `https://${IAM_CREDENTIALS_HOST}/v1/projects/-/serviceAccounts/${DEMO_GOOGLE_ACCOUNT}:generateAccessToken`;
    const res = await emulatorStub(IAM_CREDENTIALS_HOST).fetch(url, { method: "POST", body: "{}" });
    expect(res.status).toBe(401);
    const key = googleStsKeys.policy(DEMO_GOOGLE_ACCOUNT);
    expect((await emulatorStub(IAM_CREDENTIALS_HOST).dump(key))[key]).toEqual({
      bindings: {
        [WORKLOAD_IDENTITY_USER]: NAMES.map((n) =>
          principalOf(DEMO_WORKLOAD_IDENTITY_PROVIDER, `sponson:connection:${n}`),
        ),
      },
    });
  });
});
