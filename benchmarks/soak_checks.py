"""Integrity checks and the report of the soak test (``benchmarks/soak.py``).

After the traffic stops, every statement, slogan, vector and acknowledged feedback row must be in the database
exactly once: the checks compare the tables against what the records and the writers say they should hold.
"""

from __future__ import annotations

from collections import Counter
from typing import Any


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5))) - 1]


def _compare(expected: set[str], found: list[str]) -> dict[str, Any]:
    counts = Counter(found)
    missing, unexpected = sorted(expected - set(counts)), sorted(set(counts) - expected)
    duplicated = sorted(k for k, n in counts.items() if n > 1)
    return {"expected": len(expected), "rows": len(found), "missing": len(missing), "unexpected": len(unexpected),
            "duplicated": len(duplicated), "examples": (missing + unexpected + duplicated)[:5],
            "ok": not (missing or unexpected or duplicated)}  # fmt: skip


def check_integrity(dsn: str, table: str, space: str, expected_slogans: dict[str, str],
                    acked_feedback: list[str], feedback_prefix: str) -> dict[str, Any]:  # fmt: skip
    """Statements, slogans, vectors and feedback rows against what they should be; each part says ``ok``."""
    import psycopg
    from psycopg import sql

    from theorem_rag.db.table_names import Names

    n = Names(table)
    ident = sql.Identifier
    with psycopg.connect(dsn, connect_timeout=10) as conn:
        rows = conn.execute(sql.SQL("SELECT id, slogan FROM {}").format(ident(n.theorems))).fetchall()
        vectors = [r[0] for r in conn.execute(sql.SQL("SELECT theorem_id FROM {}").format(ident(n.vectors(space))))]
        cache = conn.execute(sql.SQL("SELECT count(*), count(DISTINCT key) FROM {}").format(ident(n.slogan_cache)))
        cache_rows, cache_keys = cache.fetchone()
        feedback = [r[0] for r in conn.execute(sql.SQL("SELECT query FROM {} WHERE query LIKE %s").format(
            ident(n.feedback)), [feedback_prefix + "%"])]  # fmt: skip
    expected = set(expected_slogans)
    statements = _compare(expected, [r[0] for r in rows])
    wrong = sorted(tid for tid, slogan in rows if tid in expected and slogan != expected_slogans[tid])
    slogans = {"expected": len(expected), "wrong_or_missing": len(wrong), "examples": wrong[:5],
               "cache_rows": cache_rows, "cache_duplicated_keys": cache_rows - cache_keys,
               "ok": not wrong and cache_rows == cache_keys}  # fmt: skip
    out = {"statements": statements, "slogans": slogans, "vectors": _compare(expected, vectors),
           "feedback": _compare(set(acked_feedback), feedback)}  # fmt: skip
    out["feedback"]["acknowledged"] = len(acked_feedback)
    out["ok"] = all(part["ok"] for part in out.values())
    return out


def tamper(dsn: str, table: str, space: str, feedback_prefix: str) -> None:
    """The negative control: duplicate one feedback row and delete one vector, so the checks must fail."""
    import psycopg
    from psycopg import sql

    from theorem_rag.db.table_names import Names

    n = Names(table)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("INSERT INTO {f} (query, theorem_id, vote, comment) SELECT query, theorem_id, vote, "
                             "comment FROM {f} WHERE query LIKE %s ORDER BY id LIMIT 1").format(
            f=sql.Identifier(n.feedback)), [feedback_prefix + "%"])  # fmt: skip
        conn.execute(sql.SQL("DELETE FROM {v} WHERE theorem_id = (SELECT min(theorem_id) FROM {v})").format(
            v=sql.Identifier(n.vectors(space))))  # fmt: skip


def summarize(events: list[dict[str, Any]], phases: list[tuple[str, float]]) -> list[dict[str, Any]]:
    """Per phase and surface: requests, errors by kind, latency p50/p95 of the successful ones."""
    bounds = [(name, start, phases[i + 1][1] if i + 1 < len(phases) else float("inf"))
              for i, (name, start) in enumerate(phases)]  # fmt: skip
    out = []
    for name, start, end in bounds:
        for surface in ("rest", "mcp", "feedback"):
            sel = [e for e in events if e["surface"] == surface and start <= e["t"] < end]
            if not sel:
                continue
            ok = [e["ms"] for e in sel if e["kind"] is None]
            errors = Counter(e["kind"] for e in sel if e["kind"] is not None)
            out.append({"phase": name, "surface": surface, "requests": len(sel), "ok": len(ok),
                        "errors": dict(sorted(errors.items())), "p50_ms": _round(percentile(ok, 50)),
                        "p95_ms": _round(percentile(ok, 95))})  # fmt: skip
    return out


def recovery(events: list[dict[str, Any]], down_at: float, up_at: float) -> dict[str, Any]:
    """Per surface: the first error after the database went down, the first success after it came back."""
    out = {}
    for surface in ("rest", "mcp", "feedback"):
        sel = sorted((e for e in events if e["surface"] == surface and e["t"] >= down_at), key=lambda e: e["t"])
        first_error = next((e["t"] for e in sel if e["kind"] is not None), None)
        first_ok = next((e["t"] for e in sel if e["kind"] is None and e["t"] >= up_at), None)
        out[surface] = {"first_error_after_stop_s": _round(first_error - down_at if first_error else None, 2),
                        "first_success_after_start_s": _round(first_ok - up_at if first_ok else None, 2),
                        "unavailable_s": _round(first_ok - down_at if first_ok else None, 2)}  # fmt: skip
    return out


def _round(x: float | None, digits: int = 1) -> float | None:
    return None if x is None else round(x, digits)


def markdown(result: dict[str, Any]) -> str:
    """The committed Markdown summary of one soak run."""
    lines = ["# Soak test: REST + MCP traffic through a database restart and a SIGKILLed index build", "",
             f"- command: `{result['command']}`", f"- date: {result['date']}", f"- machine: {result['machine']}",
             f"- wall time: {result['wall_s']} s; statements: {result['base']} served from the start, "
             f"{result['grown']} after the build", ""]  # fmt: skip
    lines += ["## Timeline", "", "| event | at (s) | note |", "|---|---:|---|"]
    lines += [f"| {e['event']} | {e['t']:.1f} | {e.get('note', '')} |" for e in result["timeline"]]
    lines += ["", "## Requests by phase", "", "| phase | surface | requests | ok | errors by kind | p50 ms | p95 ms |",
              "|---|---|---:|---:|---|---:|---:|"]  # fmt: skip
    for r in result["phases"]:
        errs = ", ".join(f"{k}: {v}" for k, v in r["errors"].items()) or "none"
        lines.append(f"| {r['phase']} | {r['surface']} | {r['requests']} | {r['ok']} | {errs} | {r['p50_ms']} | "
                     f"{r['p95_ms']} |")  # fmt: skip
    if result.get("aborted"):
        lines += ["", "**The run was cut short by its time budget**; the tables cover what ran before that.", ""]
    if "recovery" not in result:
        return "\n".join(lines + [""])
    lines += ["", "## Recovery after the database restart", "",
              "| surface | first error after stop (s) | first success after start (s) | unavailable (s) |",
              "|---|---:|---:|---:|"]  # fmt: skip
    for surface, r in result["recovery"].items():
        lines.append(f"| {surface} | {r['first_error_after_stop_s']} | {r['first_success_after_start_s']} | "
                     f"{r['unavailable_s']} |")  # fmt: skip
    if "integrity" not in result:
        return "\n".join(lines + [""])
    lines += ["", "## Integrity (nothing lost, nothing duplicated)", "",
              "| rows | expected | found | missing | unexpected | duplicated | ok |", "|---|---:|---:|---:|---:|---:|---|"]
    for part in ("statements", "vectors", "feedback"):
        r = result["integrity"][part]
        lines.append(f"| {part} | {r['expected']} | {r['rows']} | {r['missing']} | {r['unexpected']} | "
                     f"{r['duplicated']} | {'yes' if r['ok'] else 'NO'} |")  # fmt: skip
    s = result["integrity"]["slogans"]
    lines.append(f"| slogans | {s['expected']} | - | {s['wrong_or_missing']} (wrong or missing) | - | "
                 f"{s['cache_duplicated_keys']} (cache keys) | {'yes' if s['ok'] else 'NO'} |")  # fmt: skip
    neg = result["negative_control"]
    lines += ["", f"Negative control (one feedback row duplicated, one vector deleted, checks rerun): feedback "
              f"duplicated {neg['feedback']['duplicated']}, vectors missing {neg['vectors']['missing']}; detected: "
              f"{'yes' if not neg['ok'] else 'NO'}.", ""]  # fmt: skip
    return "\n".join(lines)
