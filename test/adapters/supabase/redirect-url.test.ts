import { describe, expect, it } from "vitest";
import { secondsResetHeader } from "../../../workers/adapters/http";
import { SUPABASE_HOST, seedSupabaseProject, supabaseAuthConfig } from "../../helpers/emulators-supabase";
import { describeProviderContract } from "../../helpers/provider-contract";
import { redirectUrl, supabaseProject } from "./supabase-project";

// Spaces after commas and a glob: what a hand-edited dashboard list looks like.
const EXISTING = "http://localhost:3000/**, https://app.example.com/auth/callback,https://*.vercel.app/**";
const UNRELATED = EXISTING.split(",");
const ITEM = "https://pr-1.preview.example.com/**";
const split = (list: string | null) => (list ? list.split(",") : []);

describeProviderContract({
  provider: "supabase",
  op: redirectUrl,
  item: ITEM,
  unrelated: UNRELATED,
  apiHost: () => SUPABASE_HOST,
  forbiddenOn: "write",
  errors: {
    unauthenticated: { status: 401, message: "Unauthorized" },
    forbidden: {
      status: 403,
      message:
        "Your account does not have the necessary privileges to access this endpoint. For more details, refer to our documentation https://supabase.com/docs/guides/platform/access-control",
    },
    missing: { status: 404, message: "Project not found" },
  },
  rateLimitWaitMs: secondsResetHeader("x-ratelimit-reset"),
  async setup(failure) {
    const p = await supabaseProject(EXISTING, failure);
    return {
      ...p,
      params: { project: p.ref, url: ITEM },
      secrets: [p.token],
      entries: async () => split(await p.allowListNow()),
      snapshot: () => supabaseAuthConfig(p.ref),
      setEntries: (entries) => seedSupabaseProject(p.ref, { uri_allow_list: entries.join(",") }),
    };
  },
});

describe("supabase.redirectUrl keeps the comma-separated string byte-for-byte", () => {
  it("appends with a bare comma and removes only its own entry, spaces around others intact", async () => {
    const p = await supabaseProject(EXISTING);
    const params = { project: p.ref, url: ITEM };
    await redirectUrl.create(p.ctx, params, await redirectUrl.inspect(p.ctx, params));
    expect(await p.allowListNow()).toBe(`${EXISTING},${ITEM}`);
    await redirectUrl.remove(p.ctx, params, await redirectUrl.inspect(p.ctx, params));
    expect(await p.allowListNow()).toBe(EXISTING);
  });

  it("an entry written with spaces around it counts as present and is removed whole", async () => {
    const p = await supabaseProject(`https://a.example.com/**,  ${ITEM} ,https://b.example.com/**`);
    const params = { project: p.ref, url: ITEM };
    const seen = await redirectUrl.inspect(p.ctx, params);
    expect(seen.present).toBe(true);
    await redirectUrl.remove(p.ctx, params, seen);
    expect(await p.allowListNow()).toBe("https://a.example.com/**,https://b.example.com/**");
  });

  it("a null or empty allow-list becomes the single entry, and back to empty", async () => {
    for (const initial of [null, ""]) {
      const p = await supabaseProject(initial);
      const params = { project: p.ref, url: ITEM };
      await redirectUrl.create(p.ctx, params, await redirectUrl.inspect(p.ctx, params));
      expect(await p.allowListNow()).toBe(ITEM);
      await redirectUrl.remove(p.ctx, params, await redirectUrl.inspect(p.ctx, params));
      expect(await p.allowListNow()).toBe("");
    }
  });

  it("the PATCH sends uri_allow_list alone, so every other auth setting is left as it was", async () => {
    const p = await supabaseProject(EXISTING);
    await seedSupabaseProject(p.ref, {
      uri_allow_list: EXISTING,
      site_url: "https://app.example.com",
      jwt_exp: 900,
    });
    const params = { project: p.ref, url: ITEM };
    await redirectUrl.create(p.ctx, params, await redirectUrl.inspect(p.ctx, params));
    expect(await supabaseAuthConfig(p.ref)).toMatchObject({
      site_url: "https://app.example.com",
      jwt_exp: 900,
    });
    expect(p.calls).toEqual([
      `GET /v1/projects/${p.ref}/config/auth`,
      `PATCH /v1/projects/${p.ref}/config/auth`,
    ]);
  });

  it("lockOn is the project's auth config; params refuse commas, which would split the entry", () => {
    expect(redirectUrl.lockOn({ project: "abcdefghijklmnopqrst", url: ITEM }, { type: "supabase" })).toBe(
      "supabase:abcdefghijklmnopqrst:auth",
    );
    expect(redirectUrl.key({ project: "abc", url: ITEM })).toBe(ITEM);
    expect(
      redirectUrl.params.safeParse({ project: "abc", url: "https://a.example.com,https://b" }).success,
    ).toBe(false);
    expect(redirectUrl.params.safeParse({ project: "../x", url: ITEM }).success).toBe(false);
  });
});
