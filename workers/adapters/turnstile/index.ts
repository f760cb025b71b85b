/**
 * Cloudflare Turnstile: one hostname in a widget's `domains`, where it admits that host and every
 * name under it (so the URL shape check judges it as `*.<hostname>`: shared/url-shape.ts). The PUT
 * replaces the whole widget with no precondition, so writes are serialized by the parent lease.
 * Plan block: `{ "type": "turnstile", "accountId": "<32 hex>", "apiToken": { "secret":
 * "TURNSTILE_API_TOKEN" } }`; line params: `{ "sitekey": "0x4AAA…", "hostname":
 * "pr-1.preview.example.com" }`. Cap: 10 hostnames per widget on the Free plan, 200 on Enterprise;
 * an Enterprise connection raises it with `capacity` (docs/adapters.md, "Capacity").
 */
import { listMemberOp, listWithEntry } from "../list-member/list-member-op";
import { defineAdapter, type OpSpec, type Params, type ProviderAdapter, withCapacity } from "../op-spec";
import {
  type TurnstileConfig,
  turnstileConfigSchema,
  turnstileLineParamsSchema,
  turnstileWidgetIdentity,
} from "./config";
import { readWidget, type Widget, widgetSchema, writeWidget } from "./widgets-api";

/** Hostnames per widget (Turnstile docs, "Hostname management", "Limitations"). */
export const TURNSTILE_HOSTNAMES = { free: 10, enterprise: 200 } as const;

const hostnames: OpSpec<TurnstileConfig> = listMemberOp<TurnstileConfig, Widget>({
  name: "turnstile.hostname",
  providerType: "turnstile",
  params: turnstileLineParamsSchema,
  itemParam: "hostname",
  objectParam: "sitekey",
  lockOn: (params: Params, provider) =>
    turnstileWidgetIdentity(provider, turnstileLineParamsSchema.parse(params).sitekey),
  read: (ctx, sitekey) => readWidget(ctx, sitekey),
  objectSchema: widgetSchema,
  entries: (widget) => widget.domains,
  withEntry: (widget, host, present) => ({
    ...widget,
    domains: listWithEntry(widget.domains, host, present),
  }),
  write: (ctx, sitekey, _before, after) => writeWidget(ctx, sitekey, after),
});

const hostname: OpSpec<TurnstileConfig> = {
  ...withCapacity(hostnames, {
    maxEntries: TURNSTILE_HOSTNAMES.free,
    higher: { maxEntries: TURNSTILE_HOSTNAMES.enterprise, when: "on the Enterprise plan" },
  }),
  coversSubdomains: true,
};

const typedAdapter: ProviderAdapter<TurnstileConfig> = {
  type: "turnstile",
  config: turnstileConfigSchema,
  ops: [hostname],
};

export const turnstileAdapter: ProviderAdapter = defineAdapter(typedAdapter);
export { turnstileWidgetIdentity } from "./config";
