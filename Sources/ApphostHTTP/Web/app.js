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
//   #confirm[open]                          the confirmation Terminate and Close ask for, from a
//                                           click or a key alike; #confirm-ok, #confirm-cancel
//   .guest [data-field="budget"][data-budget]  counting, unlimited, suspended, expired, none
//   #display-picture .region[data-region]   full, split-first, split-second, slide-over, pip,
//                                           prominent; each with data-session and data-guest
//   #display-picture[data-ratio]            the split's first share, as the host has it
//   #layout-form (#layout-mode, #layout-scene, #layout-scene2, #layout-ratio)
//   .guest form.call[data-action-name]      a form per action, its output.call-result[data-state]
//   #silence, #volume, #devices input[data-device]   the host's audio, driven from the page
//   #audio-sessions tr[data-guest]          a session; data-level, data-active, data-rendering
"use strict";

(() => {
  const TOKEN_KEY = "apphost.token";
  const MAX_EVENTS = 40;
  const REFRESH_DELAY_MS = 120;
  // Events that change nothing the page shows: no status refresh for them.
  const QUIET_EVENTS = new Set(["log", "callback", "audio-meter", "state-saved"]);
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
  async function api(method, path, body, options = {}) {
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
      if (reply.ok) return options.raw ? { result: reply.result, text } : reply.result;
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
    renderDisplay(status);
    renderAudio(status);

    const alertButton = $("#alert");
    alertButton.dataset.alert = status.alert ? "true" : "false";
    alertButton.textContent = status.alert ? "Dismiss alert" : "Show alert";
    alertButton.classList.toggle("on", Boolean(status.alert));
    document.body.dataset.alert = status.alert ? "true" : "false";

    const guests = Array.isArray(status.guests) ? status.guests : [];
    const container = $("#guests");
    reconcile(container, ".guest", "guest", guests, (guest) => guest.id, "#guest-template",
      (card, guest) => renderGuest(card, guest, foreground));

    container.dataset.count = String(guests.length);
    const count = $("#guest-count");
    count.textContent = String(guests.length);
    count.dataset.count = String(guests.length);
    $("#empty").hidden = guests.length > 0;
    document.body.dataset.ready = "true";
  }

  // The background budget (B2): counting down in background, unlimited only in the foreground;
  // a suspended guest runs no time (a fresh budget when it resumes in background), and one
  // whose budget ran out says so.
  function budget(guest) {
    const suspension = guest.suspension;
    if (suspension && suspension.reason === "budgetExpired") {
      return { kind: "expired", text: "expired: 0 s left, suspended" };
    }
    if (suspension || guest.appState === "suspended") {
      const reason = suspension ? suspension.reason : "suspended";
      return { kind: "suspended", text: `none while suspended (${reason}); fresh on resume` };
    }
    if (typeof guest.backgroundTimeRemaining === "number") {
      const left = guest.backgroundTimeRemaining;
      return { kind: left > 0 ? "counting" : "expired", text: left > 0 ? `${left.toFixed(1)} s left` : "expired: 0 s left" };
    }
    if (guest.phase === "notRunning" || guest.appState === "notRunning") {
      return guest.lastReason === "budgetExpired"
        ? { kind: "expired", text: "expired: terminated" }
        : { kind: "none", text: "–" };
    }
    if (guest.appState === "active" || guest.appState === "inactive") {
      return { kind: "unlimited", text: "unlimited (foreground)" };
    }
    if (guest.audio && guest.audio.rendering) return { kind: "unlimited", text: "not counted: background audio" };
    return { kind: "none", text: "–" };
  }

  // Puts `element` at `index` among `parent`'s children, moving it only when it is elsewhere:
  // a move takes the focus away from a button or a field in it, a keyboard user's place.
  function place(parent, element, index) {
    const at = parent.children[index];
    if (at === element) return;
    parent.insertBefore(element, at || null);
  }

  // Makes the elements `selector` finds in `container`, each named by its `data-<key>`, show
  // `values` in their order: an element a value's key names is rendered again and kept, one is
  // cloned from `template` for a new key, and the elements of keys no longer there go.
  function reconcile(container, selector, key, values, keyOf, template, render) {
    const elements = new Map();
    for (const element of container.querySelectorAll(selector)) elements.set(element.dataset[key], element);
    const keep = new Set();
    values.forEach((value, index) => {
      let element = elements.get(keyOf(value));
      if (!element) element = $(template).content.firstElementChild.cloneNode(true);
      render(element, value);
      place(container, element, index);  // an existing element into the values' order
      keep.add(keyOf(value));
    });
    for (const [id, element] of elements) if (!keep.has(id)) element.remove();
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
    const budgetElement = field(card, "budget");
    const budgetShown = budget(guest);
    budgetElement.textContent = budgetShown.text;
    budgetElement.dataset.budget = budgetShown.kind;
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
    reconcile(list, ":scope > .scene", "session", scenes, (scene) => scene.session, "#scene-template",
      (item, scene) => renderScene(item, scene, guest));
    if (!scenes.length) {
      list.dataset.empty = "true";
    } else {
      delete list.dataset.empty;
    }
    renderCalls(card, guest);
  }

  // ---- a guest's actions (F1, F2): a form per action, made from its signature -----------

  // The integer types' ranges, as the header's table gives them (as text: 64 bits do not fit
  // a JavaScript number).
  const INTEGER_RANGES = {
    y: ["0", "255"],
    n: ["-32768", "32767"],
    q: ["0", "65535"],
    i: ["-2147483648", "2147483647"],
    u: ["0", "4294967295"],
    x: ["-9223372036854775808", "9223372036854775807"],
    t: ["0", "18446744073709551615"],
  };
  const TYPE_NAMES = {
    b: "boolean", y: "byte", n: "int16", q: "uint16", i: "int32", u: "uint32", x: "int64", t: "uint64",
    d: "double", s: "string", ay: "bytes, base64",
  };

  function signature(action) {
    return `${action.name}(${(action.arguments || []).join("")})${action.result || ""}`;
  }

  function renderCalls(card, guest) {
    const details = field(card, "calls");
    const actions = Array.isArray(guest.actions) ? guest.actions : [];
    details.hidden = actions.length === 0;
    field(card, "callCount").textContent = `(${actions.length})`;
    // Built again only when the actions change, so that what a person typed stays.
    const key = JSON.stringify(actions);
    const forms = field(card, "callForms");
    if (forms.dataset.key === key) {
      for (const form of forms.querySelectorAll("form.call")) form.dataset.guest = guest.id;
      return;
    }
    forms.dataset.key = key;
    forms.replaceChildren(...actions.map((action) => callForm(guest.id, action)));
  }

  function callForm(guestID, action) {
    const form = document.createElement("form");
    form.className = "call";
    form.dataset.guest = guestID;
    form.dataset.actionName = action.name;
    form.dataset.signature = signature(action);
    form.autocomplete = "off";
    const head = document.createElement("div");
    head.className = "call-head";
    const code = document.createElement("code");
    code.textContent = signature(action);
    head.append(code);
    if (action.description) {
      const about = document.createElement("span");
      about.className = "call-about";
      about.textContent = action.description + (action.foreground ? " (in the foreground only)" : "");
      head.append(about);
    }
    form.append(head);
    const types = Array.isArray(action.arguments) ? action.arguments : [];
    types.forEach((type, index) => form.append(argumentField(guestID, action.name, type, index)));
    const row = document.createElement("div");
    row.className = "call-row";
    const button = document.createElement("button");
    button.type = "submit";
    button.className = "small";
    button.textContent = "Call";
    button.setAttribute("aria-label", `Call ${action.name}`);
    const output = document.createElement("output");
    output.className = "call-result";
    output.dataset.state = "";
    output.setAttribute("aria-live", "polite");
    row.append(button, output);
    form.append(row);
    return form;
  }

  function argumentField(guestID, actionName, type, index) {
    const id = `call-${guestID}-${actionName}-${index}`.replace(/[^A-Za-z0-9_-]/g, "_");
    const wrapper = document.createElement("div");
    wrapper.className = "call-argument";
    const label = document.createElement("label");
    label.htmlFor = id;
    label.textContent = `argument ${index + 1}`;
    const kind = document.createElement("small");
    kind.textContent = ` ${TYPE_NAMES[type] || type}`;
    label.append(kind);
    const input = document.createElement("input");
    input.id = id;
    input.dataset.type = type;
    input.dataset.index = String(index);
    const range = INTEGER_RANGES[type];
    if (type === "b") {
      input.type = "checkbox";
      wrapper.append(input, label);
      return wrapper;
    }
    if (range) {
      // Numbers within a double's exact range get a number field; 64-bit ones text with a pattern.
      const exact = type !== "x" && type !== "t";
      input.type = exact ? "number" : "text";
      if (exact) {
        input.min = range[0];
        input.max = range[1];
        input.step = "1";
      } else {
        input.inputMode = "numeric";
        input.pattern = range[0].startsWith("-") ? "-?[0-9]+" : "[0-9]+";
      }
      input.required = true;
      input.title = `an integer from ${range[0]} to ${range[1]}`;
      input.placeholder = `${range[0]} … ${range[1]}`;
    } else if (type === "d") {
      input.type = "number";
      input.step = "any";
      input.required = true;
      input.title = "a finite number";
    } else if (type === "ay") {
      input.type = "text";
      input.pattern = "[A-Za-z0-9+/]*={0,2}";
      input.title = "base64 text";
      input.spellcheck = false;
    } else {
      input.type = "text";
      input.spellcheck = false;
    }
    wrapper.append(label, input);
    return wrapper;
  }

  // The argument as a word the host parses by the action's types; an error for a value out of
  // its type's range.
  function argumentWord(input) {
    const type = input.dataset.type;
    if (type === "b") return input.checked ? "true" : "false";
    const value = input.value.trim();
    const range = INTEGER_RANGES[type];
    if (range) {
      if (!/^-?[0-9]+$/.test(value)) throw new Error(`argument ${Number(input.dataset.index) + 1}: an integer is needed`);
      const number = BigInt(value);
      if (number < BigInt(range[0]) || number > BigInt(range[1])) {
        throw new Error(`argument ${Number(input.dataset.index) + 1}: ${value} is not from ${range[0]} to ${range[1]}`);
      }
      return number.toString();
    }
    if (type === "d") {
      if (value === "" || !Number.isFinite(Number(value))) throw new Error(`argument ${Number(input.dataset.index) + 1}: a finite number is needed`);
      return value;
    }
    return input.value;  // a string as it is; bytes as base64
  }

  async function onCall(event) {
    const form = event.target.closest("form.call");
    if (!form) return;
    event.preventDefault();
    const output = form.querySelector("output.call-result");
    const button = form.querySelector('button[type="submit"]');
    let words;
    try {
      words = [...form.querySelectorAll("input[data-type]")].map(argumentWord);
    } catch (error) {
      output.dataset.state = "error";
      output.textContent = oneLine(error.message);
      return;
    }
    const action = form.dataset.actionName;
    output.dataset.state = "calling";
    output.textContent = "calling…";
    button.disabled = true;
    try {
      const { result: reply, text: raw } = await api("POST", "v1/call", { guest: form.dataset.guest, action, words }, { raw: true });
      clearError();
      output.dataset.state = "done";
      if (reply && "result" in reply) {
        let value = typeof reply.result === "string" ? reply.result : JSON.stringify(reply.result);
        // A 64-bit integer as the host wrote it: a JavaScript number rounds it past 2^53.
        const exact = /"result"\s*:\s*(-?\d+)\s*[,}]/.exec(raw);
        if (typeof reply.result === "number" && Number.isInteger(reply.result) && exact) value = exact[1];
        output.dataset.result = value;
        output.textContent = `→ ${value}`;
        output.title = `result of type ${reply.type || "?"}`;
      } else {
        output.dataset.result = "";
        output.textContent = "done (no result)";
      }
    } catch (error) {
      output.dataset.state = "error";
      output.textContent = oneLine(error.message);
      showError(`call ${action}: ${error.message}`);
      if (error.status === 401) setConnection("unauthorized", "token needed");
    } finally {
      button.disabled = false;
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

  // ---- the display (S11): its layout as a picture, and a form to change it --------------

  // Every scene of the status by its session: its guest, handle and a name for people.
  function scenesBySession(status) {
    const scenes = new Map();
    for (const guest of Array.isArray(status.guests) ? status.guests : []) {
      for (const scene of Array.isArray(guest.scenes) ? guest.scenes : []) {
        const handle = scene.handle === undefined || scene.handle === null ? null : scene.handle;
        const what = scene.title ? `“${scene.title}”` : handle !== null ? `#${handle}` : String(scene.session).slice(0, 8);
        scenes.set(scene.session, {
          guest: guest.id, guestName: text(guest.name, guest.id), handle, session: scene.session, state: scene.state,
          label: `${text(guest.name, guest.id)} ${what}`,
        });
      }
    }
    return scenes;
  }

  function displaySize(display) {
    const match = /^(\d+)x(\d+)$/.exec(String(display || ""));
    return match ? { width: Number(match[1]), height: Number(match[2]) } : { width: 1920, height: 1080 };
  }

  // Each region as the host sizes it (Layout.sizes): a split divides the width by its ratio;
  // slide over is a 320-point column on the right; picture in picture a quarter of the width at
  // 16:9 (drawn in the bottom left corner); a prominent scene 70% by 80%, in the middle.
  function regions(layout, size) {
    const result = [];
    if (!layout) return result;
    const main = layout.main || { mode: "empty", scenes: [] };
    const scenes = Array.isArray(main.scenes) ? main.scenes : [];
    if (main.mode === "fullScreen" && scenes[0]) {
      result.push({ region: "full", ref: scenes[0], left: 0, top: 0, width: 1, height: 1, place: "full screen" });
    } else if (main.mode === "split" && scenes.length === 2) {
      const ratio = typeof main.ratio === "number" ? main.ratio : 0.5;
      result.push({ region: "split-first", ref: scenes[0], left: 0, top: 0, width: ratio, height: 1, place: "split left" });
      result.push({ region: "split-second", ref: scenes[1], left: ratio, top: 0, width: 1 - ratio, height: 1, place: "split right" });
    }
    const slideOver = Array.isArray(layout.slideOver) ? layout.slideOver : [];
    if (slideOver.length) {
      const width = Math.min(size.width, 320) / size.width;
      result.push({ region: "slide-over", ref: slideOver.at(-1), left: 1 - width, top: 0, width, height: 1, place: "slide over", hidden: slideOver.length - 1 });
    }
    if (layout.pictureInPicture) {
      const width = 0.25;
      const height = Math.min(1, (size.width / 4) * 9 / 16 / size.height);
      result.push({ region: "pip", ref: layout.pictureInPicture, left: 0.02, top: 0.98 - height, width, height, place: "picture in picture" });
    }
    if (layout.prominent) {
      result.push({ region: "prominent", ref: layout.prominent, left: 0.15, top: 0.1, width: 0.7, height: 0.8, place: "prominent" });
    }
    return result;
  }

  function renderDisplay(status) {
    const size = displaySize(status.display);
    $("#display-size").textContent = text(status.display, "");
    const picture = $("#display-picture");
    picture.style.aspectRatio = `${size.width} / ${size.height}`;
    const layout = status.layout || {};
    const main = layout.main || { mode: "empty" };
    picture.dataset.main = main.mode || "empty";
    picture.dataset.ratio = main.mode === "split" && typeof main.ratio === "number" ? String(main.ratio) : "";
    const scenes = scenesBySession(status);
    const shown = regions(layout, size);
    const items = shown.map((region) => {
      const scene = scenes.get(region.ref.session);
      const element = document.createElement("div");
      element.className = `region region-${region.region}`;
      element.dataset.region = region.region;
      element.dataset.session = region.ref.session;
      element.dataset.guest = region.ref.guest;
      element.style.left = `${region.left * 100}%`;
      element.style.top = `${region.top * 100}%`;
      element.style.width = `${region.width * 100}%`;
      element.style.height = `${region.height * 100}%`;
      const name = document.createElement("span");
      name.className = "region-name";
      name.textContent = scene ? scene.label : `${region.ref.guest} ${String(region.ref.session).slice(0, 8)}`;
      const place = document.createElement("span");
      place.className = "region-place";
      place.textContent = region.region === "split-first" || region.region === "split-second"
        ? `${region.place} ${Math.round(region.width * 100)}%`
        : region.place + (region.hidden ? ` (+${region.hidden} hidden)` : "");
      element.append(name, place);
      return element;
    });
    if (!items.length) {
      const home = document.createElement("span");
      home.className = "display-home";
      home.textContent = "home: no scene shown";
      items.push(home);
    }
    picture.replaceChildren(...items);
    picture.setAttribute(
      "aria-label",
      shown.length
        ? `the display, ${text(status.display, "")}: ` + shown.map((region) => `${region.place} ${(scenes.get(region.ref.session) || {}).label || region.ref.guest}`).join("; ")
        : "the display: home, no scene shown");
    renderLayoutForm(scenes, main);
  }

  function fillSelect(select, scenes) {
    const chosen = select.value;
    const options = [...scenes.values()].map((scene) => {
      const option = document.createElement("option");
      option.value = scene.session;
      option.textContent = `${scene.label} (${scene.state})`;
      option.dataset.guest = scene.guest;
      return option;
    });
    const key = options.map((option) => `${option.value}=${option.textContent}`).join("|");
    if (select.dataset.key !== key) {
      select.dataset.key = key;
      select.replaceChildren(...options);
      if (chosen && scenes.has(chosen)) select.value = chosen;
    }
  }

  function renderLayoutForm(scenes, main) {
    fillSelect($("#layout-scene"), scenes);
    fillSelect($("#layout-scene2"), scenes);
    const ratio = $("#layout-ratio");
    // The host's ratio, unless a person is choosing one.
    if (main.mode === "split" && typeof main.ratio === "number" && document.activeElement !== ratio && !ratio.dataset.touched) {
      ratio.value = String(main.ratio);
    }
    $("#layout-ratio-value").textContent = `${Math.round(Number(ratio.value) * 100)}%`;
    showLayoutFields();
  }

  function showLayoutFields() {
    const mode = $("#layout-mode").value;
    for (const row of document.querySelectorAll("#layout-form [data-modes]")) {
      row.hidden = !row.dataset.modes.split(" ").includes(mode);
    }
    $("#layout-form [data-field=sceneLabel]").textContent = mode === "split" ? "first scene" : "scene";
  }

  function onLayoutSubmit(event) {
    event.preventDefault();
    const mode = $("#layout-mode").value;
    const body = { layout: mode };
    if (["full", "split", "slide-over", "pip"].includes(mode)) {
      body.scene = $("#layout-scene").value;
      if (!body.scene) return showError("layout: there is no scene to arrange");
    }
    if (mode === "split") body.scene2 = $("#layout-scene2").value;
    if (mode === "split" || mode === "ratio") body.ratio = Number($("#layout-ratio").value);
    delete $("#layout-ratio").dataset.touched;
    return send("layout", body, $("#layout-apply"));
  }

  // ---- audio (C1 to C13): the host's side, and each guest's session ----------------------

  const DEVICES = ["speaker", "built-in-mic", "headphones", "bluetooth", "line-out", "line-in"];

  function dbfs(value) {
    return typeof value === "number" && Number.isFinite(value) ? Math.max(-120, Math.min(0, value)) : -120;
  }

  function renderAudio(status) {
    const audio = status.audio;
    // A status without the host's audio (none before this API had it) shows no panel.
    $(".audio-section").hidden = !audio;
    if (!audio) return;
    const silence = $("#silence");
    if (!state.pending.has(silence)) silence.checked = Boolean(audio.silenceSwitch);
    silence.dataset.on = audio.silenceSwitch ? "true" : "false";
    const volume = $("#volume");
    // Not under a person's hand: a slider being moved keeps its place.
    if (document.activeElement !== volume && !state.pending.has(volume)) volume.value = String(audio.volume);
    volume.dataset.volume = String(audio.volume);
    $("#volume-value").textContent = `${Math.round(audio.volume * 100)}%`;
    const output = $("#audio-output");
    output.textContent = text(audio.output);
    output.dataset.output = text(audio.output, "");
    const input = $("#audio-input");
    input.textContent = text(audio.input);
    input.dataset.input = text(audio.input, "");
    $("#audio-call").hidden = !audio.callInProgress;
    const mixer = audio.mixer;
    const peak = mixer && mixer.level ? dbfs(mixer.level.peakDBFS) : -120;
    $("#mixer-level").value = peak;
    $("#mixer-level-text").textContent = mixer ? `${peak.toFixed(0)} dBFS peak · sink ${text(mixer.sink)}` : "no mixer";

    const plugged = new Set(Array.isArray(audio.devices) ? audio.devices : []);
    const list = $("#devices");
    if (!list.children.length) {
      for (const device of DEVICES) {
        const id = `device-${device}`;
        const box = document.createElement("input");
        box.type = "checkbox";
        box.id = id;
        box.dataset.device = device;
        const label = document.createElement("label");
        label.htmlFor = id;
        label.textContent = device;
        const wrapper = document.createElement("span");
        wrapper.className = "device";
        wrapper.append(box, label);
        list.append(wrapper);
      }
    }
    for (const box of list.querySelectorAll("input[data-device]")) {
      if (!state.pending.has(box)) box.checked = plugged.has(box.dataset.device);
      box.dataset.plugged = plugged.has(box.dataset.device) ? "true" : "false";
    }

    const body = $("#audio-sessions tbody");
    const rows = [];
    for (const guest of Array.isArray(status.guests) ? status.guests : []) {
      const session = guest.audio;
      if (!session) continue;
      const row = document.createElement("tr");
      row.dataset.guest = guest.id;
      row.dataset.active = session.active ? "true" : "false";
      row.dataset.rendering = session.rendering ? "true" : "false";
      row.dataset.level = String(session.level);
      row.dataset.gain = String(session.gain);
      row.dataset.muted = session.muted ? "true" : "false";
      const cells = [];
      const name = document.createElement("th");
      name.scope = "row";
      name.textContent = text(guest.name, guest.id);
      name.title = guest.id;
      cells.push(name);
      const category = document.createElement("td");
      category.textContent = `${session.category}${session.mode && session.mode !== "default" ? ` · ${session.mode}` : ""}`;
      cells.push(category);
      const flags = [session.active ? "active" : "inactive"];
      if (session.rendering) flags.push("playing");
      if (session.interruption) flags.push(`interrupted (${session.interruption})`);
      if (session.ducked) flags.push("ducked");
      if (session.muted) flags.push("muted");
      const what = document.createElement("td");
      what.textContent = flags.join(", ");
      cells.push(what);
      const level = document.createElement("td");
      level.className = "level";
      const meter = document.createElement("meter");
      meter.min = 0;
      meter.max = 1;
      meter.value = Math.max(0, Math.min(1, Number(session.level) || 0));
      meter.setAttribute("aria-label", `${text(guest.name, guest.id)}'s level`);
      const figure = document.createElement("span");
      const peak = session.meter && session.meter.level ? ` · ${dbfs(session.meter.level.peakDBFS).toFixed(0)} dBFS` : "";
      figure.textContent = `${Math.round((Number(session.level) || 0) * 100)}% of gain ${Math.round((Number(session.gain) || 0) * 100)}%${peak}`;
      level.append(meter, figure);
      cells.push(level);
      const route = document.createElement("td");
      route.textContent = session.route ? `${text(session.route.output)} / ${text(session.route.input)}` : "–";
      cells.push(route);
      row.append(...cells);
      rows.push(row);
    }
    if (!rows.length) {
      const row = document.createElement("tr");
      const cell = document.createElement("td");
      cell.colSpan = 5;
      cell.className = "muted";
      cell.textContent = "no running guest has a session";
      row.append(cell);
      rows.push(row);
    }
    body.replaceChildren(...rows);
  }

  async function sendControl(verb, body, control) {
    state.pending.add(control);
    try {
      await send(verb, body);
    } finally {
      state.pending.delete(control);
      if (state.status) render(state.status);
    }
  }

  // One volume request at a time, the latest value last: a slider moved by several key presses
  // sends several, which must not reach the host out of order.
  async function sendVolume(slider) {
    state.volumeWanted = Number(slider.value);
    if (state.volumeSending) return;
    state.volumeSending = true;
    state.pending.add(slider);
    try {
      while (state.volumeWanted !== state.volumeSent) {
        const volume = state.volumeWanted;
        state.volumeSent = volume;
        await send("audio-volume", { volume });
      }
    } finally {
      state.volumeSending = false;
      state.volumeSent = undefined;
      state.pending.delete(slider);
      if (state.status) render(state.status);
    }
  }

  function onChange(event) {
    const target = event.target;
    if (target.id === "silence") return sendControl("audio-silence", { on: target.checked }, target);
    if (target.id === "volume") return sendVolume(target);
    if (target.dataset && target.dataset.device) {
      return sendControl("audio-route", { plug: target.checked, device: target.dataset.device }, target);
    }
    if (target.id === "layout-mode") return showLayoutFields();
  }

  function onInput(event) {
    const target = event.target;
    if (target.id === "volume") $("#volume-value").textContent = `${Math.round(Number(target.value) * 100)}%`;
    if (target.id === "layout-ratio") {
      target.dataset.touched = "true";
      $("#layout-ratio-value").textContent = `${Math.round(Number(target.value) * 100)}%`;
    }
  }

  // ---- the confirmation Terminate and Close ask for ---------------------------------------

  // The same for a click and for Enter or Space on a focused button: a modal dialog, Cancel
  // focused first; only Confirm sends the verb.
  function confirmThen(title, message, confirmText, action, origin) {
    const dialog = $("#confirm");
    if (dialog.open) return;
    $("#confirm-title").textContent = title;
    $("#confirm-text").textContent = message;
    $("#confirm-ok").textContent = confirmText;
    dialog.returnValue = "";
    dialog.addEventListener(
      "close",
      () => {
        const confirmed = dialog.returnValue === "confirm";
        if (origin && origin.isConnected) origin.focus();
        if (confirmed) action();
      },
      { once: true });
    dialog.showModal();
    $("#confirm-cancel").focus();
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
        return confirmThen(`Terminate ${id}?`, "Its process ends; its saved state survives.", "Terminate",
          () => send("terminate", { guest: id }, button), button);
      }
      case "close": {
        const scene = button.dataset.scene;
        return confirmThen(`Close scene ${scene.slice(0, 8)} for good?`, "Its session and saved state go.", "Close",
          () => send("close", { scene }, button), button);
      }
    }
  }

  function start() {
    document.addEventListener("click", onClick);
    document.addEventListener("submit", onCall);
    document.addEventListener("change", onChange);
    document.addEventListener("input", onInput);
    $("#layout-form").addEventListener("submit", onLayoutSubmit);
    showLayoutFields();
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
