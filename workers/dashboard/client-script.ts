/**
 * The dashboard's only script, inlined with a CSP nonce. It never builds HTML from data: the
 * server renders (and escapes) the live sections, the script swaps them in. It
 * - ticks every "expires in" countdown each second, corrected by the server's clock;
 * - listens on the lock feed WebSocket (/dashboard/feed) and re-fetches /dashboard/live shortly
 *   after any lock changes, reconnecting with backoff when the socket drops, and reloading (to the
 *   sign-in form) when the feed closes it because its token expired or was revoked;
 * - re-fetches on a slow timer anyway (a missed notification heals within FALLBACK_MS) and when a
 *   countdown passes zero (renewals are not announced, so an expiry shown may be stale);
 * - keeps an open force-release form, its typed reason and the focus across swaps;
 * - morphs each refresh into the page (idiomorph, inlined before it by layout.tsx) instead of
 *   replacing it, leaving every <details> the reader opened or closed as they left it.
 */
export const CLIENT_SCRIPT = `(() => {
  "use strict";
  const FALLBACK_MS = 20000;
  const DEBOUNCE_MS = 120;
  const live = document.getElementById("live");
  const status = document.getElementById("feed-status");
  if (!live) return;
  let skew = 0;
  let timer = null;
  let inflight = false;
  let again = false;
  const pad = (n) => String(n).padStart(2, "0");
  const duration = (ms) => {
    const t = Math.max(0, Math.floor(ms / 1000));
    const h = Math.floor(t / 3600), m = Math.floor((t % 3600) / 60), s = t % 60;
    if (h > 0) return h + "h " + pad(m) + "m";
    if (m > 0) return m + "m " + pad(s) + "s";
    return s + "s";
  };
  const readSkew = () => {
    const root = live.querySelector("[data-now]");
    if (root) skew = Number(root.getAttribute("data-now")) - Date.now();
  };
  const setStatus = (state, text) => {
    if (!status) return;
    status.setAttribute("data-state", state);
    status.textContent = text;
  };
  const tick = () => {
    const now = Date.now() + skew;
    let overdue = false;
    for (const el of live.querySelectorAll("[data-expires-at]")) {
      const left = Number(el.getAttribute("data-expires-at")) - now;
      el.textContent = left > 0 ? duration(left) : "due now";
      el.classList.toggle("soon", left < 10000);
      if (left < -2000) overdue = true;
    }
    for (const el of live.querySelectorAll("[data-since]")) {
      el.textContent = duration(now - Number(el.getAttribute("data-since"))) + " ago";
    }
    if (overdue) schedule(1000);
  };
  const keepForms = () => {
    const kept = [];
    for (const d of live.querySelectorAll("details[data-lock]")) {
      if (!d.open) continue;
      const reason = d.querySelector("textarea");
      const confirm = d.querySelector("input[type=checkbox]");
      kept.push({
        lock: d.getAttribute("data-lock"),
        reason: reason ? reason.value : "",
        confirm: confirm ? confirm.checked : false,
        focused: reason !== null && document.activeElement === reason,
      });
    }
    return kept;
  };
  const restoreForms = (kept) => {
    for (const k of kept) {
      for (const d of live.querySelectorAll("details[data-lock]")) {
        if (d.getAttribute("data-lock") !== k.lock) continue;
        d.open = true;
        const reason = d.querySelector("textarea");
        const confirm = d.querySelector("input[type=checkbox]");
        if (reason) reason.value = k.reason;
        if (confirm) confirm.checked = k.confirm;
        if (reason && k.focused) reason.focus();
      }
    }
  };
  // A ledger's open state is the reader's once the page is shown: the server's default never
  // overrides it. Without idiomorph (it failed to load) the swap still works, collapsing them.
  const swap = (html) => {
    if (typeof Idiomorph === "undefined") { live.innerHTML = html; return; }
    Idiomorph.morph(live, html, {
      morphStyle: "innerHTML",
      callbacks: {
        beforeAttributeUpdated: (name, el) => !(name === "open" && el.tagName === "DETAILS"),
      },
    });
  };
  const refresh = async () => {
    if (inflight) { again = true; return; }
    inflight = true;
    try {
      const res = await fetch("/dashboard/live" + location.search, { credentials: "same-origin", cache: "no-store" });
      if (res.redirected || res.status === 401) { location.assign("/dashboard/sign-in"); return; }
      if (!res.ok) { setStatus("error", "refresh failed (" + res.status + ")"); return; }
      const html = await res.text();
      const kept = keepForms();
      swap(html);
      restoreForms(kept);
      readSkew();
      tick();
      live.setAttribute("data-refreshed", String(Date.now()));
    } catch (e) {
      setStatus("error", "offline, retrying");
    } finally {
      inflight = false;
      if (again) { again = false; schedule(DEBOUNCE_MS); }
    }
  };
  function schedule(ms) {
    if (timer !== null) return;
    timer = setTimeout(() => { timer = null; refresh(); }, ms);
  }
  let backoff = 1000;
  const connect = () => {
    if (!("WebSocket" in window)) { setStatus("polling", "polling"); return; }
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const ws = new WebSocket(scheme + location.host + "/dashboard/feed");
    ws.addEventListener("open", () => {
      backoff = 1000;
      setStatus("live", "live");
      schedule(DEBOUNCE_MS);
    });
    ws.addEventListener("message", () => schedule(DEBOUNCE_MS));
    ws.addEventListener("close", (event) => {
      // The feed closed it because the sign-in expired or was revoked: reloading leads to sign-in.
      if (event.code === 4401 || event.code === 4403) { setStatus("error", event.reason); location.reload(); return; }
      setStatus("reconnecting", "reconnecting");
      setTimeout(connect, backoff);
      backoff = Math.min(backoff * 2, 30000);
    });
  };
  readSkew();
  tick();
  setInterval(tick, 1000);
  setInterval(() => schedule(0), FALLBACK_MS);
  connect();
})();`;
