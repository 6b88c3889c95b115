"""Embedding throughput of the base model's int8 ONNX export reading at most 256 tokens (its own limit) against 128
(``embed_max_tokens``), side by side on the same texts: the slogans of every 7th statement of an index.

    python benchmarks/experiments/2026-12-04-embed-tokens/embed_ab.py DATA_DIR ONNX_CACHE [ROUNDS]

Each limit's export is built (and its first batch run) before any timing; then the limits alternate, ROUNDS times.
"""

import sys
import time

from psycopg import sql

from theorem_rag.config import Settings
from theorem_rag.db.store import TheoremStore
from theorem_rag.db.server import resolve_dsn
from theorem_rag.embed import Embedder

data, cache = sys.argv[1], sys.argv[2]
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 2
s = Settings(data_dir=data)
store = TheoremStore(resolve_dsn(s))
with store.connection() as conn:
    texts = [r[0] for r in conn.execute(sql.SQL("SELECT slogan FROM {t} WHERE slogan IS NOT NULL ORDER BY id").format(
        t=sql.Identifier(store.names.theorems)))][::7]
print(f"{len(texts)} slogans, {sum(map(len, texts)) / len(texts):.0f} characters on average", flush=True)
embedders = {cap: Embedder(max_tokens=cap, backend="onnx-int8", cache_dir=cache) for cap in (0, 128)}
for cap, e in embedders.items():
    e.embed_documents(texts[:64])  # the export built, the session warm
    print(f"limit {cap or 'own'}: model reads at most {e.model.max_seq_length} tokens", flush=True)
rates: dict[int, list[float]] = {0: [], 128: []}
for r in range(rounds):
    for cap in ((0, 128) if r % 2 == 0 else (128, 0)):
        t0 = time.perf_counter()
        embedders[cap].embed_documents(texts)
        dt = time.perf_counter() - t0
        rates[cap].append(len(texts) / dt)
        print(f"round {r + 1} limit {cap or 'own (256)'}: {dt:.1f} s, {len(texts) / dt:.1f} texts/s", flush=True)
for cap, xs in rates.items():
    print(f"RESULT limit={cap or 256} texts/s=" + " / ".join(f"{x:.1f}" for x in xs))
