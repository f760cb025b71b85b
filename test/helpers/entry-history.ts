/**
 * The one check of a provider list after a step of a history (the property and fleet histories):
 * what the list holds, compared with a model the test kept from the history alone — never with the
 * service's own receipts or lock records, which are what is under test.
 *
 * - `foreign`: entries no scope owns (seeded, or written by a writer outside the service): each
 *   must be there (`lost foreign`);
 * - `wanted`: entries a settled scope wants, with who wants them: each must be there (`lost`);
 * - `doubt`: entries a failed or crashed run may or may not have left: never counted lost or leaked;
 * - anything else the list holds is `leaked`, and an entry held twice is `doubled`.
 * Pure: it returns the problems, so a control test can show it catching a bad list.
 */

export interface EntryModel {
  foreign: Iterable<string>;
  /** Entry → who wants it (names for the message); an empty list still means wanted. */
  wanted: ReadonlyMap<string, readonly string[]> | Iterable<string>;
  doubt: Iterable<string>;
}

export interface EntryCheckOptions {
  /** Prefix of every problem: where in the history it was found. */
  when: string;
  /** false: an entry held twice is not a problem (a list the provider itself may repeat). */
  doubles?: boolean;
}

export function checkEntries(
  have: readonly string[],
  model: EntryModel,
  options: EntryCheckOptions,
): string[] {
  const { when, doubles = true } = options;
  const foreign = new Set(model.foreign);
  const wanted: ReadonlyMap<string, readonly string[]> =
    model.wanted instanceof Map ? model.wanted : new Map([...model.wanted].map((id) => [id, []]));
  const doubt = new Set(model.doubt);
  const held = new Set(have);
  const problems: string[] = [];
  for (const id of foreign) if (!held.has(id)) problems.push(`${when}: lost foreign ${id}`);
  for (const [id, by] of wanted)
    if (!held.has(id))
      problems.push(`${when}: lost ${id}${by.length > 0 ? ` (wanted by ${by.join(",")})` : ""}`);
  for (const [n, id] of have.entries()) {
    if (have.indexOf(id) !== n) {
      if (doubles) problems.push(`${when}: doubled ${id}`);
    } else if (!foreign.has(id) && !wanted.has(id) && !doubt.has(id)) problems.push(`${when}: leaked ${id}`);
  }
  return problems;
}
