#!/usr/bin/env python3
"""Drive the web app switcher in headless Chromium, for the tests (issue 18, point 4).

Chromium is driven through the DevTools protocol over --remote-debugging-pipe: it reads
commands from fd 3 and writes replies and events to fd 4, each a JSON message ended by a NUL
byte, so no websocket library is needed. Python 3 standard library only.

    switcher_driver.py URL --guests N --screenshot PATH [--token-file F] [--timeout S]
                       [--scenario home|parts]

It opens URL, waits until the page shows N guest cards and its event stream is live, saves a
PNG screenshot to PATH, then plays the scenario:

- home (the default): notes the foreground guest, clicks the page's Home button with a real
  mouse click, and waits until the page shows that guest in background (or suspended) and no
  longer in the foreground.
- parts (issue 35, point 8), with the C sample, Swift Notes, C Music and C Overrun loaded: a
  suspended guest's budget, and one whose budget expired; the layout changed from the page's form (split with a ratio, slide over,
  picture in picture) and the picture the page draws of it, beside the host's layout; an action
  called from its form; the audio panel (sessions and levels, the silence switch, the volume,
  a device plugged in), each seen in GET /v1/guests; Close pressed with Space and Terminate
  pressed with Enter, which must ask first. Each check is recorded in the summary's "checks" ({"ok":..,"detail":..}), and a
  failed one does not stop the others.

It then prints one JSON object (the summary) on standard output and exits 0; on a timeout or
any failure outside a check it prints one line on standard error and exits 1 (2 for a usage
error).
"""

import argparse
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

WIDTH, HEIGHT = 1280, 800


class DriverError(Exception):
    pass


class Browser:
    """A headless Chromium and one page in it, over the DevTools pipe."""

    def __init__(self, executable, log_path):
        self.profile = tempfile.mkdtemp(prefix="apphost-switcher-chromium-")
        # Our ends: we write commands to `commands_w`, Chromium reads them as fd 3; Chromium
        # writes to fd 4, which we read as `replies_r`.
        commands_r, self.commands_w = os.pipe()
        self.replies_r, replies_w = os.pipe()
        # Chromium's ends go above 9 first, so that neither is fd 3 or 4 already (dup2 onto
        # itself would leave it close-on-exec).
        commands_r, replies_w = (self._above_nine(fd) for fd in (commands_r, replies_w))
        flags = [
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--remote-debugging-pipe",
            f"--user-data-dir={self.profile}",
            f"--window-size={WIDTH},{HEIGHT}",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--mute-audio",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            "about:blank",
        ]
        # Debian's `chromium` is a wrapper script that execs the browser; fds 3 and 4 pass
        # through both. Python's own descriptors are close-on-exec, so no others leak.
        def on_fds_3_and_4():
            os.dup2(commands_r, 3)
            os.dup2(replies_w, 4)

        self.log = open(log_path, "wb")
        try:
            self.process = subprocess.Popen(
                [executable, *flags],
                stdin=subprocess.DEVNULL,
                stdout=self.log,
                stderr=subprocess.STDOUT,
                close_fds=False,
                preexec_fn=on_fds_3_and_4,
                start_new_session=True,
            )
        except OSError as error:
            raise DriverError(f"cannot run {executable}: {error.strerror}")
        finally:
            os.close(commands_r)
            os.close(replies_w)
        self.buffer = b""
        self.next_id = 0
        self.session = None
        self.events = []  # every event message, in order
        self.page_errors = []

    @staticmethod
    def _above_nine(fd):
        moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(fd)
        return moved

    # -- the protocol ---------------------------------------------------------------------

    def _read_message(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.replies_r], [], [], left)
            if not ready:
                return None
            chunk = os.read(self.replies_r, 1 << 16)
            if not chunk:
                raise DriverError(f"chromium closed the DevTools pipe (exit status {self.process.poll()})")
            self.buffer += chunk
        raw, _, self.buffer = self.buffer.partition(b"\0")
        return json.loads(raw)

    def _on_event(self, message):
        self.events.append(message)
        method = message.get("method")
        params = message.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            text = details.get("exception", {}).get("description") or details.get("text", "exception")
            self.page_errors.append(text.splitlines()[0])
        elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
            args = params.get("args", [])
            self.page_errors.append(" ".join(str(arg.get("value", arg.get("description", ""))) for arg in args))

    def send(self, method, params=None, timeout=15, session=True):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        data = json.dumps(message).encode() + b"\0"
        try:
            while data:
                data = data[os.write(self.commands_w, data):]
        except BrokenPipeError:
            raise DriverError(f"chromium is gone (exit status {self.process.poll()})")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply is None:
                raise DriverError(f"chromium did not answer {method} within {timeout} s")
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise DriverError(f"{method}: {reply['error'].get('message', reply['error'])}")
                return reply.get("result", {})
            if "method" in reply:
                self._on_event(reply)

    def open(self, url):
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        attached = self.send(
            "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}, session=False
        )
        self.session = attached["sessionId"]
        self.send("Page.enable")
        self.send("Runtime.enable")
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False},
        )
        navigated = self.send("Page.navigate", {"url": url})
        if navigated.get("errorText"):
            raise DriverError(f"cannot open {url}: {navigated['errorText']}")

    def evaluate(self, expression):
        result = self.send(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}
        )
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise DriverError(details.get("exception", {}).get("description", details.get("text", "error")))
        return result.get("result", {}).get("value")

    def wait_for(self, expression, deadline, what, describe):
        """Evaluates `expression` until it is truthy; on the deadline raises with `describe`'s value."""
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() >= deadline:
                raise DriverError(f"timed out waiting for {what} ({self.evaluate(describe)})")
            time.sleep(0.1)

    def click(self, selector):
        """A real mouse click at the middle of the element `selector` names."""
        box = self.evaluate(
            f"""(() => {{
                const element = document.querySelector({json.dumps(selector)});
                if (!element) return null;
                element.scrollIntoView({{block: "center"}});
                const r = element.getBoundingClientRect();
                return {{x: r.left + r.width / 2, y: r.top + r.height / 2, disabled: Boolean(element.disabled)}};
            }})()"""
        )
        if box is None:
            raise DriverError(f"the page has no {selector}")
        if box["disabled"]:
            raise DriverError(f"{selector} is disabled")
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            params = {"type": kind, "x": box["x"], "y": box["y"]}
            if kind != "mouseMoved":
                params.update(button="left", clickCount=1)
            self.send("Input.dispatchMouseEvent", params)

    KEYS = {
        "Enter": (13, "\r"),
        "Tab": (9, None),
        "Escape": (27, None),
        "ArrowLeft": (37, None),
        "ArrowRight": (39, None),
        " ": (32, " "),
    }

    def press(self, key):
        """A real key press (down, then up) on whatever has the focus."""
        code, text = self.KEYS[key]
        down = {"type": "keyDown" if text else "rawKeyDown", "key": key, "code": "Space" if key == " " else key,
                "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code}
        if text:
            down["text"] = text
            down["unmodifiedText"] = text
        self.send("Input.dispatchKeyEvent", down)
        self.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": down["key"], "code": down["code"],
                                             "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code})

    def focus(self, selector):
        found = self.evaluate(
            f"""(() => {{
                const element = document.querySelector({json.dumps(selector)});
                if (!element) return false;
                element.scrollIntoView({{block: "center"}});
                element.focus();
                return document.activeElement === element;
            }})()"""
        )
        if not found:
            raise DriverError(f"cannot focus {selector}: the page has none, or it takes no focus")

    def type_text(self, text):
        self.send("Input.insertText", {"text": text})

    def click_when_enabled(self, selector, deadline):
        """Clicks `selector` once it is enabled: a button stays disabled until the page has the
        reply to its last request, which may come after the host has acted on it."""
        self.wait_for(
            f"""(() => {{ const e = document.querySelector({json.dumps(selector)}); return e !== null && !e.disabled; }})()""",
            deadline, f"{selector} to be enabled", f"document.querySelector({json.dumps(selector)}) ? 'disabled' : 'absent'")
        self.click(selector)

    def screenshot(self, path):
        shot = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": False}, timeout=30)
        data = base64.b64decode(shot["data"])
        directory = os.path.dirname(os.path.abspath(path))
        os.makedirs(directory, exist_ok=True)
        with open(path, "wb") as file:
            file.write(data)
        return len(data)

    def close(self):
        try:
            if self.process.poll() is None:
                self.send("Browser.close", session=False, timeout=5)
        except DriverError:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, 9)
            self.process.wait()
        os.close(self.commands_w)
        os.close(self.replies_r)
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)


STATE = """(() => {
    const cards = [...document.querySelectorAll("#guests .guest")];
    return {
        ready: document.body.dataset.ready === "true",
        connection: document.querySelector("#connection")?.dataset.connection ?? null,
        foreground: document.querySelector("#foreground")?.dataset.foreground ?? null,
        error: document.querySelector("#error")?.hidden === false ? document.querySelector("#error").textContent : null,
        guests: cards.map((card) => ({
            id: card.dataset.guest,
            appState: card.dataset.appState,
            scenes: [...card.querySelectorAll(".scene")].map((scene) => ({
                session: scene.dataset.session, state: scene.dataset.sceneState, placement: scene.dataset.placement,
            })),
        })),
        events: document.querySelectorAll("#events li").length,
    };
})()"""

DESCRIBE = """(() => {
    const cards = [...document.querySelectorAll("#guests .guest")];
    const error = document.querySelector("#error");
    const parts = [`the page shows ${cards.length} guest cards`];
    if (cards.length) parts.push(cards.map((c) => `${c.dataset.guest} ${c.dataset.appState}`).join(", "));
    parts.push(`stream ${document.querySelector("#connection")?.dataset.connection ?? "absent"}`);
    if (error && !error.hidden) parts.push(`error: ${error.textContent}`);
    return parts.join("; ");
})()"""


class HostAPI:
    """The host's HTTP API beside the page: to set a scene up, and to see what the host says."""

    def __init__(self, url, token):
        self.base = url if url.endswith("/") else url + "/"
        self.token = token

    def request(self, method, path, body=None):
        headers = {"Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        data = None
        if method == "POST":
            headers["Content-Type"] = "application/json"
            data = json.dumps(body or {}).encode()
        request = urllib.request.Request(self.base + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                reply = json.loads(response.read())
        except urllib.error.HTTPError as error:
            reply = json.loads(error.read() or b"{}")
        except (urllib.error.URLError, OSError, ValueError) as error:
            raise DriverError(f"{method} /{path}: {error}")
        if not reply.get("ok"):
            raise DriverError(f"{method} /{path}: {reply.get('error', reply)}")
        return reply.get("result")

    def status(self):
        return self.request("GET", "v1/guests")

    def guest(self, guest_id):
        for guest in self.status()["guests"]:
            if guest["id"] == guest_id:
                return guest
        return None


C_ID = "org.apphost.samples.c"
NOTES_ID = "org.apphost.samples.notes"
MUSIC_ID = "org.apphost.samples.music"
OVERRUN_ID = "org.apphost.samples.overrun"

# The picture the page draws: each region's place and session, its box as fractions of the
# picture's.
PICTURE = """(() => {
    const picture = document.querySelector("#display-picture");
    if (!picture) return null;
    const box = picture.getBoundingClientRect();
    return {
        main: picture.dataset.main ?? null,
        ratio: picture.dataset.ratio ? Number(picture.dataset.ratio) : null,
        regions: [...picture.querySelectorAll(".region")].map((region) => {
            const r = region.getBoundingClientRect();
            return {
                region: region.dataset.region, session: region.dataset.session, guest: region.dataset.guest,
                left: (r.left - box.left) / box.width, width: r.width / box.width,
                top: (r.top - box.top) / box.height, height: r.height / box.height,
                text: region.textContent,
            };
        }),
    };
})()"""


def wait_host(what, predicate, api, deadline):
    """Polls GET /v1/guests until `predicate(status)` holds; raises with the last status's gist."""
    while True:
        status = api.status()
        if predicate(status):
            return status
        if time.monotonic() >= deadline:
            raise DriverError(f"timed out waiting for the host: {what} (layout {json.dumps(status.get('layout'))}, "
                              f"audio {json.dumps({k: status.get('audio', {}).get(k) for k in ('volume', 'silenceSwitch', 'devices')})})")
        time.sleep(0.1)


def set_field(browser, selector, value, event="change"):
    """Sets a form field as a person would leave it, and lets the page hear of it."""
    done = browser.evaluate(
        f"""(() => {{
            const element = document.querySelector({json.dumps(selector)});
            if (!element) return false;
            element.value = {json.dumps(value)};
            element.dispatchEvent(new Event("input", {{bubbles: true}}));
            element.dispatchEvent(new Event({json.dumps(event)}, {{bubbles: true}}));
            return element.value === {json.dumps(value)};
        }})()"""
    )
    if not done:
        raise DriverError(f"cannot set {selector} to {value!r}: the page has no such field, or no such choice")


def page_scenes(browser, guest_id):
    """The sessions of `guest_id`'s scenes, in the order its card lists them."""
    return browser.evaluate(
        f"""[...document.querySelectorAll('#guests .guest[data-guest={json.dumps(guest_id)}] .scene')]
            .map((scene) => scene.dataset.session)"""
    )


def parts(browser, api, arguments, deadline):
    """The parts scenario: every check in order, each recorded."""
    checks = {}
    observed = {}

    def check(name, step):
        step_deadline = min(deadline, time.monotonic() + arguments.step_timeout)
        try:
            detail = step(step_deadline)
            checks[name] = {"ok": True, "detail": detail}
        except DriverError as error:
            checks[name] = {"ok": False, "detail": str(error)}

    # A suspended guest's budget: Swift Notes goes to background at launch and is suspended once
    # idle (B6); C Overrun holds its task past its budget and is suspended for it (B4). Neither
    # card may call its budget unlimited.
    def budget_of(guest_id, kinds, why):
        def step(step_deadline):
            browser.wait_for(
                f"""(() => {{
                    const card = document.querySelector('#guests .guest[data-guest={json.dumps(guest_id)}]');
                    return card?.dataset.appState === "suspended"
                        && card.querySelector('[data-field="suspension"]')?.dataset.reason === {json.dumps(why)};
                }})()""",
                step_deadline, f"{guest_id} suspended ({why}) on the page", DESCRIBE)
            shown = browser.evaluate(
                f"""(() => {{
                    const element = document.querySelector('#guests .guest[data-guest={json.dumps(guest_id)}] [data-field="budget"]');
                    return element ? {{text: element.textContent, kind: element.dataset.budget ?? null}} : null;
                }})()""")
            host = api.guest(guest_id)
            if shown is None:
                raise DriverError("the card shows no budget")
            if "unlimited" in shown["text"] or shown["kind"] not in kinds:
                raise DriverError(f"a guest suspended ({why}) has its budget read {shown['text']!r} (kind {shown['kind']!r})")
            return {"text": shown["text"], "kind": shown["kind"], "hostAppState": host["appState"] if host else None,
                    "hostSuspension": ((host or {}).get("suspension") or {}).get("reason")}
        return step

    check("suspendedBudget", budget_of(NOTES_ID, ("suspended",), "automatic"))
    check("expiredBudget", budget_of(OVERRUN_ID, ("expired",), "budgetExpired"))

    # A second window of the C sample, for the split's other half (through the API: the page
    # has no verb for it).
    api.request("POST", "v1/open", {"guest": C_ID})
    browser.wait_for(f"document.querySelectorAll('#guests .guest[data-guest={json.dumps(C_ID)}] .scene').length === 2",
                     deadline, "the C sample's second scene on the page", DESCRIBE)

    def layout(step_deadline):
        c_scenes = page_scenes(browser, C_ID)
        music = page_scenes(browser, MUSIC_ID)[0]
        notes = page_scenes(browser, NOTES_ID)[0]
        # Split, 70% for the first.
        set_field(browser, "#layout-mode", "split")
        set_field(browser, "#layout-scene", c_scenes[0])
        set_field(browser, "#layout-scene2", c_scenes[1])
        set_field(browser, "#layout-ratio", "0.7")
        browser.click_when_enabled("#layout-apply", step_deadline)
        wait_host("a split at 0.7", lambda s: s["layout"]["main"].get("mode") == "split"
                  and abs(s["layout"]["main"].get("ratio", 0) - 0.7) < 1e-9, api, step_deadline)
        # Slide over, then picture in picture.
        set_field(browser, "#layout-mode", "slide-over")
        set_field(browser, "#layout-scene", music)
        browser.click_when_enabled("#layout-apply", step_deadline)
        wait_host("C Music in slide over", lambda s: [r["session"] for r in s["layout"].get("slideOver", [])][-1:] == [music],
                  api, step_deadline)
        set_field(browser, "#layout-mode", "pip")
        set_field(browser, "#layout-scene", notes)
        browser.click_when_enabled("#layout-apply", step_deadline)
        status = wait_host("Swift Notes in picture in picture",
                           lambda s: (s["layout"].get("pictureInPicture") or {}).get("session") == notes, api, step_deadline)
        # The page's picture of it, once its status has the same layout.
        expected = {"split-first": c_scenes[0], "split-second": c_scenes[1], "slide-over": music, "pip": notes}
        browser.wait_for(
            f"""(() => {{
                const regions = [...document.querySelectorAll("#display-picture .region")];
                const expected = {json.dumps(expected)};
                return regions.length === 4 && regions.every((r) => expected[r.dataset.region] === r.dataset.session);
            }})()""",
            step_deadline, "the picture of a split, slide over and picture in picture", PICTURE)
        picture = browser.evaluate(PICTURE)
        observed["hostLayout"] = status["layout"]
        observed["display"] = status["display"]
        return picture

    check("layoutPicture", layout)

    # An action from its form: the C sample's greet(s)s, typed into its field, then scenes()u.
    def action(step_deadline):
        form = f"#guests .guest[data-guest={json.dumps(C_ID)}] form.call[data-action-name=%s]"
        browser.evaluate(f"""document.querySelector('#guests .guest[data-guest={json.dumps(C_ID)}] details.calls')?.setAttribute("open", "")""")
        browser.focus(form % '"greet"' + " input")
        browser.type_text("World")
        browser.click_when_enabled(form % '"greet"' + ' button[type="submit"]', step_deadline)
        greet = browser.wait_for(
            f"""(() => {{
                const output = document.querySelector({json.dumps(form % '"greet"' + " output")});
                return output && output.dataset.state !== "calling" && output.dataset.state !== "" ?
                    {{state: output.dataset.state, text: output.textContent, result: output.dataset.result ?? null}} : null;
            }})()""",
            step_deadline, "greet's result on the page", DESCRIBE)
        browser.click_when_enabled(form % '"scenes"' + ' button[type="submit"]', step_deadline)
        scenes = browser.wait_for(
            f"""(() => {{
                const output = document.querySelector({json.dumps(form % '"scenes"' + " output")});
                return output && output.dataset.state === "done" ? {{text: output.textContent, result: output.dataset.result}} : null;
            }})()""",
            step_deadline, "scenes' result on the page", DESCRIBE)
        signature = browser.evaluate(
            f"""[...document.querySelectorAll('#guests .guest[data-guest={json.dumps(C_ID)}] form.call')]
                .map((form) => [form.dataset.signature, [...form.querySelectorAll("input")].map((i) => i.type)])""")
        return {"greet": greet, "scenes": scenes, "forms": signature}

    check("actionCall", action)

    # The audio panel: C Music plays (a user action on its scene, shown in slide over, through
    # the API); its session shows a level; the silence switch, the volume and a device from the page.
    def audio(step_deadline):
        music = page_scenes(browser, MUSIC_ID)[0]
        # Shown, for its user action, whatever the layout check did.
        layout = api.status()["layout"]
        if music not in [ref["session"] for ref in layout.get("slideOver", [])[-1:]]:
            api.request("POST", "v1/layout", {"layout": "slide-over", "scene": music})
        try:
            api.request("POST", "v1/action", {"scene": music, "name": "play"})
        except DriverError as error:
            raise DriverError(f"C Music did not play: {error}")
        wait_host("C Music rendering", lambda s: any(
            g["id"] == MUSIC_ID and (g.get("audio") or {}).get("rendering") for g in s["guests"]), api, step_deadline)
        rows = browser.wait_for(
            f"""(() => {{
                const rows = [...document.querySelectorAll("#audio-sessions tr[data-guest]")];
                const music = rows.find((r) => r.dataset.guest === {json.dumps(MUSIC_ID)});
                return music && music.dataset.rendering === "true" && Number(music.dataset.level) > 0 ?
                    rows.map((r) => ({{guest: r.dataset.guest, level: Number(r.dataset.level), active: r.dataset.active,
                                      rendering: r.dataset.rendering, text: r.textContent}})) : null;
            }})()""",
            step_deadline, "C Music's session playing, with a level, in the audio panel", DESCRIBE)
        before = api.status()["audio"]
        browser.click_when_enabled("#silence", step_deadline)
        after_silence = wait_host("the silence switch on", lambda s: s["audio"]["silenceSwitch"] is True, api, step_deadline)
        browser.focus("#volume")
        for _ in range(4):
            browser.press("ArrowLeft")
        after_volume = wait_host("the volume at 0.8", lambda s: abs(s["audio"]["volume"] - 0.8) < 1e-6, api, step_deadline)
        browser.click_when_enabled("#device-headphones", step_deadline)
        after_route = wait_host("headphones plugged in", lambda s: "headphones" in s["audio"]["devices"], api, step_deadline)
        shown = browser.wait_for(
            """(() => {
                const output = document.querySelector("#audio-output")?.dataset.output;
                const silence = document.querySelector("#silence")?.checked;
                const volume = document.querySelector("#volume")?.value;
                const headphones = document.querySelector("#device-headphones")?.checked;
                return output === "headphones" && silence && Number(volume) === 0.8 && headphones ?
                    {output, silence, volume: Number(volume), headphones} : null;
            })()""",
            step_deadline, "the audio panel showing what changed", DESCRIBE)
        hosts = {"before": {k: before[k] for k in ("silenceSwitch", "volume", "devices", "output")},
                 "afterSilence": after_silence["audio"]["silenceSwitch"], "afterVolume": after_volume["audio"]["volume"],
                 "afterRoute": {k: after_route["audio"][k] for k in ("devices", "output")}}
        return {"sessions": rows, "page": shown, "host": hosts}

    check("audioPanel", audio)

    # Close from the keyboard, with Space: it asks too, and Escape leaves the scene be.
    def keyboard_close(step_deadline):
        scene = page_scenes(browser, C_ID)[0]
        button = f'#guests .scene[data-session={json.dumps(scene)}] button[data-action="close"]'
        browser.focus(button)
        browser.press(" ")
        time.sleep(0.3)  # what Space set off, if it sent the verb at once, reaches the host meanwhile
        asked = browser.evaluate("""document.querySelector("#confirm")?.open === true""")
        sessions = [s["session"] for g in api.status()["guests"] for s in g["scenes"]]
        if not asked:
            raise DriverError(f"Space on Close asked nothing (the host {'still has' if scene in sessions else 'closed'} the scene)")
        if scene not in sessions:
            raise DriverError("Space on Close closed the scene before any confirmation")
        browser.press("Escape")
        browser.wait_for("""document.querySelector("#confirm")?.open === false""", step_deadline,
                         "the confirmation to close on Escape", DESCRIBE)
        time.sleep(0.3)
        if scene not in [s["session"] for g in api.status()["guests"] for s in g["scenes"]]:
            raise DriverError("Escape on the confirmation closed the scene")
        return {"asked": asked, "kept": True}

    check("keyboardClose", keyboard_close)

    # Terminate from the keyboard: Enter on the focused button asks first; Escape cancels; Tab
    # to the confirmation and Enter terminates.
    def keyboard_terminate(step_deadline):
        button = f'#guests .guest[data-guest={json.dumps(NOTES_ID)}] button[data-action="terminate"]'
        dialog_open = """document.querySelector("#confirm")?.open === true"""
        browser.focus(button)
        browser.press("Enter")
        time.sleep(0.3)  # what Enter set off, if it sent the verb at once, reaches the host meanwhile
        asked = browser.evaluate(dialog_open)
        running = api.guest(NOTES_ID)["phase"]
        if not asked:
            raise DriverError(f"Enter on Terminate asked nothing (the host says Swift Notes is {running})")
        if running == "notRunning":
            raise DriverError("Enter on Terminate terminated Swift Notes before any confirmation")
        focused = browser.evaluate("document.activeElement?.id ?? null")
        browser.press("Escape")
        browser.wait_for(f"!({dialog_open})", step_deadline, "the confirmation to close on Escape", DESCRIBE)
        time.sleep(0.3)
        after_cancel = api.guest(NOTES_ID)["phase"]
        if after_cancel == "notRunning":
            raise DriverError("Escape on the confirmation terminated Swift Notes")
        refocused = browser.evaluate(f"document.activeElement === document.querySelector({json.dumps(button)})")
        browser.press("Enter")
        browser.wait_for(dialog_open, step_deadline, "the confirmation again", DESCRIBE)
        browser.press("Tab")
        on_confirm = browser.evaluate("document.activeElement?.id ?? null")
        browser.press("Enter")
        wait_host("Swift Notes terminated", lambda s: any(g["id"] == NOTES_ID and g["phase"] == "notRunning"
                                                          for g in s["guests"]), api, step_deadline)
        return {"asked": asked, "phaseWhileAsking": running, "focusedInDialog": focused, "phaseAfterCancel": after_cancel,
                "focusBackOnTerminate": refocused, "focusAfterTab": on_confirm}

    check("keyboardConfirmation", keyboard_terminate)
    return checks, observed


def run(arguments):
    started = time.monotonic()
    deadline = started + arguments.timeout
    url = arguments.url
    token = None
    if arguments.token_file:
        with open(arguments.token_file) as file:
            token = file.read().strip()
    log_path = os.path.join(tempfile.gettempdir(), f"apphost-switcher-chromium-{os.getpid()}.log")
    browser = Browser(arguments.chromium, log_path)
    try:
        browser.open("about:blank" if token else url)
        if token:
            # The page keeps the token in sessionStorage, which is per origin: open the origin
            # first, store it, then load the page itself.
            browser.wait_for("document.readyState === 'complete'", deadline, "about:blank", "'loading'")
            browser.send("Page.navigate", {"url": url})
            browser.wait_for("document.readyState !== 'loading' && location.href !== 'about:blank'", deadline,
                             "the page to load", "document.readyState")
            browser.evaluate(f"sessionStorage.setItem('apphost.token', {json.dumps(token)}), location.reload()")
            time.sleep(0.2)

        count = arguments.guests
        browser.wait_for(
            f"""document.body?.dataset.ready === "true"
                && document.querySelectorAll("#guests .guest").length === {count}
                && document.querySelector("#connection")?.dataset.connection === "live"
                && document.fonts.status === "loaded" """,
            deadline,
            f"{count} guest cards and a live event stream",
            DESCRIBE,
        )
        # Let the first events after the stream opened land in the list and the status.
        time.sleep(arguments.settle)
        before = browser.evaluate(STATE)
        foreground = before["foreground"]
        if not foreground:
            raise DriverError(f"no guest is in the foreground before Home ({browser.evaluate(DESCRIBE)})")
        size = browser.screenshot(arguments.screenshot)

        if arguments.scenario == "parts":
            checks, observed = parts(browser, HostAPI(url, token), arguments, deadline)
            browser.screenshot(arguments.screenshot)  # the page with every part shown
            return {
                "url": url,
                "screenshot": os.path.abspath(arguments.screenshot),
                "checks": checks,
                "observed": observed,
                "pageErrors": browser.page_errors,
                "seconds": round(time.monotonic() - started, 3),
            }

        browser.click("#home")
        browser.wait_for(
            f"""(() => {{
                const card = document.querySelector('#guests .guest[data-guest={json.dumps(foreground)}]');
                const shown = document.querySelector("#foreground")?.dataset.foreground;
                return card !== null && ["background", "suspended"].includes(card.dataset.appState)
                    && shown !== {json.dumps(foreground)};
            }})()""",
            deadline,
            f"{foreground} to go to background after Home",
            DESCRIBE,
        )
        after = browser.evaluate(STATE)
        if after["error"]:
            raise DriverError(f"the page shows an error after Home: {after['error']}")
        summary = {
            "url": url,
            "screenshot": os.path.abspath(arguments.screenshot),
            "screenshotBytes": size,
            "foregroundBefore": foreground,
            "foregroundAfter": after["foreground"] or None,
            "before": {guest["id"]: guest["appState"] for guest in before["guests"]},
            "after": {guest["id"]: guest["appState"] for guest in after["guests"]},
            "scenes": {guest["id"]: guest["scenes"] for guest in after["guests"]},
            "eventsListed": after["events"],
            "pageErrors": browser.page_errors,
            "seconds": round(time.monotonic() - started, 3),
        }
        return summary
    except DriverError as error:
        if browser.process.poll() is not None:
            try:
                with open(log_path, "rb") as file:
                    tail = file.read().decode(errors="replace").strip().splitlines()[-1:]
            except OSError:
                tail = []
            if tail:
                raise DriverError(f"{error} (chromium: {tail[0]})")
        raise
    finally:
        browser.close()
        try:
            os.unlink(log_path)
        except OSError:
            pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", help="the switcher page, e.g. http://127.0.0.1:8080/")
    parser.add_argument("--guests", type=int, required=True, help="how many guest cards to wait for")
    parser.add_argument("--screenshot", required=True, help="where to save the PNG")
    parser.add_argument("--token-file", help="a file holding the host's bearer token")
    parser.add_argument("--timeout", type=float, default=30, help="seconds for everything (30)")
    parser.add_argument("--settle", type=float, default=0.5, help="seconds to wait before the screenshot (0.5)")
    parser.add_argument("--scenario", choices=["home", "parts"], default="home", help="what to do on the page (home)")
    parser.add_argument("--step-timeout", type=float, default=10,
                        help="seconds for each check of the parts scenario (10)")
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", "chromium"), help="the browser to run")
    arguments = parser.parse_args()
    if arguments.guests < 0 or not arguments.timeout > 0:
        parser.error("--guests may not be negative, and --timeout must be positive")
    if shutil.which(arguments.chromium) is None:
        print(f"switcher_driver: no {arguments.chromium} on PATH (Debian: apt-get install chromium)", file=sys.stderr)
        return 1
    try:
        summary = run(arguments)
    except DriverError as error:
        print(f"switcher_driver: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"switcher_driver: {error}", file=sys.stderr)
        return 1
    print(json.dumps(summary, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
