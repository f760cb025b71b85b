/**
 * `npm start`: the demo bucket `sponson-demo-assets`, administered by the demo service account
 * (../google/demo.ts), exists on first use with one rule of its own.
 * Storage key: `demo:provisioned` → true.
 */
import type { EmulatorState } from "../emulator";
import { DEMO_GOOGLE_ACCOUNT } from "../google/demo";
import { type GcsBucket, gcsKeys } from "./state";

export const DEMO_GCS_BUCKET = "sponson-demo-assets";

export function provisionDemoGcsBucket(pathname: string, state: EmulatorState): void {
  if (pathname !== `/storage/v1/b/${DEMO_GCS_BUCKET}` || state.get<boolean>("demo:provisioned")) return;
  state.put<GcsBucket>(gcsKeys.bucket(DEMO_GCS_BUCKET), {
    members: { [DEMO_GOOGLE_ACCOUNT]: "admin" },
    metageneration: 1,
    cors: [
      {
        origin: ["https://app.example.com"],
        method: ["GET"],
        responseHeader: ["Content-Type"],
        maxAgeSeconds: 3600,
      },
    ],
  });
  state.put("demo:provisioned", true);
}
