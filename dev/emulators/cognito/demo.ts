/**
 * `npm start`: user pools named `{region}_sponsonDemo` exist on first use with the demo access key
 * (scripts/start.mjs passes its secret as COGNITO_SECRET_ACCESS_KEY) and the app client
 * `sponsondemoclient0000000000`. Local values, not secrets.
 */
import { DEMO_ROLES } from "../aws-sts/demo";
import type { EmulatorState } from "../emulator";
import { type CognitoAccessKey, type CognitoRoleAccess, cognitoKeys, userPoolClient } from "./state";

export const DEMO_COGNITO = {
  accessKeyId: "AKIASPONSONDEMO00002",
  secret: "local-demo-cognito-secret",
  poolSuffix: "_sponsonDemo",
  client: "sponsondemoclient0000000000",
} as const;

export function provisionDemoPool(region: string, pool: string, state: EmulatorState): void {
  if (pool !== `${region}${DEMO_COGNITO.poolSuffix}` || state.get<boolean>("demo:provisioned")) return;
  state.put<CognitoAccessKey>(cognitoKeys.accessKey(DEMO_COGNITO.accessKeyId), {
    secretAccessKey: DEMO_COGNITO.secret,
    access: "full",
    arn: "arn:aws:iam::123456789012:user/sponson-demo",
  });
  // The `cognito-federated` example connection's role (its temporary credentials, ../aws-sts/demo.ts).
  state.put<CognitoRoleAccess>(cognitoKeys.role(DEMO_ROLES.cognito), { access: "full" });
  state.put(cognitoKeys.pool(pool), true);
  state.put(
    cognitoKeys.client(pool, DEMO_COGNITO.client),
    userPoolClient(pool, DEMO_COGNITO.client, {
      CallbackURLs: ["http://localhost:3000/callback"],
      LogoutURLs: ["http://localhost:3000/"],
      DefaultRedirectURI: "http://localhost:3000/callback",
    }),
  );
  state.put("demo:provisioned", true);
}
