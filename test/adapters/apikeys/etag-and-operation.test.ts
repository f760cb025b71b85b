/**
 * The key's etag is a real compare-and-set, and its update an Operation (docs/design.md,
 * "Fencing around a write"): a write made on a stale read is refused (409 ABORTED) and decided again
 * from a fresh read — the control shows the foreign change lost without it; an Operation not done
 * within the provider request timeout may still land (an unknown outcome, as a lost answer); one
 * done with an error wrote nothing and says so.
 */
import { describe, expect, it } from "vitest";
import { OPERATION_WAIT_MS } from "../../../workers/adapters/apikeys";
import type { OpContext } from "../../../workers/adapters/op-spec";
import { StaleState } from "../../../workers/adapters/stale-state";
import { configureHost } from "../../helpers/emulators";
import {
  APIKEYS_HOST,
  apiKey,
  changeRestrictions,
  seedApiKey,
  setOperations,
  staleEtagRefusals,
} from "../../helpers/emulators-apikeys";
import { failure } from "../../helpers/provider-contract";
import { apiKeyWith, KEY, referrer } from "./api-key";

const OWN = "https://pr-1.preview.example.com/*";
const FOREIGN = "https://admin.example.com/*";
const batch = () => {
  if (!referrer.batch) throw new Error("googleapikey.referrer has a many-items form");
  return referrer.batch;
};

/** Counts what the write tells the engine (docs/design.md, "Fencing around a write"). */
function told(ctx: OpContext) {
  const heard = { unanswered: 0, accepted: 0 };
  ctx.onUnansweredWrite = () => {
    heard.unanswered += 1;
  };
  ctx.onWriteAccepted = () => {
    heard.accepted += 1;
  };
  return heard;
}

describe("a write made on a stale read", () => {
  it("is refused 409 ABORTED (StaleState, nothing written); decided again from a fresh read, both changes stay", async () => {
    const k = await apiKeyWith(["https://app.example.com/*"]);
    const p = k.params(OWN);
    const stale = await batch().read(k.ctx, p);
    const refusedBefore = await staleEtagRefusals();
    // Someone outside Sponson adds a referrer after our read: a new etag.
    await changeRestrictions(k.project, KEY, (r) => ({
      ...r,
      browserKeyRestrictions: { allowedReferrers: ["https://app.example.com/*", FOREIGN] },
    }));
    const heard = told(k.ctx);

    await expect(batch().write(k.ctx, p, stale, (s) => batch().edit(s, p, "create"))).rejects.toBeInstanceOf(
      StaleState,
    );
    expect(await staleEtagRefusals()).toBe(refusedBefore + 1);
    expect(await k.referrersNow()).toEqual(["https://app.example.com/*", FOREIGN]);
    // A refusal is no acceptance: the engine may withdraw the write's claims.
    expect(heard).toEqual({ unanswered: 0, accepted: 0 });

    const fresh = await batch().read(k.ctx, p);
    await batch().write(k.ctx, p, fresh, (s) => batch().edit(s, p, "create"));
    expect(await k.referrersNow()).toEqual(["https://app.example.com/*", FOREIGN, OWN]);
    expect(heard).toEqual({ unanswered: 0, accepted: 1 });
  });

  it("control: on a key whose updates ignore the etag, the same interleaving loses the foreign referrer", async () => {
    const k = await apiKeyWith(["https://app.example.com/*"]);
    const record = await apiKey(k.project, KEY);
    if (!record) throw new Error("key missing");
    await seedApiKey(k.project, KEY, { ...record, ignoresEtag: true });
    const p = k.params(OWN);
    const stale = await batch().read(k.ctx, p);
    await changeRestrictions(k.project, KEY, (r) => ({
      ...r,
      browserKeyRestrictions: { allowedReferrers: ["https://app.example.com/*", FOREIGN] },
    }));

    await batch().write(k.ctx, p, stale, (s) => batch().edit(s, p, "create"));
    expect(await k.referrersNow()).toEqual(["https://app.example.com/*", OWN]);
  });

  it("one item alone (create) re-reads on 409 and makes its own edit again: the foreign referrer stays", async () => {
    const k = await apiKeyWith(["https://app.example.com/*"]);
    const seen = await referrer.inspect(k.ctx, k.params(OWN));
    await changeRestrictions(k.project, KEY, (r) => ({
      ...r,
      browserKeyRestrictions: { allowedReferrers: [FOREIGN] },
    }));
    await referrer.create(k.ctx, k.params(OWN), seen);
    expect(k.responses.map((r) => r.status)).toEqual([200, 200, 409, 200, 200]);
    expect(await k.referrersNow()).toEqual([FOREIGN, OWN]);
  });

  it("a retry that meets the etag its own lost attempt changed is no refusal: outcome unknown, never StaleState", async () => {
    const k = await apiKeyWith(["https://app.example.com/*"]);
    const p = k.params(OWN);
    const seen = await batch().read(k.ctx, p);
    const heard = told(k.ctx);
    await configureHost(APIKEYS_HOST, { loseWriteAnswers: 1 });
    const err = await failure(batch().write(k.ctx, p, seen, (s) => batch().edit(s, p, "create")));
    await configureHost(APIKEYS_HOST, {});

    // The first attempt landed; the retry carried the same etag and met 409 for its own landing.
    expect(await k.referrersNow()).toEqual(["https://app.example.com/*", OWN]);
    expect(err.code).toBe("PROVIDER_ERROR");
    expect(err.outcome).toBe("unknown");
    expect(err.message).toContain("may have landed");
    expect(heard.unanswered).toBe(1);
    expect(k.responses.map((r) => r.status).slice(-1)).toEqual([409]);
  });
});

describe("the update's Operation", () => {
  it("done at once: written with no poll", async () => {
    const k = await apiKeyWith([]);
    const heard = told(k.ctx);
    await referrer.create(k.ctx, k.params(OWN), await referrer.inspect(k.ctx, k.params(OWN)));
    expect(k.calls.filter((c) => c.startsWith("GET /v2/operations/"))).toEqual([]);
    expect(heard).toEqual({ unanswered: 0, accepted: 1 });
  });

  it("pending for three polls: polled with doubling waits, then written; the engine hears it accepted only then", async () => {
    const k = await apiKeyWith([]);
    await setOperations(k.project, KEY, { pendingPolls: 3 });
    const heard = told(k.ctx);
    const seen = await referrer.inspect(k.ctx, k.params(OWN));
    await referrer.create(k.ctx, k.params(OWN), seen);
    expect(k.calls.filter((c) => c.startsWith("GET /v2/operations/"))).toHaveLength(3);
    expect(k.clock.sleeps).toEqual([250, 500, 1_000]);
    expect(await k.referrersNow()).toEqual([OWN]);
    expect(heard).toEqual({ unanswered: 0, accepted: 1 });
  });

  it("never done within the provider request timeout: an unknown outcome, told as a write that may still land", async () => {
    const k = await apiKeyWith([]);
    await setOperations(k.project, KEY, { pendingPolls: "never" });
    const heard = told(k.ctx);
    const seen = await referrer.inspect(k.ctx, k.params(OWN));
    const err = await failure(referrer.create(k.ctx, k.params(OWN), seen));
    expect(err.code).toBe("PROVIDER_ERROR");
    expect(err.outcome).toBe("unknown");
    expect(err.message).toMatch(/still not done .*may still land/);
    expect(heard).toEqual({ unanswered: 1, accepted: 0 });
    // Polled within the timeout, never past it.
    expect(k.clock.sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(OPERATION_WAIT_MS);
    expect(k.clock.sleeps).toEqual([250, 500, 1_000, 2_000, 2_000, 2_000, 2_000]);
  });

  it("never done, and the lease deadline comes first: the polls stop there, outcome unknown", async () => {
    const k = await apiKeyWith([]);
    await setOperations(k.project, KEY, { pendingPolls: "never" });
    const seen = await referrer.inspect(k.ctx, k.params(OWN));
    const start = k.clock.now();
    k.ctx.deadline = () => start + 1_000;
    const err = await failure(referrer.create(k.ctx, k.params(OWN), seen));
    expect(err.outcome).toBe("unknown");
    expect(k.clock.sleeps).toEqual([250, 500]);
  });

  it("done with an error: a definite failure with the provider's message, nothing written, nothing accepted", async () => {
    const k = await apiKeyWith(["https://app.example.com/*"]);
    await setOperations(k.project, KEY, {
      pendingPolls: 1,
      error: { code: 3, message: "Referrer pattern is not valid." },
    });
    const heard = told(k.ctx);
    const seen = await referrer.inspect(k.ctx, k.params(OWN));
    const err = await failure(referrer.create(k.ctx, k.params(OWN), seen));
    expect(err.code).toBe("PROVIDER_ERROR");
    expect(err.outcome).toBeUndefined();
    expect(err.message).toMatch(/^googleapikey: operations\/\S+ failed: Referrer pattern is not valid\.$/);
    expect(err.detail).toMatchObject({ status: 400, providerCode: "INVALID_ARGUMENT" });
    expect(err.retriable).toBe(false);
    expect(heard).toEqual({ unanswered: 0, accepted: 0 });
    expect(await k.referrersNow()).toEqual(["https://app.example.com/*"]);
  });
});
