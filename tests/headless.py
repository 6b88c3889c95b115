"""Headless Chromium for the browser tests: Debian's chromium driven by Playwright, one page per test module."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]  # fmt: skip


def require_chromium() -> None:
    """Fail (not skip) with what to run when Debian's chromium is missing."""
    if shutil.which(CHROMIUM) is None:
        pytest.fail(f"the browser test needs Debian's chromium at {CHROMIUM}: run scripts/setup_browser.sh",
                    pytrace=False)  # fmt: skip


@contextmanager
def chromium_page() -> Iterator:
    """A fresh 1360x1000 page in headless Chromium, closed on exit."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail('the browser test needs playwright: pip install "theorem-rag[app]"', pytrace=False)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield browser.new_page(viewport={"width": 1360, "height": 1000})
        finally:
            browser.close()
