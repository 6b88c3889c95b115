"""What the triggers of migration 25 (statements per formula key) add to a write: the same 20,000 statements
(copies of the index's own, formulas and all) inserted with those triggers on and off, alternately, three times
each, every insert rolled back. Every other trigger stays as it is.

    THEOREM_RAG_DATA_DIR=<index> python benchmarks/experiments/2026-12-07-definition-lookup/write_cost.py OUT.json
"""
import json, statistics, sys, time

from psycopg import sql

from theorem_rag.search import TheoremSearch

N = 20_000
store = TheoremSearch.from_settings().store
t = sql.Identifier(store.names.theorems)
triggers = [f"trag_formula_{e}" for e in ("ins",)]
times = {"on": [], "off": []}
with store.connection() as conn:
    columns = [r[0] for r in conn.execute("SELECT column_name FROM information_schema.columns WHERE table_name = %s "
                                          "ORDER BY ordinal_position", [store.names.theorems])]  # fmt: skip
    others = sql.SQL(", ").join(sql.Identifier(c) for c in columns if c != "id")
    keys_per_statement = conn.execute(sql.SQL(
        "SELECT avg(cardinality(formula_keys)) FROM (SELECT formula_keys FROM {t} ORDER BY id LIMIT %s) s").format(t=t),
        [N]).fetchone()[0]  # fmt: skip
    insert = sql.SQL("INSERT INTO {t} (id, {others}) SELECT id || '#copy', {others} FROM {t} ORDER BY id LIMIT %s").format(
        t=t, others=others)  # fmt: skip
    for round_ in range(3):
        for state in (("on", "off") if round_ % 2 == 0 else ("off", "on")):
            with conn.transaction(force_rollback=True):
                if state == "off":
                    for g in triggers:
                        conn.execute(sql.SQL("ALTER TABLE {t} DISABLE TRIGGER {g}").format(t=t, g=sql.Identifier(g)))
                t0 = time.perf_counter()
                conn.execute(insert, [N])
                times[state].append(time.perf_counter() - t0)
out = {"statements": N, "formula keys per statement": round(float(keys_per_statement), 1),
       **{state: [round(x, 2) for x in v] for state, v in times.items()}}
on, off = statistics.median(times["on"]), statistics.median(times["off"])
out["added per statement (us, medians)"] = round((on - off) / N * 1e6, 1)
out["share of the insert"] = round((on - off) / on, 3)
print(json.dumps(out, indent=1))
json.dump(out, open(sys.argv[1], "w"), indent=1)
