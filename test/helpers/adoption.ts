/**
 * Day one for the adoption journeys (docs/design.md, "Adopting existing entries"): an Auth0
 * application whose callbacks already hold 30 entries — 28 preview URLs of pull requests (half
 * open, half closed), one that two patterns claim and one added by hand — and the repository's
 * pull requests on the emulated GitHub.
 */
import { env } from "cloudflare:workers";
import type { AdoptionBody, AdoptionResult } from "../../shared/schemas/adoption";
import type { ItemOwnership } from "../../shared/schemas/ownership";
import { lockStub } from "../../workers/locks/lock-target";
import { call, type TestApp } from "./app";
import { auth0Client } from "./emulators";
import { freshGitHubToken, seedGitHub } from "./emulators-github";
import { appLockKey } from "./engine";
import { APP_CLIENT, auth0Connection, seedTenant } from "./plans";

export const PR_PATTERN = "https://pr-{pr}.preview.example.com";
/** Staging's branch deploys, and its app per pull request: `app-<n>` fits both. */
export const BRANCH_PATTERN = "https://{branch}.staging.example.com";
export const APP_PATTERN = "https://app-{pr}.staging.example.com";
export const BY_HAND = "http://localhost:3000/callback";

export const prUrl = (n: number) => `https://pr-${n}.preview.example.com`;

let next = 0;

export interface DayOne {
  domain: string;
  token: string;
  open: number[];
  closed: number[];
  /** Matched by BRANCH_PATTERN and APP_PATTERN alike. */
  ambiguous: string;
  entries: string[];
}

/** 14 open and 14 closed pull requests with a preview URL each, the ambiguous entry, the hand-added one. */
export async function dayOne(domain: string, sizes = { open: 14, closed: 14 }): Promise<DayOne> {
  next += 1;
  // Numbers no other test uses: every file shares the emulated repository.
  const base = (Math.floor(Math.random() * 9e4) + 1e4) * 100 + next * 100_000_000;
  const open = Array.from({ length: sizes.open }, (_, i) => base + 1 + i);
  const closed = Array.from({ length: sizes.closed }, (_, i) => base + 51 + i);
  const ambiguous = `https://app-${base + 99}.staging.example.com`;
  const entries = [...open, ...closed].map(prUrl);
  // Interleaved the way a list grows: open and closed pull requests' URLs mixed.
  entries.sort();
  entries.splice(7, 0, ambiguous);
  entries.splice(20, 0, BY_HAND);
  await seedTenant(domain, { callbacks: entries });
  const token = freshGitHubToken();
  const pulls: Record<number, "open" | "closed"> = {};
  for (const n of open) pulls[n] = "open";
  for (const n of closed) pulls[n] = "closed";
  pulls[base + 99] = "open";
  await seedGitHub(token, pulls);
  return { domain, token, open, closed, ambiguous, entries };
}

export function adoptionBody(day: Pick<DayOne, "domain" | "token">, extra: Partial<AdoptionBody> = {}) {
  return {
    environment: "preview",
    connection: auth0Connection(day.domain),
    op: "auth0.callbackUrl",
    params: { client: APP_CLIENT },
    patterns: [PR_PATTERN, BRANCH_PATTERN, APP_PATTERN],
    github: { token: day.token },
    ...extra,
  };
}

export async function adopt(app: TestApp, body: object, headers?: Record<string, string>) {
  const res = await call(app, "POST", "/v1/adopt", body, headers);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`adopt: ${res.status} ${text}`);
  return JSON.parse(text) as AdoptionResult;
}

export async function callbacks(domain: string): Promise<string[]> {
  return (await auth0Client(domain, APP_CLIENT))?.callbacks ?? [];
}

/** The entry's ownership as the application's lock keeps it (read without a lease). */
export async function ownership(domain: string, key: string): Promise<ItemOwnership | undefined> {
  const lock = await appLockKey(domain);
  const record = await lockStub(env, lock).ownership({ key: lock });
  return record.items.find((i) => i.op === "auth0.callbackUrl" && i.key === key);
}
