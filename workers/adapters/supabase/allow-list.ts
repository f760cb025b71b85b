/**
 * `uri_allow_list` is one comma-separated string (Supabase Management API reference). Clients split on ","
 * and trim; we compare trimmed entries but only ever cut or append whole entries, so every other
 * entry (and its surrounding whitespace) is written back byte-for-byte. Pure functions.
 */

function entries(list: string | null): string[] {
  return list === null || list.trim() === "" ? [] : list.split(",");
}

/** The entries as the provider's clients read them: split on "," and trimmed. */
export function allowListEntries(list: string | null): string[] {
  return entries(list)
    .map((entry) => entry.trim())
    .filter(Boolean);
}

export function allowListHas(list: string | null, url: string): boolean {
  return entries(list).some((entry) => entry.trim() === url);
}

export function allowListWith(list: string | null, url: string): string {
  if (allowListHas(list, url)) return list ?? "";
  return list === null || list.trim() === "" ? url : `${list},${url}`;
}

export function allowListWithout(list: string | null, url: string): string {
  return entries(list)
    .filter((entry) => entry.trim() !== url)
    .join(",");
}
