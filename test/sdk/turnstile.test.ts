/**
 * `cloudflare` (the official v4 client) against the Turnstile emulator: a widget read and updated
 * whole (`turnstile.widgets.get` / `update`, whose params mark `name`, `mode` and `domains`
 * required), what an update leaves out reset, the Free plan's hostname cap, and the errors in the
 * shape the SDK types them.
 */
import Cloudflare from "cloudflare";
import { describe, expect, it } from "vitest";
import { turnstileKeys, turnstileWidget } from "../../dev/emulators/turnstile";
import { dump, emulatorFetch, seed } from "./emulators";

const HOST = "api.cloudflare.com";
const ACCOUNT = crypto.randomUUID().replaceAll("-", "");
const TOKEN = `test-only-sdk-turnstile-${crypto.randomUUID()}`;

async function widget(fields: Record<string, unknown> = {}) {
  const sitekey = `0x4AAAAAAA${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  await seed(HOST, {
    [`token:${TOKEN}`]: { accounts: [ACCOUNT] },
    [turnstileKeys.widget(ACCOUNT, sitekey)]: turnstileWidget(sitekey, ["app.example.com"], fields),
  });
  return sitekey;
}

const client = (apiToken = TOKEN) => new Cloudflare({ apiToken, fetch: emulatorFetch, maxRetries: 0 });
const caught = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e,
  );

describe("cloudflare SDK: turnstile.widgets", () => {
  it("get, then update with every field as read: only domains change", async () => {
    const sitekey = await widget({ mode: "invisible", bot_fight_mode: true, clearance_level: "interactive" });
    const cf = client();
    const read = await cf.turnstile.widgets.get(sitekey, { account_id: ACCOUNT });
    expect(read).toMatchObject({
      sitekey,
      domains: ["app.example.com"],
      mode: "invisible",
      bot_fight_mode: true,
    });
    const updated = await cf.turnstile.widgets.update(sitekey, {
      account_id: ACCOUNT,
      name: read.name,
      mode: read.mode,
      domains: [...read.domains, "pr-1.preview.example.com"],
      bot_fight_mode: read.bot_fight_mode,
      clearance_level: read.clearance_level,
      ephemeral_id: read.ephemeral_id,
      offlabel: read.offlabel,
      region: read.region,
    });
    expect(updated).toMatchObject({
      domains: ["app.example.com", "pr-1.preview.example.com"],
      mode: "invisible",
      bot_fight_mode: true,
      clearance_level: "interactive",
      secret: read.secret,
    });
  });

  it("an update with the required fields alone resets the flags it leaves out", async () => {
    const sitekey = await widget({ bot_fight_mode: true, offlabel: true });
    await client().turnstile.widgets.update(sitekey, {
      account_id: ACCOUNT,
      name: "previews",
      mode: "managed",
      domains: ["app.example.com"],
    });
    const key = turnstileKeys.widget(ACCOUNT, sitekey);
    expect((await dump(HOST, key))[key]).toMatchObject({ bot_fight_mode: false, offlabel: false });
  });

  it("errors: the Free plan's 11th hostname is a BadRequestError (400, code 10400); 401 and 404 typed as the SDK types them", async () => {
    const sitekey = await widget();
    const domains = Array.from({ length: 11 }, (_, i) => `pr-${i}.preview.example.com`);
    const full = await caught(
      client().turnstile.widgets.update(sitekey, {
        account_id: ACCOUNT,
        name: "p",
        mode: "managed",
        domains,
      }),
    );
    expect(full).toBeInstanceOf(Cloudflare.BadRequestError);
    expect(full).toMatchObject({
      status: 400,
      errors: [{ code: 10400, message: "invalid value for `domains`, too many values (max: 10)" }],
    });
    const stranger = await caught(
      client("not-a-token").turnstile.widgets.get(sitekey, { account_id: ACCOUNT }),
    );
    expect(stranger).toBeInstanceOf(Cloudflare.AuthenticationError);
    expect(stranger).toMatchObject({ status: 401, errors: [expect.objectContaining({ code: 10000 })] });
    const none = await caught(client().turnstile.widgets.get("0x4AAAAAAAnone", { account_id: ACCOUNT }));
    expect(none).toBeInstanceOf(Cloudflare.NotFoundError);
  });
});
