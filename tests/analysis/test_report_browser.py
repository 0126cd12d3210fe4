"""The report page in headless Chromium (Debian's ``chromium`` and ``chromium-driver``,
driven by selenium): tables and pictures are shown, and a sample game steps forward and
back with the drawn board changing and coming back. Skipped when either is absent."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from drl.analysis.report import CHROMIUM, CHROMIUM_FLAGS, write_report
from tests.analysis.report_fixtures import summary

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
if not Path(CHROMIUM).exists() or not Path(DRIVER).exists():
    pytest.skip(
        f"no {CHROMIUM} or chromedriver (Debian packages chromium, chromium-driver)",
        allow_module_level=True,
    )


@pytest.fixture
def browser():
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="drl-chromium-")
    opts = Options()
    opts.binary_location = CHROMIUM
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--window-size=1280,1600"):
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def test_the_report_page_steps_a_sample_game_forward_and_back(tmp_path, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    page = write_report(
        [summary("english-run"), summary("gt-run", "give_and_take", taker=True)], tmp_path
    )["html"]
    browser.get(page.as_uri())
    assert len(browser.find_elements(By.CSS_SELECTOR, "table.comparison tbody tr")) == 2
    images = browser.find_elements(By.TAG_NAME, "img")
    assert len(images) >= 3
    assert all(browser.execute_script("return arguments[0].naturalWidth", im) > 0 for im in images)

    game = browser.find_element(By.CSS_SELECTOR, '.game[data-game="0-0"]')
    board = game.find_element(By.CSS_SELECTOR, ".board")
    ply = game.find_element(By.CSS_SELECTOR, ".ply")

    def drawn() -> str:
        return board.get_attribute("innerHTML")

    start = drawn()
    assert "<svg" in start and ply.text == "0"
    game.find_element(By.CSS_SELECTOR, ".forward").click()
    assert ply.text == "1" and drawn() != start
    after_one = drawn()
    game.find_element(By.CSS_SELECTOR, ".forward").click()
    assert ply.text == "2" and drawn() not in (start, after_one)
    game.find_element(By.CSS_SELECTOR, ".back").click()
    assert ply.text == "1" and drawn() == after_one
    game.find_element(By.CSS_SELECTOR, ".back").click()
    assert ply.text == "0" and drawn() == start
    game.find_element(By.CSS_SELECTOR, ".back").click()  # stays at the start
    assert ply.text == "0"
    game.find_element(By.CSS_SELECTOR, ".last").click()
    assert ply.text == game.get_attribute("data-plies")
    current = game.find_elements(By.CSS_SELECTOR, ".moves span.current")
    assert len(current) == 1 and current[0].get_attribute("data-ply") == ply.text
    game.send_keys(Keys.HOME)
    assert ply.text == "0" and drawn() == start
    game.send_keys(Keys.ARROW_RIGHT)
    assert ply.text == "1" and drawn() == after_one


def _shot(browser, name: str) -> None:
    """Save a screenshot to $DRL_SCREENSHOTS/name.png when that variable is set."""
    import os

    folder = os.environ.get("DRL_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(Path(folder) / f"{name}.png"))


def _fits_in_1280(browser) -> None:
    """Nothing is cut off: the page is no wider than the window, wide tables scroll inside
    their box, and every control is labelled in characters common fonts have."""
    from selenium.webdriver.common.by import By

    assert browser.execute_script("return document.documentElement.scrollWidth") <= 1280
    for table in browser.find_elements(By.TAG_NAME, "table"):
        box = table.find_element(By.XPATH, "..")
        assert "scroll" in (box.get_attribute("class") or "")
    labels = [b.text for b in browser.find_elements(By.TAG_NAME, "button")]
    assert labels and all(t.strip() for t in labels)
    # (Debian's fonts lack the media-control symbols U+23E9..U+23FA: they drew blank boxes)
    assert all(ord(c) < 0x2100 for t in labels for c in t), labels


def test_a_report_of_many_runs_fits_a_1280_px_window(tmp_path, browser):
    runs = [summary(f"english-run-with-a-long-name-{k}") for k in range(12)]
    runs += [summary(f"gt-run-{k}", "give_and_take", taker=True) for k in range(10)]
    page = write_report(runs, tmp_path)["html"]
    browser.get(page.as_uri())
    _fits_in_1280(browser)
    wide = browser.execute_script(
        "const box = document.querySelector('table.comparison').parentElement;"
        "return [box.scrollWidth, box.clientWidth];"
    )
    assert wide[0] > wide[1]  # the 22-row comparison scrolls inside its box


def test_the_study_report_fits_a_1280_px_window(browser):
    page = Path(__file__).resolve().parents[2] / "experiments/cross_variant/strong/report"
    browser.get((page / "index.html").as_uri())
    _fits_in_1280(browser)
    _shot(browser, "study-report")
