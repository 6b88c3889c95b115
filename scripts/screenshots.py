"""Retake the README's screenshots (docs/screenshots/search.png, assistant.png) on a built index.

Not a test: it writes into the checkout. It serves the app on loopback from Settings (so set
``THEOREM_RAG_DATA_DIR`` or ``THEOREM_RAG_DATABASE_URL`` to the index to show), opens it in Debian's headless
Chromium, searches with a shareable URL, opens one card's proof, asks the assistant one question, and saves both
tabs.

    THEOREM_RAG_DATA_DIR=/path/to/index python scripts/screenshots.py [--out docs/screenshots] [--no-assistant]

A Lean card (an index with mathlib, ``scripts/add_mathlib.sh``):

    python scripts/screenshots.py --query "fundamental theorem of algebra" --source mathlib --name lean-card.png \
        --no-assistant
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
    parser.add_argument("--query", default=QUERY["q"], help="The search shown.")
    parser.add_argument("--source", default=QUERY["source"], help="Its source filter.")
    parser.add_argument("--k", default=QUERY["k"], help="Its number of results.")
    parser.add_argument("--name", default="search.png", help="File name of the search tab's screenshot.")
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
            query = {"q": args.query, "source": args.source, "k": args.k}
            page.goto(url + "?" + urlencode(query), wait_until="domcontentloaded")
            page.wait_for_selector("#trag-results .trag-card", timeout=120_000)
            page.wait_for_timeout(1500)  # KaTeX renders after the cards arrive
            proof = page.locator("#trag-results details.trag-proof summary").first
            if proof.count():
                proof.click()
            page.wait_for_timeout(800)
            page.screenshot(path=str(out / args.name))
            print(f"wrote {out / args.name}: {page.locator('#trag-results .trag-card').count()} cards, "
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
