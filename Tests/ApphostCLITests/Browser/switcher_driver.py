#!/usr/bin/env python3
"""Drive the web app switcher in headless Chromium, for the tests (issue 18, point 4).

Chromium is driven through the DevTools protocol over --remote-debugging-pipe: it reads
commands from fd 3 and writes replies and events to fd 4, each a JSON message ended by a NUL
byte, so no websocket library is needed. Python 3 standard library only.

    switcher_driver.py URL --guests N --screenshot PATH [--token-file F] [--timeout S]

It opens URL, waits until the page shows N guest cards and its event stream is live, saves a
PNG screenshot to PATH, notes the foreground guest, clicks the page's Home button with a real
mouse click, and waits until the page shows that guest in background (or suspended) and no
longer in the foreground. It then prints one JSON object (the summary) on standard output and
exits 0; on a timeout or any failure it prints one line on standard error and exits 1 (2 for a
usage error).
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
