/**
 * What the Cloud Storage emulator keeps (storage.googleapis.com). Storage keys:
 *   bucket:<name>           → GcsBucket
 *   stats:preconditionFailed → number of 412s answered (for tests)
 *   sa:<email>              → GoogleServiceAccount, for self-signed JWT bearers (../google/state.ts)
 *   demo:provisioned        → true (./demo.ts)
 */

export interface GcsBucket {
  members: Record<string, "admin" | "viewer">;
  metageneration: number;
  cors?: unknown[];
  location?: string;
}

export const gcsKeys = {
  bucket: (name: string) => `bucket:${name}`,
  preconditionFailed: "stats:preconditionFailed",
};
