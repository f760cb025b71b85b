/** A fresh emulated Cognito user pool with one app client, an access key on its host, and an adapter context. */

import type { UserPoolClient } from "../../../dev/emulators/cognito";
import { cognitoAdapter } from "../../../workers/adapters/cognito";
import type { OpSpec } from "../../../workers/adapters/op-spec";
import { COGNITO_REGION, cognitoClient, seedCognito, userPoolClient } from "../../helpers/emulators-cognito";
import { harness, type SetupFailure } from "../../helpers/provider-contract";

export function cognitoOp(name: string): OpSpec {
  const op = cognitoAdapter.ops.find((o) => o.name === name);
  if (!op) throw new Error(`no op ${name}`);
  return op;
}

export async function userPoolWithClient(lists: Partial<UserPoolClient>, failure?: SetupFailure) {
  const id = crypto.randomUUID().replaceAll("-", "");
  const pool = `${COGNITO_REGION}_${id.slice(0, 9)}`;
  const client = id.slice(0, 26);
  const accessKeyId = `AKIA${id.slice(0, 16).toUpperCase()}`;
  const secret = `test-only-cognito-secret-${id.slice(16)}`;
  if (failure !== "unauthenticated") {
    await seedCognito({
      keys: {
        [accessKeyId]: {
          secretAccessKey: secret,
          access: failure === "forbidden" ? "read" : "full",
          arn: "arn:aws:iam::123456789012:user/previews",
        },
      },
    });
  }
  await seedCognito({
    pool,
    clients: failure === "missing" ? [] : [{ ...userPoolClient(pool, client), ...lists }],
  });
  const config = { type: "cognito", region: COGNITO_REGION, accessKeyId, secretAccessKey: secret };
  const h = harness(cognitoAdapter, config, [secret]);
  const stored = () => cognitoClient(pool, client);
  const params = (url: string) => ({ userPool: pool, client, url });
  return { ...h, pool, client, accessKeyId, secret, stored, params };
}
