/**
 * The dashboard's first-hour rough edges (issue 33): a filter that matches nothing says so (not
 * "No runs recorded yet"), a run's link without its query renders a page (not a JSON problem), a
 * long error wraps inside its table, and the refresh morphs the live sections (idiomorph) keeping
 * a ledger the reader opened open.
 */
import { describe, expect, it } from "vitest";
import { STYLES } from "../../workers/dashboard/styles";
import { call, testApp } from "../helpers/app";
import { bearer } from "../helpers/tokens";

const app = testApp();

async function page(path: string) {
  const res = await call(app, "GET", path, undefined, await bearer("viewer"));
  return { status: res.status, type: res.headers.get("content-type") ?? "", html: await res.text() };
}

describe("the dashboard's empty and broken views", () => {
  it("a filter that matches nothing says so, in the page and in the live fragment", async () => {
    for (const path of [
      "/dashboard?scope=pr-nothing-matches-",
      "/dashboard/live?environment=nowhere-at-all",
    ]) {
      const { status, html } = await page(path);
      expect(status).toBe(200);
      expect(html).toContain("No runs match this filter.");
      expect(html).toContain("No scope matches this filter.");
      expect(html).not.toContain("No runs recorded yet");
      expect(html).not.toContain("No scope has a receipt yet");
    }
  });

  it("a run's link without its environment and scope renders a page saying what the link lacks", async () => {
    const { status, type, html } = await page("/dashboard/runs/run-mx27xnc1-da3c41ee");
    expect(status).toBe(400);
    expect(type).toContain("text/html");
    expect(html).toMatch(/^(<!DOCTYPE html>)?<html/i);
    expect(html).toContain("run-mx27xnc1-da3c41ee");
    expect(html).toContain("?environment=");
    expect(html).toContain('href="/dashboard"');
  });

  it("control: a full run link that names no such run is still the API's 404", async () => {
    const res = await call(
      app,
      "GET",
      "/dashboard/runs/run-none?environment=preview&scope=pr-1",
      undefined,
      await bearer("viewer"),
    );
    expect(res.status).toBe(404);
  });

  it("a long error wraps inside its cell", () => {
    expect(STYLES).toMatch(/td\.error \{[^}]*overflow-wrap: anywhere/);
  });

  it("the page carries idiomorph with the script's nonce, and the refresh morphs instead of replacing", async () => {
    const { html } = await page("/dashboard");
    const nonces = [...html.matchAll(/<script nonce="([^"]+)">/g)].map((m) => m[1]);
    expect(nonces.length).toBe(2);
    expect(new Set(nonces).size).toBe(1);
    expect(html).toContain("var Idiomorph=");
    expect(html).toContain("Idiomorph.morph(live");
    // A ledger's open state is left as the reader set it.
    expect(html).toMatch(
      /beforeAttributeUpdated: \(name, el\) => !\(name === "open" && el\.tagName === "DETAILS"\)/,
    );
  });
});
