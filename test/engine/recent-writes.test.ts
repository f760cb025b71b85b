/** The pure merge of a parent lock's recent writes over a read (docs/design.md, "Providers that forget a write"). */
import { describe, expect, it } from "vitest";
import type { RecentWrite } from "../../shared/schemas/recent-writes";
import { entraAdapter } from "../../workers/adapters/entra";
import { oktaAdapter } from "../../workers/adapters/okta";
import type { OpSpec } from "../../workers/adapters/op-spec";
import { mergeRecentWrites, recentWritesOf } from "../../workers/engine/rules/recent-writes";

const op = entraAdapter.ops[0] as OpSpec;
const batch = op.batch as NonNullable<OpSpec["batch"]>;
const application = crypto.randomUUID();
const stateWith = (web: string[], spa: string[] = []) => ({
  kind: "entra.application",
  object: application,
  obj: {
    id: application,
    web: { redirectUris: web, logoutUrl: "https://a.example.com/out" },
    spa: { redirectUris: spa },
  },
});
const write = (
  kind: string,
  url: string,
  action: "add" | "remove",
  at: number,
  until = at + 1_000,
): RecentWrite => ({
  op: "entra.redirectUri",
  key: `${kind}:${url}`,
  params: { application, kind, url },
  action,
  at,
  until,
});
const opNamed = (name: string) => [...entraAdapter.ops, ...oktaAdapter.ops].find((o) => o.name === name);
// An Entra key names its platform (`<kind>:<url>`): the keys of one kind, as URLs.
const listOf = (state: unknown, kind: string) =>
  batch
    .keys(state, { application, kind, url: "https://x.example.com/" })
    .filter((key) => key.startsWith(`${kind}:`))
    .map((key) => key.slice(kind.length + 1));

describe("merging recent writes over a read", () => {
  it("an add the read does not show is put back; a remove the read still shows is taken out", () => {
    const read = stateWith(["https://u.example.com/", "https://gone.example.com/"]);
    const merged = mergeRecentWrites(
      batch,
      read,
      [
        write("web", "https://new.example.com/", "add", 10),
        write("web", "https://gone.example.com/", "remove", 11),
      ],
      opNamed,
      20,
    );
    expect(listOf(merged, "web")).toEqual(["https://u.example.com/", "https://new.example.com/"]);
  });

  it("each write lands in its own list (kind), and the rest of the object stays as read", () => {
    const merged = mergeRecentWrites(
      batch,
      stateWith(["https://u.example.com/"]),
      [write("spa", "https://s.example.com/", "add", 1)],
      opNamed,
      2,
    );
    expect(listOf(merged, "spa")).toEqual(["https://s.example.com/"]);
    expect(listOf(merged, "web")).toEqual(["https://u.example.com/"]);
    expect((merged as ReturnType<typeof stateWith>).obj.web.logoutUrl).toBe("https://a.example.com/out");
  });

  it("a write the read already shows changes nothing; an expired one is not applied", () => {
    const read = stateWith(["https://u.example.com/"]);
    expect(
      mergeRecentWrites(batch, read, [write("web", "https://u.example.com/", "add", 1)], opNamed, 2),
    ).toBe(read);
    expect(
      mergeRecentWrites(batch, read, [write("web", "https://u.example.com/", "remove", 1, 5)], opNamed, 5),
    ).toBe(read);
  });

  it("writes of another kind of object, or of an unknown op, are left alone", () => {
    const read = stateWith([]);
    const foreign: RecentWrite = {
      ...write("web", "https://o.example.com/", "add", 1),
      op: "okta.redirectUri",
    };
    const unknown: RecentWrite = { ...write("web", "https://o.example.com/", "add", 1), op: "gone.op" };
    expect(mergeRecentWrites(batch, read, [foreign, unknown], opNamed, 2)).toBe(read);
  });

  it("recentWritesOf keeps each change as add/remove from now until now + window", () => {
    expect(
      recentWritesOf(
        [{ opName: "entra.redirectUri", key: "k", params: { url: "k" }, action: "remove" }],
        100,
        50,
      ),
    ).toEqual([
      { op: "entra.redirectUri", key: "k", params: { url: "k" }, action: "remove", at: 100, until: 150 },
    ]);
  });
});
