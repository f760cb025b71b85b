/**
 * `npm start`: buckets named `sponson-demo-…` exist on first use, with the demo key on them and one
 * rule of their own. Local values, not secrets.
 */
import { DEMO_ROLES } from "../aws-sts/demo";
import type { EmulatorState } from "../emulator";
import { type S3AccessKey, type S3Bucket, type S3RoleAccess, s3Keys } from "./state";

/** `npm start`: buckets named `sponson-demo-…` exist on first use, with the demo key on them. */
export const DEMO_BUCKET_PREFIX = "sponson-demo-";
/** Local demo credentials, not secrets: scripts/start.mjs passes the secret as S3_SECRET_ACCESS_KEY. */
export const DEMO_ACCESS_KEY = { id: "AKIASPONSONDEMO00001", secret: "local-demo-s3-secret" } as const;

export function provisionDemoBucket(bucket: string, region: string, state: EmulatorState): void {
  if (!bucket.startsWith(DEMO_BUCKET_PREFIX) || state.get<boolean>(s3Keys.demoProvisioned)) return;
  state.put<S3AccessKey>(s3Keys.accessKey(DEMO_ACCESS_KEY.id), {
    secretAccessKey: DEMO_ACCESS_KEY.secret,
    access: "full",
  });
  // The `s3-federated` example connection's role (its temporary credentials, ../aws-sts/demo.ts).
  state.put<S3RoleAccess>(s3Keys.role(DEMO_ROLES.s3), { access: "full" });
  state.put<S3Bucket>(s3Keys.bucket, {
    region,
    rules: [
      { ID: "app", AllowedMethod: ["GET"], AllowedOrigin: ["https://app.example.com"], MaxAgeSeconds: 600 },
    ],
  });
  state.put(s3Keys.demoProvisioned, true);
}
