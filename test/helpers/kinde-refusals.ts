/**
 * A Kinde application whose provider refuses one POST (400) and, at that moment, lets someone
 * else add a URL: the world of the tests of a send of one request per item stopped by a refusal
 * (docs/design.md, "A send of several requests refused half-way"). Kinde edits one URL per
 * request, so a send stops at the first request that fails.
 */
import { env } from "cloudflare:workers";
import { parentLockKey } from "../../shared/lock-keys";
import type { Plan } from "../../shared/schemas/plan";
import { SecretRegistry } from "../../shared/secrets";
import { lockStub, lockTarget } from "../../workers/locks/lock-target";
import { connectionOf } from "./connections";
import { freshKindeDomain, kindeApp, seedKinde } from "./emulators-kinde";
import { untilWaiters } from "./engine";
import { DEFAULT_REPOSITORY } from "./repositories";
import { type TestEngineOptions, testEngine } from "./test-engine";

export const KINDE_APP = "a1b2c3d4e5f8";

/** The engine request of a scope, waiting up to a minute. */
export const at = (scope: string) => ({
  repository: DEFAULT_REPOSITORY,
  environment: "preview",
  scope,
  wait: true,
  waitTimeoutMs: 60_000,
});

let n = 0;

export async function kindeWorld() {
  n += 1;
  const domain = freshKindeDomain();
  const secret = `KINDE_UNSENT_SECRET_${n}`;
  await seedKinde(domain, {
    m2m: { clientId: "m2m-unsent", clientSecret: "kinde-unsent-1" },
    apps: { [KINDE_APP]: {} },
  });
  const connection = connectionOf(`kinde-unsent-${n}-${domain}`, {
    type: "kinde",
    domain,
    clientId: "m2m-unsent",
    clientSecret: { secret },
  });
  const plan = (...urls: string[]): Plan => ({
    version: 2,
    lines: urls.map((url, i) => ({
      id: `u${i}`,
      op: "kinde.callbackUrl",
      connection,
      params: { app: KINDE_APP, url },
    })),
  });
  const urls = async () => (await kindeApp(domain, KINDE_APP))?.redirect_urls ?? [];
  /** The POST of `refuse` is refused 400, once; someone else adds `added` at that moment. */
  const refusing =
    (refuse: string, added: string) =>
    (inner: typeof fetch): typeof fetch => {
      let done = false;
      return async (input, init) => {
        const req = new Request(input, init);
        if (done || req.method !== "POST" || !(await req.clone().text()).includes(refuse))
          return inner(input, init);
        done = true;
        await seedKinde(domain, { apps: { [KINDE_APP]: { redirect_urls: [...(await urls()), added] } } });
        return Response.json({ errors: [{ code: "INVALID", message: "bad url" }] }, { status: 400 });
      };
    };
  /** An engine with write combining on unless told otherwise. */
  const engine = (overrides: Omit<TestEngineOptions, "bindings"> = {}) =>
    testEngine({ combining: true, ...overrides, bindings: { [secret]: "kinde-unsent-1" } });
  const identity = `kinde:${domain}:app:${KINDE_APP}`;
  const key = await parentLockKey(identity, new SecretRegistry());
  const owners = async (url: string) =>
    (await lockStub(env, key).ownership({ key })).items.find((i) => i.key === url)?.owners ?? [];
  /**
   * Another run holds the application's lock while `queue` puts runs in line behind it (each
   * promise after the one before is queued); the first in line then becomes the holder, and its
   * grant takes the others' changes (write combining).
   */
  const inLine = async <T>(...queue: Array<() => Promise<T>>): Promise<Promise<T>[]> => {
    const other = await lockTarget(env, key, identity).acquire({
      holder: "run-other",
      ttlMs: 60_000,
      wait: false,
      waitTimeoutMs: 0,
    });
    if (!other.ok) throw new Error(other.error.message);
    const runs: Promise<T>[] = [];
    for (const run of queue) {
      runs.push(run());
      await untilWaiters(key, runs.length);
    }
    await lockStub(env, key).release({ key, holder: "run-other", token: other.value.token });
    return runs;
  };
  return { domain, plan, refusing, engine, identity, key, owners, urls, inLine };
}
