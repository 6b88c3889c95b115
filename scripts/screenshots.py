"""Retake the README's screenshots (docs/screenshots/search.png, assistant.png) on a built index.

Not a test: it writes into the checkout. It serves the app on loopback from Settings (so set
``THEOREM_RAG_DATA_DIR`` or ``THEOREM_RAG_DATABASE_URL`` to the index to show), opens it in Debian's headless
Chromium, searches with a shareable URL, opens one card's proof, asks the assistant one question, and saves both
tabs.

    THEOREM_RAG_DATA_DIR=/path/to/index python scripts/screenshots.py [--out docs/screenshots] [--no-assistant]
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
from pathlib import Path
from urllib.parse import urlencode

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]  # fmt: skip
QUERY = {"q": "Nakayama's lemma", "source": "stacks", "k": "5"}
QUESTION = "Why does a local ring have only one maximal ideal?"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "docs" / "screenshots"))
    parser.add_argument("--no-assistant", action="store_true", help="Only the search tab.")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    from playwright.sync_api import sync_playwright

    from theorem_rag.ui.app import build_app
    from theorem_rag.ui.server import launch

    demo, search, _chat = build_app(warm=True)
    running = launch(demo, port=_port(), block=False)
    url = running.url
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1360, "height": 1000}, device_scale_factor=1)
            page.goto(url + "?" + urlencode(QUERY), wait_until="domcontentloaded")
            page.wait_for_selector("#trag-results .trag-card .katex", timeout=120_000)
            proof = page.locator("#trag-results details.trag-proof summary").first
            if proof.count():
                proof.click()
            page.wait_for_timeout(800)
            page.screenshot(path=str(out / "search.png"))
            print(f"wrote {out / 'search.png'}: {page.locator('#trag-results .trag-card').count()} cards, "
                  f"{page.locator('#trag-results .katex-error').count()} KaTeX errors")  # fmt: skip
            if not args.no_assistant:
                page.get_by_role("tab", name="Assistant").click()
                box = page.locator("#trag-ask textarea, #trag-ask input").first
                box.fill(QUESTION)
                page.click("#trag-ask-btn")
                page.wait_for_function(
                    "document.querySelector('#trag-chat-status')?.innerText.startsWith('Cited')", timeout=600_000
                )
                page.wait_for_timeout(800)
                page.screenshot(path=str(out / "assistant.png"))
                print(f"wrote {out / 'assistant.png'}")
            browser.close()
    finally:
        running.close()
        search.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
