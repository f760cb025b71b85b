/**
 * Entra's cap on an application's redirect URIs (docs/adapters.md, "Capacity"): it counts every
 * platform (`web`, `spa`, `publicClient`), and is 100 instead of 256 when personal Microsoft
 * accounts sign in. Read from the state under the lease, so the check before a write
 * (docs/design.md, "Lists at their cap") refuses what Graph would refuse mid-run.
 */
import { z } from "zod";
import type { CapacityMeasure, ListCapacity } from "../op-spec";
import { ENTRA_KINDS, MAX_REDIRECT_URI_CHARS } from "./config";
import { entraAppSchema, redirectUrisOf } from "./graph-api";

const stateSchema = z.object({ obj: entraAppSchema });

/** The cap when the application admits personal accounts; the documented default is 256. */
export const MAX_REDIRECT_URIS_PERSONAL = 100;

function measure(state: unknown): CapacityMeasure {
  const app = stateSchema.parse(state).obj;
  const entries = ENTRA_KINDS.reduce((n, kind) => n + redirectUrisOf(app, kind).length, 0);
  // `AzureADandPersonalMicrosoftAccount`, and `PersonalMicrosoftAccount` which the docs do not
  // list: the lower cap is the safe reading for both.
  const personal = String(app.signInAudience ?? "").includes("PersonalMicrosoftAccount");
  return personal ? { entries, cap: MAX_REDIRECT_URIS_PERSONAL } : { entries };
}

export const ENTRA_CAPACITY: ListCapacity = {
  maxEntries: 256,
  counts: "redirect URIs of every platform of the application",
  lower: {
    maxEntries: MAX_REDIRECT_URIS_PERSONAL,
    when: "signInAudience admits personal Microsoft accounts",
  },
  maxEntryChars: MAX_REDIRECT_URI_CHARS,
  measure,
};
