"""How fast the app feels: the Search tab's handler (query -> rendered cards) and one assistant turn.

Builds the 51-statement integration index (tests/fixtures/integrations) on a throwaway embedded PostgreSQL,
then times, in this process and single-user: ``Handlers.run_search`` (embedding, hybrid retrieval, document
look-ups and card HTML) over the fixture slogans as queries, card rendering alone, and ``Handlers.chat_turn``
with the offline SmolLM2-135M model (time to first search, first answer token, whole turn). Prints the figures.

    python benchmarks/bench_app.py --turns 2                         # as the app runs
    python benchmarks/bench_app.py --omp-wait-policy unset           # OpenMP's default (spinning) for comparison
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=2, help="assistant turns to time")
    ap.add_argument("--rounds", type=int, default=3, help="passes over the queries for the search timing")
    ap.add_argument("--omp-wait-policy", default="PASSIVE", choices=["PASSIVE", "ACTIVE", "unset"],
                    help="OMP_WAIT_POLICY for torch and llama.cpp, as the app sets it (unset: library default)")
    args = ap.parse_args()
    if args.omp_wait_policy != "unset":
        os.environ["OMP_WAIT_POLICY"] = args.omp_wait_policy

    from integrations_index import integration_search, records

    from theorem_rag.db.server import EmbeddedServer
    from theorem_rag.ui.app import Handlers
    from theorem_rag.ui.cards import results_html
    from theorem_rag.chat_backends import LocalGGUFChat

    folder = Path(tempfile.mkdtemp(prefix="trag-bench-app-"))
    server = EmbeddedServer(folder / "pg")
    server.start()
    try:
        from theorem_rag.db.server import ensure_database

        ensure_database(server.dsn("postgres"), "bench")
        t0 = time.perf_counter()
        search, _ = integration_search(server.dsn("bench"))
        print(f"index of {len(records()[0])} statements built in {time.perf_counter() - t0:.1f} s")
        queries = [t.name or t.text[:80] for t in records()[0]][:40]
        h = Handlers(search, LocalGGUFChat(timeout=300))
        h.run_search("warm up")
        lat = []
        for _ in range(args.rounds):
            for q in queries:
                t = time.perf_counter()
                h.run_search(q, "Theorems", 10)
                lat.append((time.perf_counter() - t) * 1000)
        print(f"search tab, query -> 10 cards: p50 {pct(lat, .5):.1f} ms, p95 {pct(lat, .95):.1f} ms "
              f"over {len(lat)} queries")  # fmt: skip
        hits = search.search("local ring", 10)
        docs = h.documents_for(hits)
        t = time.perf_counter()
        for _ in range(200):
            results_html(hits, docs)
        print(f"rendering 10 cards alone: {(time.perf_counter() - t) / 200 * 1000:.2f} ms")

        t = time.perf_counter()
        h.chat.load()
        print(f"offline model load: {time.perf_counter() - t:.2f} s")
        questions = ["What is the maximal ideal of a local ring?", "Is there a surjection from a set onto its power set?"]
        for q in questions[: args.turns]:
            t = time.perf_counter()
            first_search = first_token = None
            for history, _, status, _ in h.chat_turn(q, []):
                now = time.perf_counter() - t
                if first_search is None and any(m.get("metadata") for m in history):
                    first_search = now
                if first_token is None and history[-1]["role"] == "assistant" and not history[-1].get("metadata"):
                    first_token = now
            total = time.perf_counter() - t
            print(f"assistant turn: first search shown {first_search:.2f} s, first answer text {first_token:.2f} s, "
                  f"done {total:.1f} s ({status})")  # fmt: skip
        search.close()
    finally:
        server.stop()
        server.release()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
