"""What a narrow table would save the long full-text query: the same SQL over the statements table (about 3.3 kB a
row: LaTeX, proof, metadata, vector) and over a copy holding only what the query reads (id, doc_id, source, kind,
name, synonyms, tsv; about 0.7 kB a row), alternating per query; the long dev queries, k=50, 3 rounds.

    THEOREM_RAG_DATA_DIR=<a built index> python benchmarks/experiments/2026-12-02-text-narrow/ab.py

Creates the copy (`zz_text_narrow`, with the same GIN and name indexes) in that index's database and drops it at
the end. A measurement of the idea only: nothing in the library reads such a table.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from text_sql_ab import compare  # noqa: E402

from theorem_rag.search import TheoremSearch  # noqa: E402

store = TheoremSearch.from_settings().store
table = store.names.theorems


def narrow(wide: str) -> str:
    text = wide.replace(f'FROM "{table}" AS t', 'FROM "zz_text_narrow" AS t')
    assert text.count("zz_text_narrow") == 2, text
    return text


with store.connection() as conn:
    conn.execute("DROP TABLE IF EXISTS zz_text_narrow")
    conn.execute(f"""CREATE TABLE zz_text_narrow AS SELECT id, doc_id, source, kind, name,
        CASE WHEN jsonb_typeof(meta -> 'synonyms') = 'array' THEN jsonb_build_object('synonyms', meta -> 'synonyms')
             ELSE '{{}}'::jsonb END AS meta, tsv FROM "{table}" ORDER BY id""")
    conn.execute("ALTER TABLE zz_text_narrow ADD PRIMARY KEY (id)")
    conn.execute("CREATE INDEX ON zz_text_narrow USING gin (tsv)")
    conn.execute("CREATE INDEX ON zz_text_narrow (lower(name))")
    conn.execute("VACUUM ANALYZE zz_text_narrow")
    sizes = conn.execute(f"SELECT pg_relation_size('\"{table}\"'), pg_relation_size('zz_text_narrow')").fetchone()
print(f"heap: statements {sizes[0] / 2**20:.0f} MB, narrow copy {sizes[1] / 2**20:.0f} MB")
try:
    compare(store, narrow, ("wide", "narrow"))
finally:
    with store.connection() as conn:
        conn.execute("DROP TABLE IF EXISTS zz_text_narrow")
