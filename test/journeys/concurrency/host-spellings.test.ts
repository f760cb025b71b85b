/**
 * One provider object reached through two spellings of its host (docs/design.md, "Vocabulary":
 * parent identities are canonical). Two Keycloak connections name one server, `kc.example.com` and
 * `KC.EXAMPLE.COM:443`: both lock the client as `keycloak:kc.example.com:realm:…`, so a run through
 * one waits for a run through the other and neither loses the other's entry.
 *
 * The interleaving is fixed by the emulator: A's write is held before it lands (knob holdWrites);
 * B starts while it is held. On one lock B can only queue, and reads after A wrote. The control
 * case gives each run a lock of its own, as the two spellings got before identities were
 * canonical: B reads, writes and succeeds while A's write is held, then A's write, decided from the
 * list before B's entry, lands over it.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { parentLockKey } from "../../../shared/lock-keys";
import type { Plan } from "../../../shared/schemas/plan";
import { SecretRegistry } from "../../../shared/secrets";
import { keycloakClientIdentity } from "../../../workers/adapters/keycloak/config";
import type { LockProvider } from "../../../workers/engine/deps";
import { lockStub } from "../../../workers/locks/lock-target";
import { CLIENT, keycloakRealm, REALM } from "../../adapters/keycloak/keycloak-realm";
import { connectionOf } from "../../helpers/connections";
import { configureHost, emulatorStub } from "../../helpers/emulators";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

async function until(what: string, done: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 10_000; i++) {
    if (await done()) return;
    await scheduler.wait(1);
  }
  throw new Error(`never: ${what}`);
}

let n = 0;
/** A Keycloak server with two connections spelling its host two ways, and a plan through each. */
async function twoSpellings() {
  const k = await keycloakRealm({ redirectUris: ["https://app.example.com/callback"] });
  n += 1;
  const secrets = { SPELLING_KEYCLOAK_SECRET: k.secret };
  const planThrough = (name: string, host: string): Plan => {
    const connection = connectionOf(name, {
      type: "keycloak",
      host,
      realm: REALM,
      clientId: "sponson",
      clientSecret: { secret: "SPELLING_KEYCLOAK_SECRET" },
    });
    const url = "https://{scope}.preview.example.com/callback";
    return {
      version: 2,
      lines: [{ id: "entry", op: "keycloak.redirectUri", connection, params: { client: CLIENT, url } }],
    };
  };
  return {
    k,
    secrets,
    plain: planThrough(`spelling-plain-${n}`, k.host),
    spelled: planThrough(`spelling-port-${n}`, `${k.host.toUpperCase()}:443`),
    entries: async () => (await k.record())?.rep.redirectUris ?? [],
  };
}

/** Locks as two spellings did before: each engine's parent locks are its own. */
function ownLocks(label: string) {
  return (inner: LockProvider): LockProvider => ({
    scope: (repositoryId, environment, scope) => inner.scope(repositoryId, environment, scope),
    parent: (identity) => inner.parent(`${identity}:as-spelled-${label}`),
    holdsScope: (repositoryId, environment, scope, holder) =>
      inner.holdsScope(repositoryId, environment, scope, holder),
  });
}

const base = Math.floor(Math.random() * 1e6) * 100;
const scopeOf = (i: number) => `pr-${base + i}`;
const entryOf = (scope: string) => `https://${scope}.preview.example.com/callback`;

async function race(control: boolean) {
  const s = await twoSpellings();
  const engineA = testEngine({ bindings: s.secrets, ...(control ? { wrapLocks: ownLocks("a") } : {}) });
  const engineB = testEngine({ bindings: s.secrets, ...(control ? { wrapLocks: ownLocks("b") } : {}) });
  const [scopeA, scopeB] = [scopeOf(n * 2), scopeOf(n * 2 + 1)];
  const address = {
    repository: DEFAULT_REPOSITORY,
    environment: "preview",
    wait: true,
    waitTimeoutMs: 60_000,
  };
  const stub = emulatorStub(s.k.host);

  await configureHost(s.k.host, { holdWrites: 1 });
  const a = engineA.apply({ ...address, scope: scopeA, plan: s.plain });
  await until("A's write is held", async () => (await stub.stats()).heldWrites === 1);
  const b = engineB.apply({ ...address, scope: scopeB, plan: s.spelled });
  // B has either queued behind A on their one lock, or (on a lock of its own) written already.
  const identity = keycloakClientIdentity({ type: "keycloak", host: s.k.host, realm: REALM }, CLIENT);
  const key = await parentLockKey(identity, new SecretRegistry());
  await until("B queued or wrote", async () => {
    const queued = (await lockStub(env, key).read({ key })).waiters.length >= 1;
    return queued || (await stub.stats()).writes >= 1;
  });
  await stub.releaseWrites();
  const runs = await Promise.all([a, b]);
  await configureHost(s.k.host, {});
  const have = await s.entries();
  return { runs, lost: [scopeA, scopeB].map(entryOf).filter((e) => !have.includes(e)) };
}

describe("two connections spelling one Keycloak host differently", () => {
  it("their runs take one lock and serialize: both entries survive", async () => {
    const { runs, lost } = await race(false);
    expect(runs.map((r) => r.run.status)).toEqual(["succeeded", "succeeded"]);
    expect(lost).toEqual([]);
  });

  it("control: the same interleaving on a lock per spelling loses B's entry, both runs say succeeded", async () => {
    const { runs, lost } = await race(true);
    expect(runs.map((r) => r.run.status)).toEqual(["succeeded", "succeeded"]);
    expect(lost).toEqual([entryOf(scopeOf(n * 2 + 1))]);
  });

  it("both spellings name one identity: case, a trailing dot and the default port are dropped", () => {
    const settings = (host: string) => ({ type: "keycloak", host, realm: REALM });
    const identities = ["kc.example.com", "KC.Example.COM:443", "kc.example.com.:443"].map((host) =>
      keycloakClientIdentity(settings(host), CLIENT),
    );
    expect(new Set(identities)).toEqual(new Set([`keycloak:kc.example.com:realm:${REALM}:client:${CLIENT}`]));
    expect(keycloakClientIdentity(settings("kc.example.com:8443"), CLIENT)).toBe(
      `keycloak:kc.example.com:8443:realm:${REALM}:client:${CLIENT}`,
    );
  });
});
