/**
 * A production-like policy (enforced, tenants pinned, ops listed, the items docs/security.md
 * recommends) admits every line of examples/all-providers.plan.json, read line by line so that a
 * line added to the example is covered without editing this test. Supabase's `/**` entry passes
 * only through the escaped pattern `/\*\*`: the control case without it is refused.
 */
import { describe, expect, it } from "vitest";
import example from "../../examples/all-providers.plan.json";
import demoConnections from "../../examples/connections.local.json";
import { planSchema } from "../../shared/schemas/plan";
import { SecretRegistry } from "../../shared/secrets";
import { ADAPTERS } from "../../workers/adapters";
import { entryOfKey } from "../../workers/adapters/op-spec";
import { connections as readConnections, writePolicy } from "../../workers/config/config-vars";
import { Connections } from "../../workers/connections/connections";
import { OpRegistry } from "../../workers/engine/plan/op-registry";
import { resolveLine } from "../../workers/engine/plan/resolve-plan";
import { checkWrite } from "../../workers/policy/check-write";

const PREVIEW_ITEMS = [
  "https://*.preview.example.com/*",
  "https://*.preview.example.com",
  "*.preview.example.com",
  "https://*.preview.example.com/\\*\\*",
  "https://*.preview.example.com/\\*",
];

/** One pinned parent pattern per demo object the example writes to: ids fixed, nothing open. */
const PREVIEW_PARENTS = [
  "auth0:sponson-demo.us.auth0.com:client:preview-app",
  "supabase:sponsondemoproject01:auth",
  "firebase:sponson-demo:config",
  "gcs:sponson-demo-assets:cors",
  "okta:sponson-demo.okta.com:app:0oasponsondemo",
  "kinde:sponson-demo.kinde.com:app:sponsondemoapp",
  "r2:*:sponson-demo-assets:cors",
  "s3:sponson-demo-assets:cors",
  "google:sponson-demo:oauthClient:global/sponson-demo-client",
  "entra:sponson-demo.onmicrosoft.com:application:5ed0a991-0000-4000-8000-00000000de70",
  "cognito:us-east-1:us-east-1_sponsonDemo:client:sponsondemoclient0000000000",
  "keycloak:keycloak.sponson-demo.example.com:realm:previews:client:preview-app",
  "clerk:instance:ins_sponsondemo",
  "turnstile:5b0b5b0b5b0b5b0b5b0b5b0b5b0bde70:widget:0x4AAAAAAAsponson-demo",
  "googleapikey:sponson-demo:key:sponson-demo-browser-key",
  "auth0:sponson-demo.us.auth0.com:client:federated-app",
  "okta:sponson-demo.okta.com:app:0oasponsonfedapp",
  "recaptcha:sponson-demo:key:sponson-demo-site-key",
];

function productionLike(items: string[]) {
  const ops = [...new Set(ADAPTERS.flatMap((a) => a.ops.map((op) => `${op.name.split(".")[0]}.*`)))];
  return writePolicy({
    SPONSON_POLICY: JSON.stringify({
      version: 1,
      environments: { preview: { parents: PREVIEW_PARENTS, items, ops } },
    }),
  });
}

const plan = planSchema.parse(example);
const context = {
  ops: new OpRegistry(ADAPTERS),
  connections: new Connections(
    readConnections(
      { SPONSON_CONNECTIONS: JSON.stringify(demoConnections) },
      new Set(ADAPTERS.map((a) => a.type)),
    ),
  ),
  secrets: new SecretRegistry(),
};
const targets = plan.lines.map((line) => {
  const resolved = resolveLine(line, context, { environment: "preview", scope: "pr-7" });
  // What the engine asks the policy: the entry (an Entra key also names its platform).
  const item = entryOfKey(resolved.op, resolved.key);
  return { id: line.id, target: { op: resolved.opName, identity: resolved.parent, item } };
});

describe("a production-like policy and the all-providers example", () => {
  it.for(targets.map((t) => [t.id, t] as const))("admits line %s", ([, { target }]) => {
    expect(productionLike(PREVIEW_ITEMS).mode).toBe("enforced");
    expect(checkWrite(productionLike(PREVIEW_ITEMS), "preview", target)).toEqual({
      ok: true,
      value: undefined,
    });
  });

  it("the Supabase line writes `/**` and its parent is supabase:<ref>:auth", () => {
    const supabase = targets.find((t) => t.target.op === "supabase.redirectUrl")?.target;
    expect(supabase).toEqual({
      op: "supabase.redirectUrl",
      identity: "supabase:sponsondemoproject01:auth",
      item: "https://pr-7.preview.example.com/**",
    });
  });

  it("control: without the escaped `/\\*\\*` pattern the Supabase line is refused by the items rule", () => {
    const supabase = targets.find((t) => t.target.op === "supabase.redirectUrl")?.target;
    if (!supabase) throw new Error("the example has a Supabase line");
    const result = checkWrite(productionLike(PREVIEW_ITEMS.slice(0, 3)), "preview", supabase);
    expect(result.ok ? null : result.error.detail?.rule).toBe("policy.environments.preview.items");
  });
});
