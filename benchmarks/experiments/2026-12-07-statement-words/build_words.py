"""Build the words space (the bundled MiniLM over each statement read into words) on an existing index, for the
statements of the records folder argv[1] that the index holds and then any it holds that the folder lacks
(THEOREM_RAG_DATA_DIR: the index). ``theorem-rag index build --embed-field statement`` does this for an index built
from the records as they are."""
import sys, time
from theorem_rag.config import Settings
from theorem_rag.search import TheoremSearch
from theorem_rag.record_files import read_records
from theorem_rag.indexing.ingest import build_index, informal_part
from theorem_rag.slogans import OfflineSloganWriter
from theorem_rag.db.table_names import space_name
s = Settings()
search = TheoremSearch.from_settings(s)
store = search.store
recs = read_records(sys.argv[1])
with store.connection() as c:
    ids = {r[0] for r in c.execute(f"select id from {store.names.theorems}")}
ths = [t for t in recs.theorems if t.id in ids]
ths, _ = informal_part(ths, [])
print(len(ids), "in index;", len(ths), "informal to embed", flush=True)
t0 = time.time()
rep = build_index(store, search.embedder, ths, writer=OfflineSloganWriter(), space=space_name(s.embed_model, "statement"),
                  field="statement", prune=False)
print(rep.summary(), time.time() - t0)
have = set(store.vector_ids(space_name(s.embed_model, "statement")))
miss = sorted(set(store.vector_ids(space_name(s.embed_model, "slogan"))) - have)
print("missing", miss)
if miss:
    th = list(store.get_theorems(miss).values())
    print(build_index(store, search.embedder, th, writer=OfflineSloganWriter(), space=space_name(s.embed_model, "statement"),
                      field="statement", prune=False, progress=False).summary())
