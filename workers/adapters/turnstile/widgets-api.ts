/**
 * Turnstile widgets over Cloudflare's v4 API (Cloudflare API reference, Turnstile widgets): `GET`
 * and `PUT /accounts/{account}/challenges/widgets/{sitekey}`. The PUT replaces the widget's whole
 * configuration: a field its body leaves out goes back to its default (a required one, `name`,
 * `mode`, `domains`, is refused). So the write is the widget exactly as read, every field, known
 * here or not, with only `domains` changed. No etag and no precondition: the parent lease is what
 * serializes writes. Only what Cloudflare derives itself is left out of the body, since no PUT
 * sets it (the API reference's update takes none of it): the identity and timestamps
 * (`SERVER_FIELDS`) and the `secret`, which is dropped at the read — a credential, not
 * configuration (rotation is a call of its own), so it is never kept in a state.
 */
import { z } from "zod";
import { SponsonError } from "../../../shared/errors";
import { CLOUDFLARE_API, cloudflareHttp, v4Envelope } from "../cloudflare/v4";
import { type HttpContext, providerJson } from "../http";
import type { TurnstileConfig } from "./config";

export interface TurnstileContext extends HttpContext {
  config: TurnstileConfig;
}

export const turnstileHttp = cloudflareHttp("turnstile");

/** A widget as this adapter keeps it: what the PUT needs, and every other field as read. */
export const widgetSchema = z
  .object({ name: z.string(), mode: z.string(), domains: z.array(z.string()) })
  .loose();
export type Widget = z.infer<typeof widgetSchema>;

/** Fields Cloudflare sets and keeps whatever a PUT says; a field not named here is sent back. */
const SERVER_FIELDS = ["sitekey", "created_on", "modified_on", "deployed_via", "last_modified_via"];

const widgetUrl = (ctx: TurnstileContext, sitekey: string) =>
  `${CLOUDFLARE_API}/accounts/${ctx.config.accountId}/challenges/widgets/${encodeURIComponent(sitekey)}`;
const headers = (ctx: TurnstileContext) => ({ authorization: `Bearer ${ctx.config.apiToken}` });

export async function readWidget(ctx: TurnstileContext, sitekey: string): Promise<Widget> {
  const body = await providerJson(
    ctx,
    turnstileHttp,
    { method: "GET", url: widgetUrl(ctx, sitekey), headers: headers(ctx) },
    v4Envelope(widgetSchema),
  );
  const { secret: _secret, ...widget } = body.result;
  return widget;
}

/**
 * PUTs `widget` whole. Never with no hostname: Cloudflare refuses that on most accounts, and on one
 * with the Enterprise "Any Hostname" entitlement it opens the widget to every site.
 */
export async function writeWidget(ctx: TurnstileContext, sitekey: string, widget: Widget): Promise<void> {
  if (widget.domains.length === 0) {
    throw new SponsonError(
      "VALIDATION",
      `turnstile: widget ${sitekey} would be left with no hostname, which Cloudflare refuses (or, with Any Hostname, takes as every site); nothing was sent. Add another hostname to the widget, then remove this one`,
      { provider: "turnstile", rule: "turnstile.lastHostname" },
    );
  }
  await providerJson(
    ctx,
    turnstileHttp,
    { method: "PUT", url: widgetUrl(ctx, sitekey), headers: headers(ctx), json: bodyOf(widget) },
    v4Envelope(z.unknown()),
  );
}

const bodyOf = (widget: Widget) =>
  Object.fromEntries(Object.entries(widget).filter(([field]) => !SERVER_FIELDS.includes(field)));
