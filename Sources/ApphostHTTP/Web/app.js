// The apphost app switcher: the host's guests and scenes, live from its event stream, with the
// control verbs as buttons. Plain JavaScript, no build step, no external resources.
//
// What a test can rely on:
//   body[data-ready="true"]                 once a status has been shown
//   #guests[data-count="N"]                 the number of guest cards
//   .guest[data-guest="ID"]                 a guest's card; its data-app-state is the app state
//   .guest [data-field="appState"]          the same state, as text
//   .scene[data-session="UUID"]             a scene; data-scene-state, data-placement
//   #foreground[data-foreground="ID"]       the foreground guest ("" for none)
//   #home, #alert[data-alert]               the global buttons
//   [data-action]                           every button that sends a verb
//   #error                                  the last error, one line (hidden when none)
//   #connection[data-connection]            live, connecting, reconnecting, unauthorized
//   #events li[data-event="KIND"]           recent events, newest first
"use strict";

(() => {
  const TOKEN_KEY = "apphost.token";
  const MAX_EVENTS = 40;
  const REFRESH_DELAY_MS = 120;
  // Events that change nothing the page shows: no status refresh for them.
  const QUIET_EVENTS = new Set(["log", "callback", "audio-meter", "audio-level", "state-saved"]);
  // Periodic events the recent-events list would drown in.
  const UNLISTED_EVENTS = new Set(["audio-meter"]);

  const $ = (selector, root = document) => root.querySelector(selector);

  const state = {
    status: null,
    events: [],
    lastEventId: null,
    refreshTimer: null,
    refreshing: false,
    refreshAgain: false,
    streamAbort: null,
    busy: 0,
    // Buttons whose request is under way, so that a re-render does not enable them again.
    pending: new Set(),
  };

  // ---- the token ------------------------------------------------------------------------

  function token() {
    try {
      return sessionStorage.getItem(TOKEN_KEY) || "";
    } catch {
      return "";
    }
  }

  function setToken(value) {
    try {
      if (value) sessionStorage.setItem(TOKEN_KEY, value);
      else sessionStorage.removeItem(TOKEN_KEY);
    } catch {
      // sessionStorage may be unavailable (a file: page, private modes): the field still works
      // for this page's life.
    }
    state.memoryToken = value;
  }

  function authHeaders() {
    const value = token() || state.memoryToken || "";
    return value ? { Authorization: `Bearer ${value}` } : {};
  }

  // ---- messages -------------------------------------------------------------------------

  function oneLine(text) {
    return String(text).replace(/\s+/g, " ").trim();
  }

  function showError(text) {
    const element = $("#error");
    element.textContent = oneLine(text);
    element.hidden = false;
  }

  function clearError() {
    const element = $("#error");
    element.textContent = "";
    element.hidden = true;
  }

  function showNotice(text) {
    const element = $("#notice");
    element.textContent = oneLine(text);
    element.hidden = false;
    clearTimeout(state.noticeTimer);
    state.noticeTimer = setTimeout(() => {
      element.hidden = true;
    }, 6000);
  }

  function setConnection(name, text) {
    const element = $("#connection");
    element.dataset.connection = name;
    element.textContent = text || name;
  }

  // ---- the API --------------------------------------------------------------------------

  class APIError extends Error {
    constructor(message, status) {
      super(message);
      this.status = status;
    }
  }

  // A control reply: {"ok":true,"result":...} or {"code":"...","error":"one line","ok":false}.
  async function api(method, path, body) {
    const headers = { Accept: "application/json", ...authHeaders() };
    const init = { method, headers, cache: "no-store" };
    // Every POST is JSON, an empty one too: the host refuses any other (a form post from a
    // foreign page must not drive it).
    if (method === "POST") {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body === undefined ? {} : body);
    }
    let response;
    try {
      response = await fetch(path, init);
    } catch (error) {
      throw new APIError(`the host does not answer (${error.message || error})`, 0);
    }
    const text = await response.text();
    let reply = null;
    try {
      reply = JSON.parse(text);
    } catch {
      // Not a control reply: a proxy's page, or a server error.
    }
    if (reply && typeof reply === "object" && "ok" in reply) {
      if (reply.ok) return reply.result;
      throw new APIError(reply.error || `HTTP ${response.status}`, response.status);
    }
    const detail = oneLine(text).slice(0, 160);
    throw new APIError(`HTTP ${response.status} ${response.statusText}${detail ? `: ${detail}` : ""}`, response.status);
  }

  async function send(verb, body, button) {
    state.busy += 1;
    if (button) {
      button.disabled = true;
      state.pending.add(button);
    }
    document.body.dataset.busy = "true";
    try {
      const result = await api("POST", `v1/${verb}`, body);
      clearError();
      if (result && typeof result.message === "string") showNotice(result.message);
      scheduleRefresh(0);
    } catch (error) {
      showError(`${verb}: ${error.message}`);
      if (error.status === 401) setConnection("unauthorized", "token needed");
    } finally {
      state.busy -= 1;
      if (button) {
        state.pending.delete(button);
        button.disabled = false;
        if (state.status) render(state.status);  // what the state allows, until the refresh
      }
      if (state.busy === 0) document.body.dataset.busy = "false";
    }
  }

  // ---- the status -----------------------------------------------------------------------

  function scheduleRefresh(delay = REFRESH_DELAY_MS) {
    if (state.refreshTimer !== null) return;
    state.refreshTimer = setTimeout(() => {
      state.refreshTimer = null;
      refresh();
    }, delay);
  }

  async function refresh() {
    if (state.refreshing) {
      state.refreshAgain = true;
      return;
    }
    state.refreshing = true;
    try {
      const status = await api("GET", "v1/guests");
      state.status = status;
      render(status);
      if (state.statusError) {
        state.statusError = false;
        clearError();
      }
    } catch (error) {
      state.statusError = true;
      showError(`status: ${error.message}`);
      if (error.status === 401) setConnection("unauthorized", "token needed");
    } finally {
      state.refreshing = false;
      if (state.refreshAgain) {
        state.refreshAgain = false;
        scheduleRefresh();
      }
    }
  }

  function text(value, fallback = "–") {
    return value === undefined || value === null || value === "" ? fallback : String(value);
  }

  function ago(iso) {
    const time = Date.parse(iso);
    if (Number.isNaN(time)) return text(iso);
    const seconds = Math.max(0, Math.round((Date.now() - time) / 1000));
    if (seconds < 60) return `${seconds}s ago`;
    if (seconds < 3600) return `${Math.floor(seconds / 60)}m ${seconds % 60}s ago`;
    return `${Math.floor(seconds / 3600)}h ${Math.floor((seconds % 3600) / 60)}m ago`;
  }

  function field(root, name) {
    return root.querySelector(`[data-field="${name}"]`);
  }

  function layoutLine(layout) {
    if (!layout) return "–";
    const short = (ref) => `${ref.guest}/${String(ref.session).slice(0, 8)}`;
    const parts = [];
    const main = layout.main || { mode: "empty", scenes: [] };
    if (main.mode === "split") {
      parts.push(`split ${main.scenes.map(short).join(" | ")} (${Math.round((main.ratio || 0.5) * 100)}%)`);
    } else if (main.mode === "fullScreen") {
      parts.push(`full screen ${short(main.scenes[0])}`);
    } else {
      parts.push("home");
    }
    if (layout.slideOver && layout.slideOver.length) parts.push(`slide over ${short(layout.slideOver.at(-1))}`);
    if (layout.pictureInPicture) parts.push(`pip ${short(layout.pictureInPicture)}`);
    if (layout.prominent) parts.push(`prominent ${short(layout.prominent)}`);
    return parts.join(" · ");
  }

  function render(status) {
    const foreground = status.foreground || "";
    const foregroundElement = $("#foreground");
    foregroundElement.dataset.foreground = foreground;
    foregroundElement.textContent = foreground || "none (home)";
    $("#display").textContent = text(status.display);
    $("#layout").textContent = layoutLine(status.layout);

    const alertButton = $("#alert");
    alertButton.dataset.alert = status.alert ? "true" : "false";
    alertButton.textContent = status.alert ? "Dismiss alert" : "Show alert";
    alertButton.classList.toggle("on", Boolean(status.alert));
    document.body.dataset.alert = status.alert ? "true" : "false";

    const guests = Array.isArray(status.guests) ? status.guests : [];
    const container = $("#guests");
    const cards = new Map();
    for (const card of container.querySelectorAll(".guest")) cards.set(card.dataset.guest, card);
    const keep = new Set();
    for (const guest of guests) {
      let card = cards.get(guest.id);
      if (!card) card = $("#guest-template").content.firstElementChild.cloneNode(true);
      renderGuest(card, guest, foreground);
      container.appendChild(card);  // moves an existing card into the status's order
      keep.add(guest.id);
    }
    for (const [id, card] of cards) if (!keep.has(id)) card.remove();

    container.dataset.count = String(guests.length);
    const count = $("#guest-count");
    count.textContent = String(guests.length);
    count.dataset.count = String(guests.length);
    $("#empty").hidden = guests.length > 0;
    document.body.dataset.ready = "true";
  }

  function renderGuest(card, guest, foreground) {
    card.dataset.guest = guest.id;
    card.dataset.appState = guest.appState;
    card.dataset.phase = text(guest.phase, "");
    card.classList.toggle("foreground", guest.id === foreground);
    field(card, "name").textContent = text(guest.name, guest.id);
    field(card, "id").textContent = guest.id;
    const appState = field(card, "appState");
    appState.textContent = guest.appState;
    appState.dataset.state = guest.appState;
    field(card, "lastReason").textContent = text(guest.lastReason);
    const since = field(card, "since");
    since.textContent = guest.since ? ago(guest.since) : "–";
    since.title = text(guest.since, "");
    field(card, "phase").textContent = text(guest.phase);
    const suspension = field(card, "suspension");
    suspension.textContent = guest.suspension
      ? `${guest.suspension.reason}, ${ago(guest.suspension.since)}`
      : "no";
    suspension.dataset.reason = guest.suspension ? guest.suspension.reason : "";
    field(card, "pid").textContent = text(guest.pid, guest.phase === "running" ? "in process" : "–");
    field(card, "version").textContent = text(guest.version);
    field(card, "budget").textContent =
      typeof guest.backgroundTimeRemaining === "number"
        ? `${guest.backgroundTimeRemaining.toFixed(1)} s left`
        : "unlimited";
    const tasks = Array.isArray(guest.tasks) ? guest.tasks : [];
    field(card, "tasks").textContent = tasks.length
      ? tasks.map((task) => `${task.name}${task.expired ? " (expired)" : ""}`).join(", ")
      : "none";

    // What the buttons can do in this state; the host still decides (a refusal is a 409).
    const running = guest.phase === "running" || guest.phase === "launching";
    const button = (action) => card.querySelector(`button[data-action="${action}"]`);
    for (const action of ["switch", "suspend", "resume", "terminate"]) button(action).dataset.guest = guest.id;
    button("switch").disabled = guest.id === foreground && guest.appState === "active";
    button("suspend").disabled = !running || guest.appState === "suspended";
    button("resume").disabled = guest.appState !== "suspended";
    button("terminate").disabled = !running;
    for (const action of ["switch", "suspend", "resume", "terminate"]) {
      if (state.pending.has(button(action))) button(action).disabled = true;
    }

    const list = field(card, "scenes");
    const scenes = Array.isArray(guest.scenes) ? guest.scenes : [];
    const items = new Map();
    for (const item of list.querySelectorAll(":scope > .scene")) items.set(item.dataset.session, item);
    const keep = new Set();
    for (const scene of scenes) {
      let item = items.get(scene.session);
      if (!item) item = $("#scene-template").content.firstElementChild.cloneNode(true);
      renderScene(item, scene, guest);
      list.appendChild(item);
      keep.add(scene.session);
    }
    for (const [session, item] of items) if (!keep.has(session)) item.remove();
    if (!scenes.length) {
      list.dataset.empty = "true";
    } else {
      delete list.dataset.empty;
    }
  }

  function renderScene(item, scene, guest) {
    item.dataset.session = scene.session;
    item.dataset.guest = guest.id;
    item.dataset.sceneState = scene.state;
    item.dataset.placement = scene.placement || "";
    item.dataset.handle = scene.handle === undefined || scene.handle === null ? "" : String(scene.handle);
    item.classList.toggle("shown", Boolean(scene.placement));
    const handle = scene.handle === undefined || scene.handle === null ? "unattached" : `#${scene.handle}`;
    const name = scene.title ? `“${scene.title}”` : `${scene.role || "scene"} ${handle}`;
    field(item, "name").textContent = name;
    field(item, "name").title = `session ${scene.session}${scene.title ? ` · ${handle}` : ""}`;
    const sceneState = field(item, "state");
    sceneState.textContent = scene.state;
    sceneState.dataset.state = scene.state;
    field(item, "size").textContent = scene.size
      ? `${scene.size.width}×${scene.size.height} ${scene.size.sizeClass}`
      : "never shown";
    field(item, "placement").textContent = scene.placement || "not shown";

    const loading = field(item, "loading");
    const progress = loading.querySelector("progress");
    const label = loading.querySelector(".loading-text");
    if (typeof scene.loading === "number") {
      loading.hidden = false;
      progress.value = scene.loading;
      label.textContent = `loading ${Math.floor(scene.loading * 100)}%`;
      loading.dataset.loading = String(scene.loading);
    } else if (scene.loading === "indeterminate") {
      loading.hidden = false;
      progress.removeAttribute("value");
      label.textContent = "loading…";
      loading.dataset.loading = "indeterminate";
    } else {
      loading.hidden = true;
      loading.dataset.loading = "none";
    }

    const modals = field(item, "modals");
    modals.replaceChildren();
    for (const modal of Array.isArray(scene.modals) ? scene.modals : []) {
      const li = document.createElement("li");
      li.className = "modal";
      li.dataset.modal = String(modal.id);
      li.dataset.style = modal.style;
      li.textContent = `${modal.style === "fullScreen" ? "full-screen modal" : "sheet"} “${modal.title}”`;
      modals.appendChild(li);
    }

    const failure = field(item, "saveFailure");
    failure.hidden = !scene.saveFailure;
    failure.textContent = scene.saveFailure ? `state not stored: ${scene.saveFailure}` : "";

    const close = item.querySelector('button[data-action="close"]');
    close.dataset.scene = scene.session;
  }

  // ---- events ---------------------------------------------------------------------------

  function describe(event) {
    const parts = [];
    if (event.guest) parts.push(event.guest);
    if (event.scene !== undefined && event.scene !== null) parts.push(`scene ${event.scene}`);
    if (event.from || event.to) parts.push(`${text(event.from, "?")} → ${text(event.to, "?")}`);
    if (event.name) parts.push(event.name);
    if (event.reason) parts.push(`(${event.reason})`);
    if (event.level) parts.push(`[${event.level}]`);
    if (event.message) parts.push(event.message);
    return parts.join(" ");
  }

  function addEvent(kind, detail, time, id) {
    state.events.unshift({ kind, detail, time, id });
    if (state.events.length > MAX_EVENTS) state.events.length = MAX_EVENTS;
    const list = $("#events");
    const li = document.createElement("li");
    li.dataset.event = kind;
    if (id !== null && id !== undefined) li.dataset.id = String(id);
    const clock = document.createElement("time");
    const parsed = time ? new Date(time) : new Date();
    clock.dateTime = parsed.toISOString();
    clock.textContent = parsed.toLocaleTimeString([], { hour12: false });
    const name = document.createElement("span");
    name.className = "kind";
    name.textContent = kind;
    const body = document.createElement("span");
    body.className = "detail";
    body.textContent = detail;
    li.append(clock, name, body);
    list.prepend(li);
    while (list.children.length > MAX_EVENTS) list.lastElementChild.remove();
  }

  function onEvent(type, data, id) {
    if (type === "gap") {
      // Before the first event seen, the history merely starts later than the host's start:
      // this page missed nothing.
      if (state.lastEventId === null) return;
      // {"missed":K,"restarted":false}, or {"missed":null,"restarted":true} when the host
      // restarted since the last event seen: what it holds of its new run follows.
      let gap = {};
      try {
        gap = JSON.parse(data) || {};
      } catch {}
      const count = typeof gap.missed === "number" ? `${gap.missed} events` : "events";
      const text = gap.restarted
        ? "the host restarted: events of its earlier run are not held"
        : `missed ${count} the host no longer holds`;
      addEvent("gap", text, null, id);
      scheduleRefresh(0);
      return;
    }
    if (type === "dropped") {
      // A control reply: {"ok":false,"error":"events dropped: ..."}; the stream ends and resumes.
      let why = "the host dropped this stream";
      try {
        why = JSON.parse(data).error || why;
      } catch {}
      addEvent("dropped", `${why} (resuming)`, null, id);
      scheduleRefresh(0);
      return;
    }
    let event;
    try {
      event = JSON.parse(data);
    } catch {
      return;
    }
    const kind = event.event || type;
    if (!UNLISTED_EVENTS.has(kind)) addEvent(kind, describe(event), event.time, id);
    if (!QUIET_EVENTS.has(kind)) scheduleRefresh();
  }

  function sleep(ms, signal) {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      if (signal) signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
    });
  }

  // Server-Sent Events over fetch(), so that the token can go in a header (EventSource sends
  // none); the resume position goes back as Last-Event-ID, as EventSource would send it.
  async function stream() {
    let backoff = 0;
    for (;;) {
      const controller = new AbortController();
      state.streamAbort = controller;
      let opened = false;
      try {
        const headers = { Accept: "text/event-stream", ...authHeaders() };
        // The first time, from the oldest event the host still holds (?after=0), so that the
        // list shows what just happened; after that, from the last event seen.
        let path = "v1/events?after=0";
        if (state.lastEventId !== null) {
          headers["Last-Event-ID"] = state.lastEventId;
          path = "v1/events";
        }
        const response = await fetch(path, { headers, cache: "no-store", signal: controller.signal });
        if (response.status === 401) {
          setConnection("unauthorized", "token needed");
          showError("events: a token is needed (enter it above)");
          await sleep(3600 * 1000, controller.signal);  // until the token changes
          continue;
        }
        if (!response.ok || !response.body) {
          let detail = `HTTP ${response.status}`;
          try {
            const reply = await response.json();
            if (reply && reply.error) detail = reply.error;
          } catch {}
          throw new Error(detail);
        }
        opened = true;
        setConnection("live");
        scheduleRefresh(0);  // whatever changed while not connected
        await readEvents(response.body, controller.signal);
        if (!controller.signal.aborted) setConnection("reconnecting", "reconnecting");
      } catch (error) {
        if (controller.signal.aborted) continue;
        setConnection("reconnecting", "reconnecting");
        if (!opened) showError(`events: ${error.message || error}`);
      }
      // The server's `retry:` after a stream that was open; doubling up to 15 s while the
      // host does not answer.
      const retry = state.retry || 1000;
      backoff = opened ? retry : Math.min(Math.max(backoff * 2, retry), 15000);
      await sleep(backoff, controller.signal);
    }
  }

  async function readEvents(body, signal) {
    const reader = body.getReader();
    signal.addEventListener("abort", () => reader.cancel().catch(() => {}), { once: true });
    const decoder = new TextDecoder();
    let buffer = "";
    let data = [];
    let type = "";
    let id = null;
    const dispatch = () => {
      if (id !== null) state.lastEventId = id;
      if (data.length) onEvent(type || "message", data.join("\n"), id);
      data = [];
      type = "";
      id = null;
    };
    const line = (raw) => {
      if (raw === "") return dispatch();
      if (raw.startsWith(":")) return;  // a comment: keep-alive
      const colon = raw.indexOf(":");
      const name = colon < 0 ? raw : raw.slice(0, colon);
      let value = colon < 0 ? "" : raw.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (name === "data") data.push(value);
      else if (name === "event") type = value;
      else if (name === "id" && !value.includes("\0")) id = value;
      else if (name === "retry" && /^\d+$/.test(value)) state.retry = Number(value);
    };
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      for (;;) {
        const match = /\r\n|\r|\n/.exec(buffer);
        if (!match) break;
        // A CR at the very end may be the first half of a CRLF: wait for the next chunk.
        if (match[0] === "\r" && match.index === buffer.length - 1) break;
        line(buffer.slice(0, match.index));
        buffer = buffer.slice(match.index + match[0].length);
      }
    }
  }

  // ---- the buttons ----------------------------------------------------------------------

  function onClick(event) {
    const button = event.target.closest("button[data-action]");
    if (!button || button.disabled) return;
    const action = button.dataset.action;
    switch (action) {
      case "home":
        return send("home", {}, button);
      case "alert":
        return send("alert", button.dataset.alert === "true" ? { dismiss: true } : {}, button);
      case "switch":
      case "suspend":
      case "resume":
        return send(action, { guest: button.dataset.guest }, button);
      case "terminate": {
        const id = button.dataset.guest;
        if (!event.detail || window.confirm(`Terminate ${id}? Its saved state survives.`)) {
          return send("terminate", { guest: id }, button);
        }
        return;
      }
      case "close": {
        const scene = button.dataset.scene;
        if (!event.detail || window.confirm(`Close scene ${scene.slice(0, 8)} for good? Its session and saved state go.`)) {
          return send("close", { scene }, button);
        }
        return;
      }
    }
  }

  function start() {
    document.addEventListener("click", onClick);
    const input = $("#token");
    input.value = token();
    $("#token-form").addEventListener("submit", (event) => {
      event.preventDefault();
      setToken(input.value.trim());
      clearError();
      setConnection("connecting", "connecting");
      if (state.streamAbort) state.streamAbort.abort();
      scheduleRefresh(0);
    });
    // Times shown as "12s ago" age between refreshes.
    setInterval(() => {
      if (state.status && !state.refreshing) render(state.status);
    }, 5000);
    refresh();
    stream();
  }

  start();
})();
