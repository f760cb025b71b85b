/**
 * clerk.redirectUrl's list when Clerk's paging moves underneath it (docs/adapters.md, Clerk): a
 * page shorter than the limit ends the list only if `total_count` agrees. One that says more URLs
 * exist than were read is an incomplete list: a URL on it would be judged absent and created again
 * as a duplicate (or its removal skipped). It is read once more from the start; still short, refused.
 */
import { describe, expect, it } from "vitest";
import { type ClerkContext, listRedirectUrls } from "../../../workers/adapters/clerk/backend-api";
import { failure } from "../../helpers/provider-contract";
import { clerkInstanceWith, clerkOp } from "./clerk-instance";

const op = clerkOp("clerk.redirectUrl");
const ITEM = "https://pr-1.preview.example.com/sso-callback";
const params = { url: ITEM };
// Seeded oldest first: ITEM is the oldest, the last URL of the newest-first page the fault drops.
const SEEDED = [ITEM, "my-app-1://oauth-callback", "my-app-2://oauth-callback"];

describe("clerk.redirectUrl: a short page whose total_count says more exist", () => {
  it("read again from the start: the URL the short page left out is found, and its create sends nothing (no duplicate)", async () => {
    const c = await clerkInstanceWith({ redirectUrls: SEEDED, shortPages: 1 });
    const seen = await op.inspect(c.ctx, params);
    expect(seen.present).toBe(true);
    expect(c.calls).toEqual(["GET /v1/instance", "GET /v1/redirect_urls", "GET /v1/redirect_urls"]);
    const before = c.calls.length;
    await op.create(c.ctx, params, seen);
    expect(c.calls.slice(before)).toEqual([]);
    expect((await c.redirectUrls()).filter((r) => r.url === ITEM)).toHaveLength(1);
    expect(await c.redirectUrls()).toHaveLength(3);
  });

  it("still short when read again: refused PROVIDER_ERROR (as the page cap is), never taken as complete; nothing created", async () => {
    const c = await clerkInstanceWith({ redirectUrls: SEEDED, shortPages: 2 });
    const err = await failure(op.inspect(c.ctx, params));
    expect(err.code).toBe("PROVIDER_ERROR");
    expect(err.message).toBe(
      "clerk: 200 the instance holds 3 redirect URLs; a page ended the list after 2, on two reads from the start: the list changed while it was read",
    );
    expect(err.detail).toMatchObject({ provider: "clerk", status: 200 });
    expect(err.retriable).toBe(true);
    expect(c.calls).toEqual(["GET /v1/instance", "GET /v1/redirect_urls", "GET /v1/redirect_urls"]);
    expect(c.calls.filter((x) => x.startsWith("POST"))).toEqual([]);
    expect((await c.redirectUrls()).map((r) => r.url).sort()).toEqual([...SEEDED].sort());
  });

  it("control: the same list without the fault is read in one page", async () => {
    const c = await clerkInstanceWith({ redirectUrls: SEEDED });
    expect(await listRedirectUrls(c.ctx as ClerkContext)).toHaveLength(3);
    expect(c.calls).toEqual(["GET /v1/redirect_urls"]);
  });
});
