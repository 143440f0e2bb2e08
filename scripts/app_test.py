#!/usr/bin/env python3
"""The responder's page (/app) in a real headless Chromium, driven by Selenium: `make test` runs this
through scripts/app-test.sh after the other script steps.

It starts alertd (.build/debug/alertd, or ALERTD_BIN) with a tokens file and --notify aimed at a local
receiver, which plays ntfy (and serves the page of a hostile site), then checks what a responder on a
phone relies on:

* signing in with a token, the pending list grouped by presenter, answering the login alert with a
  password that is never shown back, and "answered elsewhere, by bob" when bob answered over REST first;
* at 360 px (phone emulation) no page scrolls sideways; with JavaScript disabled the page still answers;
* hostile producer strings (script, markup, attribute breaks) in title, message, buttons and placeholders
  render as text: no script runs, no dialog opens;
* a form posted from another site is refused and changes nothing;
* a single-alert link works once, only for its alert, not after it expired, not once its token is gone;
  a session of a token removed from the tokens file ends on SIGHUP;
* every --notify payload validates against scripts/ntfy-publish.schema.json (written from ntfy's publish
  docs), and its http actions, sent as ntfy sends them, answer the alert.

Needs chromium and chromium-driver (scripts/deps.sh test) and the pinned Selenium and jsonschema of
scripts/app-test-requirements.txt. Exits non-zero on any failure; prints 'N passed, N failed'.
"""

import base64
import faulthandler
import http.server
import json
import os
import pathlib
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.request

import jsonschema
from selenium import webdriver
from selenium.common.exceptions import (NoAlertPresentException, NoSuchElementException,
                                        StaleElementReferenceException, TimeoutException, WebDriverException)
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

ROOT = pathlib.Path(__file__).resolve().parent.parent
ALERTD = pathlib.Path(os.environ.get("ALERTD_BIN", ROOT / ".build/debug/alertd"))
SCHEMA = json.loads((ROOT / "scripts/ntfy-publish.schema.json").read_text())
SCALE = float(os.environ.get("ALERTD_TEST_TIME_SCALE", "1"))
TOKENS = {
    "alice": ("responder", "alice-responder-token-0001"),
    "bob": ("responder", "bob-responder-token-000002"),
    "carol": ("responder", "carol-responder-token-0003"),
    "ci": ("producer", "ci-producer-token-00000004"),
}
HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(2)>\"' autofocus onfocus=alert(3) x='"

results = []


def check(name, condition, detail=""):
    results.append((name, bool(condition)))
    print(("ok   " if condition else "FAIL ") + name + ("" if condition else f": {detail}"), flush=True)


def until(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout * SCALE
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    return predicate()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Receiver(http.server.ThreadingHTTPServer):
    """Plays ntfy (records each POST) and a hostile site (GET /evil/ID: a form aimed at alertd)."""

    def __init__(self):
        self.posts = []
        self.target = ""
        super().__init__(("127.0.0.1", 0), ReceiverHandler)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def ntfy(self, title):
        for path, body in self.posts:
            if path.endswith("/") and body.get("title") == title:
                return body
        return None


class ReceiverHandler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        self.server.posts.append((self.path, json.loads(body)))
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_GET(self):
        alert = self.path.rsplit("/", 1)[-1]
        page = (f'<!doctype html><form method="post" action="{self.server.target}/app/alerts/{alert}/response">'
                '<input name="csrf" value="guess"><input name="button" value="1">'
                '<button id="go" type="submit">Win a prize</button></form>').encode()
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)

    def log_message(self, *args):
        pass


class Alertd:
    def __init__(self, work, tokens_file, receiver, topic, extra=()):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = open(work / f"alertd-{topic}.log", "w+")
        self.process = subprocess.Popen(
            [str(ALERTD), "--host", "127.0.0.1", "--port", str(self.port), "--tokens-file", str(tokens_file),
             "--notify", f"http://127.0.0.1:{receiver.server_port}/{topic}", "--notify-responder", "carol",
             *extra], stdout=self.log, stderr=self.log)
        if not until(lambda: self.logged("alertd listening on")):
            raise SystemExit(f"alertd did not start: {self.read_log()}")

    def read_log(self):
        self.log.flush()
        return pathlib.Path(self.log.name).read_text()

    def logged(self, text):
        return text in self.read_log()

    def rest(self, method, path, token="ci", body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Authorization": f"Bearer {TOKENS[token][1]}",
                                                  "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def create(self, body):
        status, alert = self.rest("POST", "/v1/alerts", body=body)
        assert status == 201, (status, alert)
        return alert["id"]

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=30)


def browser(wait_for_loads=True):
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--no-first-run", "--disable-background-networking", "--disable-sync"]:
        options.add_argument(argument)
    options.add_experimental_option("mobileEmulation", {
        "deviceMetrics": {"width": 360, "height": 740, "pixelRatio": 3.0},
        "userAgent": "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36"})

    if not wait_for_loads:
        options.page_load_strategy = "none"
    service = Service(executable_path=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(30 * SCALE)
    return driver


def text(driver):
    """The page's visible text; empty while a navigation replaces it."""
    try:
        return driver.find_element(By.TAG_NAME, "body").text
    except (StaleElementReferenceException, NoSuchElementException, WebDriverException):
        return ""


def sign_in(driver, alertd, name):
    driver.get(alertd.url + "/app")
    driver.find_element(By.ID, "token").send_keys(TOKENS[name][1])
    driver.find_element(By.CSS_SELECTOR, "form.stack button[type=submit]").click()
    return until(lambda: f"Signed in as {name}" in text(driver))


def click_button(driver, title, tap=False):
    for button in driver.find_elements(By.CSS_SELECTOR, ".buttons button"):
        if button.text.split("\n")[0].replace(" (destructive)", "") == title:
            press(driver, button) if tap else button.click()
            return True
    return False


def press(driver, element):
    """A tap through DevTools' input events: chromedriver's click waits on the page's own script."""
    x = element.location["x"] + element.size["width"] / 2
    y = element.location["y"] + element.size["height"] / 2
    for kind in ("mousePressed", "mouseReleased"):
        driver.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left",
                                                            "clickCount": 1})


def open_link(driver, link):
    """Taps a notification's link: its page, then its one button."""
    driver.get(link)
    buttons = driver.find_elements(By.CSS_SELECTOR, "form.stack button[type=submit]")
    if buttons:
        buttons[0].click()


def no_dialog(driver):
    try:
        WebDriverWait(driver, 1).until(expected_conditions.alert_is_present())
        return False
    except TimeoutException:
        pass
    try:
        driver.switch_to.alert
        return False
    except NoAlertPresentException:
        return True


def fits(driver):
    return driver.execute_script(
        "return [document.documentElement.scrollWidth, window.innerWidth]")


def link_expiry(link):
    payload = link.split("l=", 1)[1].split(".", 1)[0]
    text = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)).decode()
    return int(text.split("\n")[3])


def write_tokens(path, names):
    path.write_text("".join(f"{name}:{TOKENS[name][0]}:{TOKENS[name][1]}\n" for name in names))


def main():
    # A run that hangs (a browser that never answers) ends with its stack rather than holding make test.
    faulthandler.dump_traceback_later(int(os.environ.get("APP_TEST_TIMEOUT", "300")) * SCALE, exit=True)
    if not ALERTD.exists():
        raise SystemExit(f"{ALERTD} not found: build first (swift build)")
    work = pathlib.Path(tempfile.mkdtemp(prefix="alertd-app-test."))
    tokens_file = work / "tokens"
    write_tokens(tokens_file, TOKENS)
    receiver = Receiver()
    alertd = Alertd(work, tokens_file, receiver, "phone-topic")
    receiver.target = alertd.url
    drivers = []
    try:
        phone = browser()
        drivers.append(phone)
        run(alertd, receiver, phone, drivers, tokens_file, work)
    except Exception:  # noqa: BLE001 - reported as a failure, after which the browsers still close
        traceback.print_exc()
        check("the run went to its end", False)
    finally:
        for driver in drivers:
            driver.quit()
        alertd.stop()
        receiver.shutdown()
    passed = sum(1 for _, ok in results if ok)
    failed = len(results) - passed
    print(f"{passed} passed, {failed} failed")
    if failed:
        print(f"logs kept in {work}")
    return 1 if failed else 0


def run(alertd, receiver, phone, drivers, tokens_file, work):
    body = lambda: text(phone)  # noqa: E731

    # Signing in; the pending list grouped by presenter.
    alertd.create({"title": "Deploy web", "message": "v2 to production", "presenter": "deploy",
                   "buttons": ["Cancel", "Deploy"]})
    login = alertd.create({"title": "Login", "message": "Enter your credentials", "presenter": "ops",
                           "buttons": ["Cancel", "Log in"],
                           "fields": [{"placeholder": "Username"},
                                      {"placeholder": "Password", "secure": True, "keyboard": "asciiCapable"}]})
    wide = alertd.create({"title": "Wide", "message": "x" * 300 + " https://example.invalid/" + "y" * 200,
                   "presenter": "ops", "buttons": ["A long button title that wraps on a phone", "Another", "Third"]})
    check("sign in with a token", sign_in(phone, alertd, "alice"), body())
    headings = [h.text.split(" ")[0] for h in phone.find_elements(By.TAG_NAME, "h2")]
    check("pending alerts grouped by presenter, groups in the order of their oldest", headings == ["deploy", "ops"],
          headings)
    width, inner = fits(phone)
    check("the list needs no horizontal scroll at 360 px", inner == 360 and width <= inner, (width, inner))
    phone.find_element(By.CSS_SELECTOR, f'a[href="/app/alerts/{wide}"]').click()
    until(lambda: "A long button title" in body())
    width, inner = fits(phone)
    check("an alert with long words and buttons needs no horizontal scroll at 360 px", width <= inner,
          (width, inner))

    # The login alert: a password typed, never shown back.
    phone.get(f"{alertd.url}/app/alerts/{login}")
    password = phone.find_element(By.ID, "f1")
    check("a secure field is a password input, empty", password.get_attribute("type") == "password"
          and not password.get_attribute("value"))
    phone.find_element(By.ID, "f0").send_keys("appleseed")
    password.send_keys("correct-horse-battery")
    click_button(phone, "Log in")
    check("the answer's confirmation", until(lambda: "You answered" in body()), body())
    check("the password is never shown back", "correct-horse-battery" not in phone.page_source)
    status, result = alertd.rest("GET", f"/v1/alerts/{login}/response")
    check("the answer is the store's, in the token's name", status == 200 and result.get("responder") == "alice"
          and result.get("values") == ["appleseed", "correct-horse-battery"], result)

    # Someone quicker, over REST.
    race = alertd.create({"title": "Race", "buttons": ["No", "Yes"]})
    phone.get(f"{alertd.url}/app/alerts/{race}")
    status, _ = alertd.rest("POST", f"/v1/alerts/{race}/response", token="bob", body={"buttonIndex": 0})
    click_button(phone, "Yes")
    check("'answered elsewhere, by bob' when bob was quicker", until(lambda: "answered elsewhere, by bob" in body()),
          body())

    # Hostile producer strings.
    hostile = alertd.create({"title": HOSTILE, "message": HOSTILE, "presenter": "ops",
                             "buttons": [HOSTILE, "OK " + HOSTILE],
                             "fields": [{"placeholder": HOSTILE, "text": HOSTILE}]})
    phone.get(alertd.url + "/app")
    check("hostile strings in the list open no dialog", no_dialog(phone))
    phone.get(f"{alertd.url}/app/alerts/{hostile}")
    check("hostile strings on the alert page open no dialog", no_dialog(phone))
    title = phone.find_element(By.TAG_NAME, "h1").text
    check("a hostile title renders as its text", title == HOSTILE, title)
    check("no markup of the producer's became an element",
          not phone.find_elements(By.CSS_SELECTOR, "main img, main script, [onfocus], [onerror]"))
    check("a hostile placeholder is the field's label, as text",
          phone.find_element(By.CSS_SELECTOR, "label[for=f0]").text == HOSTILE)

    # A form posted from another site (localhost is another site than 127.0.0.1).
    cross = alertd.create({"title": "Cross", "buttons": ["No", "Yes"]})
    phone.get(f"http://localhost:{receiver.server_port}/evil/{cross}")
    phone.find_element(By.ID, "go").click()
    until(lambda: "Cross-site" in body() or "Form expired" in body())
    status, alert = alertd.rest("GET", f"/v1/alerts/{cross}")
    check("a cross-site form post is refused and changes nothing", alert.get("state") == "pending", (body(), alert))

    # JavaScript disabled: a browser whose pages run no script (DevTools' switch) and which does not wait
    # for loads (chromedriver tells a load has ended by asking the page's script): checks wait for text.
    quiet = browser(wait_for_loads=False)
    drivers.append(quiet)
    quiet.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    plain = alertd.create({"title": "No script", "buttons": ["No", "Yes"]})
    quiet.get(alertd.url + "/app")
    until(lambda: quiet.find_elements(By.ID, "token"))
    quiet.find_element(By.ID, "token").send_keys(TOKENS["bob"][1])
    press(quiet, quiet.find_element(By.CSS_SELECTOR, "form.stack button[type=submit]"))
    check("sign in with JavaScript disabled", until(lambda: "Signed in as bob" in text(quiet)), text(quiet))
    quiet.get(f"{alertd.url}/app/alerts/{plain}")
    until(lambda: quiet.find_elements(By.CSS_SELECTOR, ".buttons button"))
    click_button(quiet, "Yes", tap=True)
    check("an answer with JavaScript disabled", until(lambda: "You answered" in text(quiet)), text(quiet))
    status, result = alertd.rest("GET", f"/v1/alerts/{plain}/response")
    check("... recorded for bob", result.get("responder") == "bob", result)

    # --notify: ntfy's JSON, and its http actions sent as ntfy would.
    ping = alertd.create({"title": "Ping", "buttons": ["No", "Yes"]})
    message = until(lambda: receiver.ntfy("Ping"))
    errors = [f"{body.get('title')}: {error.message}" for path, body in receiver.posts
              for error in jsonschema.Draft202012Validator(SCHEMA).iter_errors(body)]
    check("every --notify payload validates against ntfy's publish schema",
          receiver.posts and not errors, errors[:3])
    check("the ntfy payload names the topic and carries a view action",
          message and message["topic"] == "phone-topic" and message["actions"][0]["action"] == "view", message)
    action = next(a for a in message["actions"] if a["action"] == "http" and a["label"] == "Yes")
    request = urllib.request.Request(action["url"], data=action.get("body", "").encode(),
                                     method=action.get("method", "POST"), headers=action.get("headers", {}))
    with urllib.request.urlopen(request, timeout=30) as response:
        answered = response.status
    status, result = alertd.rest("GET", f"/v1/alerts/{ping}/response")
    check("an http action answers the alert, as the link's responder", answered == 200
          and result.get("buttonTitle") == "Yes" and result.get("responder") == "carol", result)

    # Single-alert links.
    linked = alertd.create({"title": "Linked", "buttons": ["No", "Yes"]})
    other = alertd.create({"title": "Other", "buttons": ["No", "Yes"]})
    link = until(lambda: receiver.ntfy("Linked"))["click"]
    phone.delete_all_cookies()
    open_link(phone, link)
    check("a link opens its alert without a token", until(lambda: "Linked" in body() and phone.find_elements(
        By.CSS_SELECTOR, ".buttons button")), body())
    phone.get(f"{alertd.url}/app/alerts/{other}")
    check("a link's session opens no other alert", until(lambda: "No such alert" in body()), body())
    phone.delete_all_cookies()
    open_link(phone, link)
    check("a link used twice is refused", until(lambda: "used already" in body()), body())
    _ = linked

    # A removed token: its session and its links stop after SIGHUP.
    phone.delete_all_cookies()
    sign_in(phone, alertd, "carol")
    late = alertd.create({"title": "After removal", "buttons": ["No", "Yes"]})
    late_link = until(lambda: receiver.ntfy("After removal"))["click"]
    write_tokens(tokens_file, [name for name in TOKENS if name != "carol"])
    alertd.process.send_signal(signal.SIGHUP)
    until(lambda: alertd.logged("SIGHUP: reloaded the tokens file"))
    phone.get(alertd.url + "/app")
    check("a removed token's session cookie stops working after SIGHUP", "Access token" in body(), body())
    phone.delete_all_cookies()
    phone.get(late_link)  # refused on its page already
    check("a link whose responder's token was removed is refused", until(lambda: "no longer answer" in body()),
          body())
    _ = late

    # An expired link, on an alertd whose links last a second.
    write_tokens(tokens_file, TOKENS)
    brief = Alertd(work, tokens_file, receiver, "brief-topic", extra=("--link-lifetime", "1"))
    try:
        brief.create({"title": "Brief", "buttons": ["No", "Yes"]})
        short = until(lambda: next((body["click"] for path, body in receiver.posts
                                    if body.get("topic") == "brief-topic"), None))
        expiry = link_expiry(short)
        until(lambda: time.time() > expiry + 0.05, timeout=5)
        phone.delete_all_cookies()
        phone.get(short)  # refused on its page already
        check("an expired link is refused", until(lambda: "expired" in body()), body())
    finally:
        brief.stop()


if __name__ == "__main__":
    sys.exit(main())
