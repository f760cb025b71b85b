/** A fresh emulated bucket, a service account on it, and an adapter context. */
import { gcsAdapter } from "../../../workers/adapters/gcs";
import type { OpSpec } from "../../../workers/adapters/op-spec";
import { googleServiceAccount } from "../../helpers/emulators-firebase";
import { freshBucket, gcsBucket, seedBucket } from "../../helpers/emulators-gcs";
import { harness, type SetupFailure } from "../../helpers/provider-contract";

export const corsOrigin = gcsAdapter.ops[0] as OpSpec;

/** Two rules another team owns: the ops must never touch them. */
export const EXISTING_RULES = [
  {
    origin: ["https://app.example.com"],
    method: ["GET"],
    responseHeader: ["Content-Type"],
    maxAgeSeconds: 3600,
  },
  {
    origin: ["https://admin.example.com", "http://localhost:5173"],
    method: ["GET", "PUT"],
    maxAgeSeconds: 60,
  },
];

export async function bucketWithCors(cors: unknown[], failure?: SetupFailure) {
  const bucket = freshBucket();
  const account = await googleServiceAccount(failure !== "unauthenticated");
  if (failure !== "missing") {
    await seedBucket(bucket, {
      members: { [account.email]: failure === "forbidden" ? "viewer" : "admin" },
      metageneration: 7,
      cors,
    });
  }
  const h = harness(gcsAdapter, { type: "gcs", serviceAccountKey: account.keyJson }, [account.keyJson]);
  return { ...h, bucket, account, stored: () => gcsBucket(bucket) };
}
