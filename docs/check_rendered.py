"""Read the built site as a reader would: headless Chromium, with the network cut off.

Every page of ``docs/_build/html`` is opened in Debian's Chromium (through its
ChromeDriver); the check fails if a page with formulas shows raw LaTeX (``\\(`` or
``\\[`` left in the rendered text, or no typeset formula), if an image does not load,
if a results page has no table, or if a page asks for anything off this machine.
The gallery's pages (``gallery/``) are read too: each example must show at least one
figure, no error text (a traceback or an exception's name in its output) and a running
time under ``GALLERY_SECONDS``; the gallery's index must show one thumbnail an example.

    python docs/check_rendered.py [docs/_build/html]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
TABLE_PAGES = (
    "stochastic_svm",
    "prior_svm",
    "minimax_results",
    "slt_gp",
    "majority_vote",
    "reproduction",
)
FORMULA_PAGES = (
    "convex_programs",
    "exact",
    "constants",
    "nonconvex",
    "declare",
    "majority_vote",
    "minimax",
    "prior_svm",
)

ERROR_TEXT = re.compile(r"Traceback \(most recent call last\)|\b\w+(Error|Warning): ")
RUNNING_TIME = re.compile(r"Total running time of the script: \((\d+) minutes ([\d.]+) seconds\)")

STATE = """
const done = arguments[arguments.length - 1];
// MathJax loads asynchronously: window.MathJax is first only Sphinx's configuration,
// so wait until MathJax itself has started, then for its first typesetting.
const hasMath = document.querySelector('script[src*="mathjax"]') !== null;
const started = new Promise((resolve, reject) => {
  const begin = Date.now();
  (function poll() {
    if (!hasMath) resolve();
    else if (window.MathJax && MathJax.startup && MathJax.startup.promise)
      MathJax.startup.promise.then(resolve, reject);
    else if (Date.now() - begin > 30000) reject("MathJax did not start in 30 s");
    else setTimeout(poll, 50);
  })();
});
started.then(() => {
  const text = document.body.innerText;
  done({
    raw: (text.match(/\\\\\\(|\\\\\\[/g) || []).length,
    math: document.querySelectorAll("mjx-container").length,
    images: [...document.images].map(i => [i.src, i.complete && i.naturalWidth > 0]),
    tables: document.querySelectorAll("table tbody tr").length,
    text: text,
    figures: document.querySelectorAll("img.sphx-glr-single-img, img.sphx-glr-multi-img").length,
    thumbnails: document.querySelectorAll(".sphx-glr-thumbcontainer img").length,
    remote: performance.getEntriesByType("resource").map(r => r.name)
      .filter(n => !n.startsWith("file:") && !n.startsWith("data:")),
  });
}).catch(err => done({error: String(err)}));
"""


def browser() -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    options.add_argument("--host-resolver-rules=MAP * ~NOTFOUND")  # no network at all
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_script_timeout(60)
    return driver


def page_problems(driver, page: Path) -> list[str]:
    url = page.resolve().as_uri()
    driver.get(url)
    WebDriverWait(driver, 30).until(  # this page, loaded: not the previous one
        lambda d: (
            d.execute_script("return location.href") == url
            and d.execute_script("return document.readyState") == "complete"
        )
    )
    state = driver.execute_async_script(STATE)
    if "error" in state:
        return [f"MathJax failed: {state['error']}"]
    problems = []
    if state["raw"]:
        problems.append(f"{state['raw']} raw LaTeX delimiters in the rendered text")
    if page.stem in FORMULA_PAGES and not state["math"]:
        problems.append("no typeset formula")
    problems += [f"image {src} did not load" for src, loaded in state["images"] if not loaded]
    if page.stem in TABLE_PAGES and not state["tables"]:
        problems.append("no result table")
    problems += [f"asks the network for {url}" for url in state["remote"]]
    if page.parent.name == "gallery":
        problems += gallery_problems(page, state)
    return problems


def gallery_problems(page: Path, state: dict) -> list[str]:
    """An example's page: a figure, no error text, its running time shown;
    the index: a thumbnail for every example beside it."""
    if page.stem == "index":
        examples = len(list(page.parent.glob("plot_*.html")))
        shown = state["thumbnails"]
        return [] if shown >= examples > 0 else [f"{shown} thumbnails for {examples} examples"]
    problems = [] if state["figures"] else ["no figure"]
    error = ERROR_TEXT.search(state["text"])
    if error:
        problems.append(f"error text: {error.group(0)!r}")
    if RUNNING_TIME.search(state["text"]) is None:  # shown, whatever the machine's load
        problems.append("no running time")
    return problems


def main(site: str = "docs/_build/html") -> int:
    pages = sorted(p for p in Path(site).glob("*.html") if p.stem not in ("genindex", "search"))
    pages += sorted(Path(site).glob("gallery/*.html"))
    if not pages:
        print(f"no pages under {site}; build the site first", file=sys.stderr)
        return 2
    driver = browser()
    failures = 0
    try:
        for page in pages:
            problems = page_problems(driver, page)
            failures += bool(problems)
            for problem in problems:
                print(f"{page.name}: {problem}")
    finally:
        driver.quit()
    print(f"{len(pages)} pages read in Chromium, {failures} with problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
