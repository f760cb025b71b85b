/**
 * docs/design.md, "Federated connections": an S3 or Cognito connection is either a key pair or
 * `federated: { roleArn }`; the config report names what is missing or wrong before any request.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { cognitoAdapter } from "../../workers/adapters/cognito";
import { s3Adapter } from "../../workers/adapters/s3";
import { checkConfig } from "../../workers/config/config-report";

const ROLE = "arn:aws:iam::123456789012:role/sponson-previews";
const VARS = {
  SPONSON_PUBLIC_URL: "https://sponson.example.com",
  FEDERATION_SIGNING_KEY: env.FEDERATION_SIGNING_KEY,
};

function report(connection: Record<string, unknown>, vars: Record<string, unknown> = VARS) {
  const connections = {
    "aws-keyless": { environments: ["preview"], config: { region: "eu-west-1" }, ...connection },
  };
  const { problems } = checkConfig(
    { SPONSON_CONNECTIONS: JSON.stringify(connections), ...vars },
    { secretsKnown: true },
  );
  return problems.filter((p) => /FEDERATION|PUBLIC_URL|aws-keyless/.test(p.path));
}

describe.each(["s3", "cognito"])("config check: a federated %s connection", (type) => {
  it("a role ARN and the issuer's settings: no problem (control)", () => {
    expect(report({ type, federated: { roleArn: ROLE } })).toEqual([]);
  });

  it("no roleArn, or one that is not an IAM role's, is named at its path", () => {
    const missing = report({ type, federated: { role: ROLE } });
    expect(missing.map((p) => p.path)).toContain("SPONSON_CONNECTIONS.aws-keyless.federated");
    const wrong = report({ type, federated: { roleArn: "arn:aws:iam::123456789012:user/previews" } });
    expect(wrong).toEqual([
      {
        path: "SPONSON_CONNECTIONS.aws-keyless.federated.roleArn",
        message: expect.stringContaining("an IAM role ARN"),
      },
    ]);
  });

  it("a role in another partition (aws-cn, aws-us-gov) is refused: the endpoints are amazonaws.com", () => {
    for (const partition of ["aws-cn", "aws-us-gov"])
      expect(
        report({ type, federated: { roleArn: `arn:${partition}:iam::123456789012:role/previews` } }),
      ).toEqual([
        {
          path: "SPONSON_CONNECTIONS.aws-keyless.federated.roleArn",
          message: expect.stringContaining("only the aws partition"),
        },
      ]);
  });

  it("a key pair and federated together are refused: one form or the other", () => {
    const problems = report(
      {
        type,
        config: { region: "eu-west-1", accessKeyId: "AKIAEXAMPLE000000001" },
        secrets: { secretAccessKey: "AWS_SECRET" },
        federated: { roleArn: ROLE },
      },
      { ...VARS, AWS_SECRET: "test-only" },
    );
    expect(problems.map((p) => p.message)).toContain(
      "either accessKeyId and secretAccessKey (a Worker secret), or federated { roleArn }, not both",
    );
  });

  it("SPONSON_PUBLIC_URL unset is named with the connection", () => {
    const problems = report(
      { type, federated: { roleArn: ROLE } },
      { FEDERATION_SIGNING_KEY: VARS.FEDERATION_SIGNING_KEY },
    );
    expect(problems).toEqual([
      { path: "SPONSON_PUBLIC_URL", message: expect.stringContaining("connection aws-keyless is federated") },
    ]);
  });
});

describe("the adapters' own schema", () => {
  it("a key pair still parses, and neither form does not", () => {
    for (const adapter of [s3Adapter, cognitoAdapter]) {
      const keyed = {
        type: adapter.type,
        region: "us-east-1",
        accessKeyId: "AKIAEXAMPLE000000001",
        secretAccessKey: "x",
      };
      expect(adapter.config.safeParse(keyed).success).toBe(true);
      expect(adapter.config.safeParse({ type: adapter.type, region: "us-east-1" }).success).toBe(false);
    }
  });
});
