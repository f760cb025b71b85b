/**
 * What the Cloud Storage emulator counts when knob `budget` is on (dev/emulators/gcs/index.ts):
 * one bucket metadata update per second per bucket, reads not counted, a call past it answered
 * with Cloud Storage's own 429. Asked of the module itself: the emulator object of
 * storage.googleapis.com is shared by every test file, so its knobs are not turned here.
 */
import { describe, expect, it } from "vitest";
import { EmulatedBucket } from "../../../dev/emulators/budget";
import { gcsEmulator } from "../../../dev/emulators/gcs";

const bucketUrl = (name: string) => `https://storage.googleapis.com/storage/v1/b/${name}`;

describe("Cloud Storage's budget in the emulator", () => {
  it("counts each bucket's updates apart, and no read", () => {
    const key = (method: string, url: string) => gcsEmulator.budgetKey?.(new Request(url, { method }));
    expect(key("PATCH", `${bucketUrl("assets")}?ifMetagenerationMatch=3`)).toBe("bucket:assets");
    expect(key("PATCH", bucketUrl("media"))).toBe("bucket:media");
    expect(key("GET", bucketUrl("assets"))).toBeNull();
    expect(key("POST", "https://oauth2.googleapis.com/token")).toBeNull();
  });

  it("one update a second: the second at once is refused with Cloud Storage's 429", async () => {
    const limit = { burst: 1, perSecond: 1 };
    const bucket = new EmulatedBucket(limit, 0);
    expect(bucket.call(0).passed).toBe(true);
    const { passed, view } = bucket.call(200);
    expect(passed).toBe(false);
    const refusal = gcsEmulator.budgetRefusal?.(limit, view) as Response;
    expect(refusal.status).toBe(429);
    expect(refusal.headers.get("retry-after")).toBe("1");
    const body = (await refusal.json()) as {
      error: { code: number; errors: Array<{ reason: string; domain: string }> };
    };
    expect(body.error.code).toBe(429);
    expect(body.error.errors[0]).toMatchObject({ reason: "rateLimitExceeded", domain: "usageLimits" });
    expect(bucket.call(1000).passed).toBe(true);
  });
});
