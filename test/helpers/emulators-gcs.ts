/** Buckets of the emulated Cloud Storage JSON API (one object for storage.googleapis.com). */
import { type GcsBucket, gcsKeys } from "../../dev/emulators/gcs";
import { emulatorStub } from "./emulators";

export const GCS_HOST = "storage.googleapis.com";

export function freshBucket(prefix = "assets"): string {
  return `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
}

export async function seedBucket(name: string, bucket: GcsBucket): Promise<void> {
  await emulatorStub(GCS_HOST).seed({ [gcsKeys.bucket(name)]: bucket });
}

export async function gcsBucket(name: string): Promise<GcsBucket | undefined> {
  const key = gcsKeys.bucket(name);
  return (await emulatorStub(GCS_HOST).dump(key))[key] as GcsBucket | undefined;
}

/** How many 412 conditionNotMet the emulator has answered (all buckets). */
export async function gcsPreconditionFailures(): Promise<number> {
  return (
    ((await emulatorStub(GCS_HOST).dump(gcsKeys.preconditionFailed))[gcsKeys.preconditionFailed] as number) ??
    0
  );
}
