/** A fresh emulated Clerk instance (its own secret key on api.clerk.com) and an adapter context. */
import {
  CLERK_HOST,
  type ClerkInstanceRecord,
  type ClerkKey,
  type ClerkRace,
  type ClerkRedirectUrl,
  clerkInstance,
  clerkKeys,
  clerkRedirectUrl,
} from "../../../dev/emulators/clerk";
import { clerkAdapter } from "../../../workers/adapters/clerk";
import type { OpSpec } from "../../../workers/adapters/op-spec";
import { emulatorStub } from "../../helpers/emulators";
import { harness, type SetupFailure } from "../../helpers/provider-contract";

export { CLERK_HOST };

export function clerkOp(name: string): OpSpec {
  const op = clerkAdapter.ops.find((o) => o.name === name);
  if (!op) throw new Error(`no op ${name}`);
  return op;
}

/** A production key (1,000 requests per 10 s), unless a test asks for a development one. */
export function freshClerkInstance(kind: "live" | "test" = "live") {
  const id = crypto.randomUUID().replaceAll("-", "");
  return { instance: `ins_${id.slice(0, 20)}`, secretKey: `sk_${kind}_${id}` };
}

export async function clerkInstanceWith(
  seed: {
    allowedOrigins?: string[] | null;
    redirectUrls?: string[];
    keyKind?: "live" | "test";
    /** The emulator's ClerkKey.shortPages hook: that many list pages answered one URL short. */
    shortPages?: number;
  },
  failure?: SetupFailure,
) {
  const { instance, secretKey } = freshClerkInstance(seed.keyKind);
  const stub = emulatorStub(CLERK_HOST);
  const entries: Record<string, unknown> = {
    [clerkKeys.key(secretKey)]: {
      instance,
      ...(failure === "forbidden" ? { forbidden: true } : {}),
      ...(seed.shortPages ? { shortPages: seed.shortPages } : {}),
    } satisfies ClerkKey,
    [clerkKeys.instance(instance)]: clerkInstance(instance, seed.allowedOrigins ?? null),
  };
  (seed.redirectUrls ?? []).forEach((url, i) => {
    const ruId = `ru_seed${String(i).padStart(4, "0")}${instance.slice(4, 12)}`;
    entries[clerkKeys.redirect(instance, ruId)] = clerkRedirectUrl(ruId, url, 1_700_000_000_000 + i);
  });
  await stub.seed(entries);
  const key = failure === "unauthenticated" ? `sk_live_wrong${crypto.randomUUID().slice(0, 8)}` : secretKey;
  // "missing": the connection names an instance the key does not belong to.
  const configured = failure === "missing" ? `ins_other${instance.slice(4, 14)}` : instance;
  const config = { type: "clerk", instance: configured, secretKey: key };
  const h = harness(clerkAdapter, config, [key, secretKey]);
  const stored = async () => {
    const k = clerkKeys.instance(instance);
    return (await stub.dump(k))[k] as ClerkInstanceRecord | undefined;
  };
  const redirectUrls = async () =>
    Object.values(await stub.dump(clerkKeys.redirects(instance))) as ClerkRedirectUrl[];
  const setOrigins = async (origins: string[]) =>
    stub.seed({ [clerkKeys.instance(instance)]: clerkInstance(instance, origins) });
  /**
   * The emulator's ClerkRace hook: the `nth` POST of a URL containing `substring` finds it created
   * by someone else just before (a deterministic race between a read and that request).
   */
  const raceCreate = async (substring: string, nth = 1) =>
    stub.seed({ [clerkKeys.race(secretKey, substring)]: { nth } satisfies ClerkRace });
  return { ...h, instance, secretKey: key, stored, redirectUrls, setOrigins, raceCreate };
}
