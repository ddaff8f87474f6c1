"""The page of `llm-in-sandbox view` in a real browser (Debian's chromium, headless, driven by
Selenium). Run by tests/all/view.rs, which makes the runs with the fake model, starts the
viewers and passes their addresses:

VIEW_ONE   one run (6 rows: r03 wrong, r05 an error row, r00 wrote plot.png, r01's task text
           has a <script> element)
VIEW_TWO   that run (A) and a second one (B: r02 wrong, r03 right)
VIEW_LIVE  a run of 3 rows; appending LIVE_LINE to LIVE_RESULTS adds a fourth
VIEW_ATTEMPTS  a run whose row a1#0 ran twice (attempt 1 killed after 2 steps, attempt 2 kept)
EXPORT_HTML  run A's exported report.html
CHROMIUM, CHROMEDRIVER  the browser and its driver
"""

import os
import pathlib

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

# How long a condition may take to become true (a wait, not a measurement).
WAIT = 30


@pytest.fixture(scope="module")
def browser():
    opts = webdriver.ChromeOptions()
    opts.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1400,1000", "--allow-file-access-from-files"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(
        service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")), options=opts)
    yield driver
    driver.quit()


def until(driver, cond, what):
    return WebDriverWait(driver, WAIT).until(lambda d: cond(d), message=what)


def open_page(driver, url):
    driver.get(url)
    until(driver, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1",
          "the page did not finish loading: " + driver.find_element(By.ID, "live").text)


def row_keys(driver):
    # Read in one script: the table may be replaced between two element lookups.
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#rows tbody tr')).map(t => t.getAttribute('data-key'))")


def wait_keys(driver, want):
    until(driver, lambda d: row_keys(d) == want, f"rows never became {want}: {row_keys(driver)}")


def open_row(driver, key):
    driver.find_element(By.CSS_SELECTOR, f'#rows tbody tr[data-key="{key}"]').click()
    until(driver, lambda d: d.find_element(By.ID, "episode").get_attribute("data-key") == key,
          f"row {key} did not open")
    return driver.find_element(By.ID, "episode")


def test_summary_and_filters(browser):
    open_page(browser, os.environ["VIEW_ONE"])
    summary = browser.find_element(By.ID, "summary").text
    assert "mean score (errors as 0)" in summary and "physics" in summary
    img = browser.find_element(By.CSS_SELECTOR, ".chart img")
    assert browser.execute_script("return arguments[0].naturalWidth", img) > 0
    wait_keys(browser, ["r00#0", "r01#0", "r02#0", "r03#0", "r04#0", "r05#0"])
    Select(browser.find_element(By.ID, "f-domain")).select_by_value("physics")
    wait_keys(browser, ["r02#0", "r03#0"])
    Select(browser.find_element(By.ID, "f-score")).select_by_value("failed")
    wait_keys(browser, ["r03#0"])
    Select(browser.find_element(By.ID, "f-domain")).select_by_value("")
    Select(browser.find_element(By.ID, "f-score")).select_by_value("")
    Select(browser.find_element(By.ID, "f-error")).select_by_value("yes")
    wait_keys(browser, ["r05#0"])
    Select(browser.find_element(By.ID, "f-error")).select_by_value("")
    browser.find_element(By.ID, "f-q").send_keys("r04")
    wait_keys(browser, ["r04#0"])
    browser.find_element(By.ID, "f-q").clear()
    browser.find_element(By.ID, "f-q").send_keys(" ")
    wait_keys(browser, ["r00#0", "r01#0", "r02#0", "r03#0", "r04#0", "r05#0"])
    # Sorting by score, descending: the error row last.
    header = browser.find_element(By.CSS_SELECTOR, '#rows th[data-sort="score"]')
    header.click()
    header = browser.find_element(By.CSS_SELECTOR, '#rows th[data-sort="score"]')
    header.click()
    until(browser, lambda d: row_keys(d)[-1] == "r05#0" and row_keys(d)[-2] == "r03#0",
          f"not sorted by score descending: {row_keys(browser)}")


def test_a_row_opens_with_its_steps_and_files(browser):
    open_page(browser, os.environ["VIEW_ONE"])
    ep = open_row(browser, "r00#0")
    until(browser, lambda d: len(ep.find_elements(By.CSS_SELECTOR, ".step")) == 4, "4 steps")
    steps = ep.find_elements(By.CSS_SELECTOR, ".step")
    assert "execute_bash" in steps[0].text and "str_replace_editor" in steps[1].text
    assert "Thinking about r00 <i>carefully</i>, step 1" in steps[0].text
    # The coloured output is a span with the colour, the escape codes gone.
    green = steps[0].find_element(By.XPATH, ".//pre[contains(@class,'obs')]//span[contains(., 'green r00')]")
    assert green.value_of_css_property("color") not in ("", "rgba(0, 0, 0, 0)")
    obs = steps[0].find_element(By.CSS_SELECTOR, "pre.obs").text
    assert "\x1b" not in obs and "[38:5" not in obs and "<b>not bold</b>" in obs
    # The written file is listed and shown as text; the plot as an image.
    until(browser, lambda d: "print('notes of r00')" in ep.text, "notes.py's text")
    assert "# <script>alert(1)</script>" in ep.text
    img = ep.find_element(By.CSS_SELECTOR, 'li[data-path="plot.png"] img')
    until(browser, lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", img) > 0,
          "plot.png did not load")
    verdict = ep.find_element(By.CSS_SELECTOR, ".verdict").text
    assert "score: 1" in verdict and "ground truth: 0" in verdict
    assert "system prompt" in ep.text.lower() and "user prompt" in ep.text.lower()
    assert "tokens 50 in / 50 out" in steps[0].text


def test_markup_from_a_run_is_shown_as_text(browser):
    open_page(browser, os.environ["VIEW_ONE"])
    ep = open_row(browser, "r01#0")
    until(browser, lambda d: "<script>window.__xss=1</script>" in ep.text, "the task's script shown as text")
    assert browser.execute_script("return typeof window.__xss") == "undefined"
    assert not [b for b in ep.find_elements(By.TAG_NAME, "b") if b.text == "not bold"]
    assert not ep.find_elements(By.TAG_NAME, "i")


def test_refused_requests(browser):
    open_page(browser, os.environ["VIEW_ONE"])
    status = browser.execute_async_script(
        "const done = arguments[0];"
        "fetch('/api/file?run=0&key=r00%230&path=..%2F..%2Fresults.jsonl').then(r => done(r.status));")
    assert status == 400


def test_two_runs_side_by_side(browser):
    open_page(browser, os.environ["VIEW_TWO"])
    heads = [th.text for th in browser.find_elements(By.CSS_SELECTOR, "#rows th")]
    assert "A score" in heads and "B score" in heads and "Δ (B−A)" in heads
    Select(browser.find_element(By.ID, "f-only")).select_by_value("a_not_b")
    wait_keys(browser, ["r02#0"])
    delta = browser.find_element(By.CSS_SELECTOR, '#rows tbody tr[data-key="r02#0"] .c-delta').text
    assert delta == "-1"
    Select(browser.find_element(By.ID, "f-only")).select_by_value("b_not_a")
    wait_keys(browser, ["r03#0"])
    ep = open_row(browser, "r03#0")
    until(browser, lambda d: len(ep.find_elements(By.CSS_SELECTOR, ".side")) == 2
          and all(len(s.find_elements(By.CSS_SELECTOR, ".step")) == 3 for s in ep.find_elements(By.CSS_SELECTOR, ".side")),
          "both episodes side by side")
    a, b = ep.find_elements(By.CSS_SELECTOR, ".side")
    assert "score: 0" in a.find_element(By.CSS_SELECTOR, ".verdict").text
    assert "score: 1" in b.find_element(By.CSS_SELECTOR, ".verdict").text


def test_a_row_appears_live(browser):
    open_page(browser, os.environ["VIEW_LIVE"])
    wait_keys(browser, ["r00#0", "r01#0", "r02#0"])
    with open(os.environ["LIVE_RESULTS"], "a") as f:
        f.write(os.environ["LIVE_LINE"])
    wait_keys(browser, ["r00#0", "r01#0", "r02#0", "r03#0"])
    assert "4" in browser.find_element(By.CSS_SELECTOR, ".run-card dl").text


def test_the_exported_report_works_from_disk(browser):
    open_page(browser, pathlib.Path(os.environ["EXPORT_HTML"]).as_uri())
    assert "exported report" in browser.find_element(By.ID, "live").text
    wait_keys(browser, ["r00#0", "r01#0", "r02#0", "r03#0", "r04#0", "r05#0"])
    Select(browser.find_element(By.ID, "f-domain")).select_by_value("chemistry")
    wait_keys(browser, ["r04#0", "r05#0"])
    Select(browser.find_element(By.ID, "f-domain")).select_by_value("")
    ep = open_row(browser, "r00#0")
    until(browser, lambda d: len(ep.find_elements(By.CSS_SELECTOR, ".step")) == 4, "4 steps")
    assert "print('notes of r00')" in ep.text
    img = ep.find_element(By.CSS_SELECTOR, 'li[data-path="plot.png"] img')
    until(browser, lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", img) > 0,
          "the embedded plot did not load")
    ep = open_row(browser, "r01#0")
    until(browser, lambda d: "<script>window.__xss=1</script>" in ep.text, "the task's script shown as text")
    assert browser.execute_script("return typeof window.__xss") == "undefined"


def test_earlier_attempts_are_shown_apart(browser):
    open_page(browser, os.environ["VIEW_ATTEMPTS"])
    wait_keys(browser, ["a1#0"])
    ep = open_row(browser, "a1#0")
    until(browser, lambda d: len(ep.find_elements(By.CSS_SELECTOR, "details.attempt")) == 1, "one earlier attempt")
    earlier = ep.find_element(By.CSS_SELECTOR, "details.attempt")
    assert earlier.get_attribute("data-attempt") == "1"
    summary = earlier.find_element(By.TAG_NAME, "summary").text
    assert summary == ("attempt 1: stopped without finishing after step 2: the run was interrupted, "
                       "killed or crashed (2 steps)"), summary
    assert len(earlier.find_elements(By.CSS_SELECTOR, ".step")) == 2
    this = ep.find_element(By.CSS_SELECTOR, ".this-attempt").text
    assert this.startswith("attempt 2 (the one scored) · 1 steps"), this
    kept = [s for s in ep.find_elements(By.CSS_SELECTOR, ".side > .step")]
    assert len(kept) == 1 and "kept, step 1" in kept[0].text
    # Why the episode ended, in words.
    assert ep.find_element(By.CSS_SELECTOR, "pre.stop").text == "step limit"
    assert "stop: step limit" in ep.find_element(By.CSS_SELECTOR, ".verdict").text
