"""Copy the words space between indexes: ``copy_space.py export FILE`` (THEOREM_RAG_DATA_DIR: the source), then
``copy_space.py import FILE`` (THEOREM_RAG_DATA_DIR: the destination)."""
import pickle, sys
import numpy as np
from psycopg import sql
from theorem_rag.search import TheoremSearch
SPACE = "minilm_l6_v2_statement"
mode, path = sys.argv[1], sys.argv[2]
s = TheoremSearch.from_settings()
if mode == "export":
    sp = s.store.space(SPACE)
    with s.store.connection() as c:
        rows = c.execute(sql.SQL("SELECT theorem_id, content_hash, embedding::vector FROM {v}").format(
            v=sql.Identifier(s.store.names.vectors(SPACE)))).fetchall()
    rows = [(a, b, np.asarray(v.to_numpy() if hasattr(v, "to_numpy") else v, dtype=np.float32)) for a, b, v in rows]
    pickle.dump((sp, rows), open(path, "wb"))
    print("exported", len(rows))
else:
    sp, rows = pickle.load(open(path, "rb"))
    have = set(s.store.vector_ids("minilm_l6_v2_slogan"))
    rows = [r for r in rows if r[0] in have]
    s.store.vector_space(SPACE, sp.dim, half=sp.half, field=sp.field, model=sp.model, backend=sp.backend)
    s.store.write_vectors(SPACE, [r[0] for r in rows], np.stack([r[2] for r in rows]), [r[1] for r in rows])
    s.store.build_index(SPACE)
    print("imported", len(rows), "; informal", s.store.count() - s.store.count_formal())
