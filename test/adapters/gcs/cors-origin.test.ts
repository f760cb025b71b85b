import { describe, expect, it } from "vitest";
import { GCS_MAX_PRECONDITION_ATTEMPTS } from "../../../workers/adapters/gcs";
import { secondsResetHeader } from "../../../workers/adapters/http";
import { StaleState } from "../../../workers/adapters/stale-state";
import { GCS_HOST, gcsBucket, seedBucket } from "../../helpers/emulators-gcs";
import { describeProviderContract } from "../../helpers/provider-contract";
import { bucketWithCors, corsOrigin, EXISTING_RULES } from "./gcs-bucket";

const ORIGIN = "https://pr-1.preview.example.com";
const originsOf = (rule: unknown) => ((rule as { origin?: string[] } | undefined)?.origin ?? []) as string[];

describeProviderContract({
  provider: "gcs",
  op: corsOrigin,
  item: ORIGIN,
  // Rule #1 is the one the line names; its entries are the "list".
  unrelated: EXISTING_RULES[1]?.origin ?? [],
  apiHost: () => GCS_HOST,
  forbiddenOn: "write",
  errors: {
    unauthenticated: {
      status: 400,
      message: "Invalid grant: account not found",
      providerCode: "invalid_grant",
    },
    forbidden: {
      status: 403,
      message:
        /^sponson-[0-9a-f]{8}@sponson-tests\.iam\.gserviceaccount\.com does not have storage\.buckets\.update access to the Google Cloud Storage bucket\. Permission 'storage\.buckets\.update' denied on resource \(or it may not exist\)\.$/,
      providerCode: "forbidden",
    },
    missing: { status: 404, message: "The specified bucket does not exist.", providerCode: "notFound" },
  },
  rateLimitWaitMs: secondsResetHeader("retry-after"),
  async setup(failure) {
    const b = await bucketWithCors(EXISTING_RULES, failure);
    return {
      ...b,
      params: { bucket: b.bucket, rule: "#1", origin: ORIGIN },
      secrets: [b.account.keyJson, b.account.privateKeyPem],
      entries: async () => originsOf((await b.stored())?.cors?.[1]),
      // Metageneration counts writes; the contract compares what the bucket says, CORS included.
      snapshot: async () => (await b.stored())?.cors,
      setEntries: async (entries) => {
        const stored = await b.stored();
        const cors = [...(stored?.cors ?? [])];
        cors[1] = { ...(cors[1] as object), origin: entries };
        await seedBucket(b.bucket, {
          ...(stored as NonNullable<typeof stored>),
          cors,
          metageneration: (stored?.metageneration ?? 0) + 1,
        });
      },
    };
  },
});

describe("gcs.corsOrigin", () => {
  it("PATCHes with ifMetagenerationMatch from the inspection, and the bucket moves to metageneration + 1", async () => {
    const b = await bucketWithCors(EXISTING_RULES);
    const params = { bucket: b.bucket, rule: "#0", origin: ORIGIN };
    const sent: string[] = [];
    const inner = b.ctx.fetch;
    b.ctx.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      if (request.method === "PATCH") sent.push(new URL(request.url).search);
      return inner(request);
    }) as typeof fetch;
    await corsOrigin.create(b.ctx, params, await corsOrigin.inspect(b.ctx, params));
    expect(sent).toEqual(["?ifMetagenerationMatch=7&fields=cors,metageneration"]);
    const stored = await b.stored();
    expect(stored?.metageneration).toBe(8);
    expect(stored?.cors).toEqual([
      { ...EXISTING_RULES[0], origin: ["https://app.example.com", ORIGIN] },
      EXISTING_RULES[1],
    ]);
  });

  it("a write that meets 412 re-reads and applies its change on the fresh state: the other write survives", async () => {
    const b = await bucketWithCors(EXISTING_RULES);
    const params = { bucket: b.bucket, rule: "#1", origin: ORIGIN };
    const stale = await corsOrigin.inspect(b.ctx, params);
    // Someone else adds an origin to the same rule after our read.
    const stored = await b.stored();
    const cors = [
      EXISTING_RULES[0],
      { ...EXISTING_RULES[1], origin: [...originsOf(EXISTING_RULES[1]), "https://pr-2.example.com"] },
    ];
    await seedBucket(b.bucket, { ...(stored as NonNullable<typeof stored>), cors, metageneration: 8 });

    await corsOrigin.create(b.ctx, params, stale);
    expect(b.responses.map((r) => r.status)).toEqual([200, 200, 412, 200, 200]);
    expect(originsOf((await b.stored())?.cors?.[1])).toEqual([
      "https://admin.example.com",
      "http://localhost:5173",
      "https://pr-2.example.com",
      ORIGIN,
    ]);
  });

  it("a run's origins on one bucket go out in one PATCH; a 412 throws StaleState for the engine to decide again, nothing written", async () => {
    const b = await bucketWithCors(EXISTING_RULES);
    const batch = corsOrigin.batch;
    if (!batch) throw new Error("gcs.corsOrigin has a many-items form");
    const first = { bucket: b.bucket, rule: "#0", origin: ORIGIN };
    const second = { bucket: b.bucket, rule: "#1", origin: ORIGIN };
    const stale = await batch.read(b.ctx, first);
    const stored = await b.stored();
    const cors = [EXISTING_RULES[0], { ...EXISTING_RULES[1], origin: ["https://pr-2.example.com"] }];
    await seedBucket(b.bucket, { ...(stored as NonNullable<typeof stored>), cors, metageneration: 8 });

    const edits = (s: unknown) => batch.edit(batch.edit(s, first, "create"), second, "create");
    await expect(batch.write(b.ctx, first, stale, edits)).rejects.toBeInstanceOf(StaleState);
    // read, PATCH refused (412): no re-read, no second PATCH — the edits were decided from the stale rules.
    expect(b.responses.slice(-2).map((r) => r.status)).toEqual([200, 412]);
    expect((await b.stored())?.cors).toEqual(cors);

    const fresh = await batch.read(b.ctx, first);
    await batch.write(b.ctx, first, fresh, edits);
    const after = (await b.stored())?.cors;
    expect(originsOf(after?.[0])).toEqual(["https://app.example.com", ORIGIN]);
    expect(originsOf(after?.[1])).toEqual(["https://pr-2.example.com", ORIGIN]);
  });

  it("a bucket that keeps changing fails the line CONCURRENT_MODIFICATION after bounded attempts, nothing overwritten", async () => {
    const b = await bucketWithCors(EXISTING_RULES);
    const params = { bucket: b.bucket, rule: "#0", origin: ORIGIN };
    const seen = await corsOrigin.inspect(b.ctx, params);
    const inner = b.ctx.fetch;
    let writes = 0;
    // Every PATCH is preceded by a foreign write that bumps the metageneration.
    b.ctx.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      if (request.method === "PATCH") {
        writes += 1;
        const now = await gcsBucket(b.bucket);
        await seedBucket(b.bucket, {
          ...(now as NonNullable<typeof now>),
          metageneration: (now?.metageneration ?? 0) + 1,
        });
      }
      return inner(request);
    }) as typeof fetch;
    await expect(corsOrigin.create(b.ctx, params, seen)).rejects.toMatchObject({
      code: "CONCURRENT_MODIFICATION",
    });
    expect(writes).toBe(GCS_MAX_PRECONDITION_ATTEMPTS);
    expect((await b.stored())?.cors).toEqual(EXISTING_RULES);
  });

  it("a rule named by the next index is created; removing its last origin removes it; other rules stay", async () => {
    const b = await bucketWithCors(EXISTING_RULES);
    const params = { bucket: b.bucket, rule: "#2", origin: ORIGIN, methods: "GET,PUT" };
    await corsOrigin.create(b.ctx, params, await corsOrigin.inspect(b.ctx, params));
    expect((await b.stored())?.cors).toEqual([
      ...EXISTING_RULES,
      { origin: [ORIGIN], method: ["GET", "PUT"], responseHeader: ["Content-Type"], maxAgeSeconds: 3600 },
    ]);
    await corsOrigin.remove(b.ctx, params, await corsOrigin.inspect(b.ctx, params));
    expect((await b.stored())?.cors).toEqual(EXISTING_RULES);
  });

  it("a rule index past the next one is refused before any write", async () => {
    const b = await bucketWithCors([]);
    const params = { bucket: b.bucket, rule: "#3", origin: ORIGIN };
    const seen = await corsOrigin.inspect(b.ctx, params);
    await expect(corsOrigin.create(b.ctx, params, seen)).rejects.toMatchObject({ code: "VALIDATION" });
    expect(b.calls.filter((c) => c.startsWith("PATCH"))).toEqual([]);
  });

  it("removing the only origin of the only rule clears CORS (cors: [])", async () => {
    const b = await bucketWithCors([{ origin: [ORIGIN], method: ["GET"] }]);
    const params = { bucket: b.bucket, rule: "#0", origin: ORIGIN };
    await corsOrigin.remove(b.ctx, params, await corsOrigin.inspect(b.ctx, params));
    expect((await b.stored())?.cors).toEqual([]);
  });

  it("lockOn names the bucket's CORS; GCS rules are named by index only", () => {
    expect(corsOrigin.lockOn({ bucket: "assets", rule: "#0", origin: ORIGIN }, { type: "gcs" })).toBe(
      "gcs:assets:cors",
    );
    expect(corsOrigin.params.safeParse({ bucket: "assets", rule: "uploads", origin: ORIGIN }).success).toBe(
      false,
    );
    expect(
      corsOrigin.params.safeParse({ bucket: "assets", rule: "#0", origin: "https://a.example.com/path" })
        .success,
    ).toBe(false);
  });
});
