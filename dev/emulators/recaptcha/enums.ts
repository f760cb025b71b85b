/**
 * The Key message's enums as JSON carries them (reCAPTCHA Enterprise API v1 proto). Proto3 JSON
 * takes an enum as its name or its number, and Google's REST front end answers names unless the
 * request says `$alt=json;enum-encoding=int` (what google-gax's REST fallback sends, with numbers
 * in its bodies too). The emulator keeps names, as the API answers every other client.
 */
type Json = Record<string, unknown>;

const ENUMS: ReadonlyArray<{ path: [string, string]; values: Record<string, number> }> = [
  {
    path: ["webSettings", "integrationType"],
    values: {
      INTEGRATION_TYPE_UNSPECIFIED: 0,
      SCORE: 1,
      CHECKBOX: 2,
      INVISIBLE: 3,
      POLICY_BASED_CHALLENGE: 5,
    },
  },
  {
    path: ["webSettings", "challengeSecurityPreference"],
    values: { CHALLENGE_SECURITY_PREFERENCE_UNSPECIFIED: 0, USABILITY: 1, BALANCE: 2, SECURITY: 3 },
  },
  {
    path: ["testingOptions", "testingChallenge"],
    values: { TESTING_CHALLENGE_UNSPECIFIED: 0, NOCAPTCHA: 1, UNSOLVABLE_CHALLENGE: 2 },
  },
  {
    path: ["wafSettings", "wafService"],
    values: { WAF_SERVICE_UNSPECIFIED: 0, CA: 1, FASTLY: 3, CLOUDFLARE: 4, AKAMAI: 5 },
  },
  {
    path: ["wafSettings", "wafFeature"],
    values: { WAF_FEATURE_UNSPECIFIED: 0, CHALLENGE_PAGE: 1, SESSION_TOKEN: 2, ACTION_TOKEN: 3, EXPRESS: 5 },
  },
];

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** `key` with each known enum written `as` names or numbers; values neither form knows are left as they are. */
export function withEnums(key: Json, as: "names" | "numbers"): Json {
  const out = structuredClone(key);
  for (const { path, values } of ENUMS) {
    const parent = out[path[0]];
    if (!isObject(parent)) continue;
    const value = parent[path[1]];
    const name = Object.entries(values).find(([n, v]) => n === value || v === value)?.[0];
    if (name !== undefined) parent[path[1]] = as === "names" ? name : values[name];
  }
  return out;
}

/** Whether the request asked for numbers (`$alt=json;enum-encoding=int`). */
export function wantsNumbers(url: URL): boolean {
  return (url.searchParams.get("$alt") ?? "").split(";").includes("enum-encoding=int");
}
