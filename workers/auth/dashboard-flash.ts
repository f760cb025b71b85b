/**
 * The dashboard's notice after an action (docs/security.md, "Dashboard notices"): a server-side
 * flash, never the query string, so a link to the dashboard cannot make it say anything. The form
 * route records what happened (which action, which lock) in a short-lived cookie sealed with an
 * HMAC keyed by the browser's session token: only this service, answering that session's own
 * same-origin, CSRF-checked POST, can make one; another session's or a forged one says nothing. The
 * next dashboard page reads it, clears it and words the notice itself.
 */
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { z } from "zod";

/** `__Secure-`: the browser only accepts it Secure (RFC 6265bis §4.1.3.1); sent on /dashboard only. */
export const FLASH_COOKIE = "__Secure-sponson_flash";
/** A flash is for the page the redirect lands on, not for later. */
export const FLASH_MAX_AGE_SECONDS = 60;
const FLASH_PATH = "/dashboard";
/** Isolates' clocks may differ a little; a flash "from the future" beyond this is not ours. */
const FLASH_SKEW_MS = 5_000;

export const flashSchema = z.object({
  kind: z.enum(["released", "refused", "held", "lifted"]),
  /** The lock as the admin named it: its key, or its object's identity (up to 512 characters). */
  key: z.string().min(1).max(520),
  /** ms since the epoch: a replayed cookie older than FLASH_MAX_AGE_SECONDS says nothing. */
  at: z.number().int(),
});
export type Flash = z.infer<typeof flashSchema>;

const encoder = new TextEncoder();

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
  } catch {
    return null;
  }
}

function sealKey(session: string): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", encoder.encode(session), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
    "verify",
  ]);
}

/** Labelled, so this MAC can never stand in for another use of the same session key. */
const sealed = (body: string) => encoder.encode(`sponson-dashboard-flash\u0000${body}`);

export async function setFlash(c: Context, session: string, flash: Flash): Promise<void> {
  const body = base64url(encoder.encode(JSON.stringify(flash)));
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await sealKey(session), sealed(body)));
  setCookie(c, FLASH_COOKIE, `${body}.${base64url(mac)}`, {
    httpOnly: true,
    secure: true,
    sameSite: "Strict",
    path: FLASH_PATH,
    maxAge: FLASH_MAX_AGE_SECONDS,
  });
}

/** This session's flash, consumed: the cookie is cleared whatever it held. */
export async function takeFlash(c: Context, session: string | undefined, now: number): Promise<Flash | null> {
  const value = getCookie(c, FLASH_COOKIE);
  if (value === undefined) return null;
  deleteCookie(c, FLASH_COOKIE, { httpOnly: true, secure: true, sameSite: "Strict", path: FLASH_PATH });
  if (session === undefined) return null;
  const [body = "", macText = "", extra] = value.split(".");
  const mac = fromBase64url(macText);
  if (extra !== undefined || mac === null || body === "") return null;
  // crypto.subtle.verify compares in constant time.
  if (!(await crypto.subtle.verify("HMAC", await sealKey(session), mac, sealed(body)))) return null;
  const bytes = fromBase64url(body);
  let parsed: unknown = null;
  try {
    parsed = bytes === null ? null : JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return null;
  }
  const flash = flashSchema.safeParse(parsed);
  if (
    !flash.success ||
    now - flash.data.at > FLASH_MAX_AGE_SECONDS * 1000 ||
    flash.data.at > now + FLASH_SKEW_MS
  )
    return null;
  return flash.data;
}
