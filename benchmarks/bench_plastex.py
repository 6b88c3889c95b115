"""How fast and how complete plasTeX is on real corpus files: statements/s, seconds per file, truncation, errors.

Run:  HF_HUB_OFFLINE=1 python benchmarks/bench_plastex.py [--timeout 300] [--corpora /work/shared/corpora]

Each file is parsed once, the way the corpus step calls the parser: ``\\input``s resolved, the book's macro file
as ``preamble``, theorem environments read from the ``\\newtheorem``-like lines. The environment list and the
``\\input`` flattening here are deliberately small stand-ins for the corpus step's own. Prints one row per file
and the totals; writes nothing.
"""

from __future__ import annotations

import argparse
import re
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpus_build.plastex_parser import mask_text, parse_with_plastex  # noqa: E402
from theorem_rag.records import KINDS  # noqa: E402

_NEWTHEOREM = re.compile(r"\\newtheorem(\*?)\s*\{([^{}]+)\}\s*(?:\[[^\]]*\])?\s*\{([^{}]+)\}")
_DEFTHM = re.compile(r"\\defthm\s*\{([^{}]+)\}\s*\{([^{}]+)\}")  # HoTT's wrapper around \newtheorem
_DECLARE = re.compile(r"\\declaretheorem\s*\[([^\]]*)\]\s*\{([^{}]+)\}")
_INPUT = re.compile(r"\\(?:input|include)\s*\{([^{}]+)\}")


def theorem_envs(tex: str) -> dict[str, str]:
    """Environment name -> kind from \\newtheorem, HoTT's \\defthm and thmtools' \\declaretheorem."""
    masked = mask_text(tex)[0]
    found = [(m.group(2) + m.group(1), m.group(3)) for m in _NEWTHEOREM.finditer(masked)]
    found += [(m.group(1), m.group(2)) for m in _DEFTHM.finditer(masked)]
    for m in _DECLARE.finditer(masked):
        name = re.search(r"name\s*=\s*\{?([A-Za-z ]+)", m.group(1))
        found.append((m.group(2), name.group(1) if name else m.group(2)))
    envs = {}
    for env, header in found:
        if "#" in env or env == "proof":  # a macro parameter (HoTT \defthm body); ntheorem proof
            continue
        kind = header.strip().lower().rstrip("s")
        envs[env.strip()] = kind if kind in KINDS else "remark"
    return envs


def flatten(path: Path, root: Path, depth: int = 0) -> str:
    """Replace \\input/\\include by the file's text, relative to ``root``; missing files are left as they are."""
    if depth > 10:
        return ""
    text = path.read_text(encoding="utf-8", errors="replace")

    def sub(m: re.Match) -> str:
        target = root / m.group(1).strip()
        target = target if target.suffix == ".tex" else target.with_name(target.name + ".tex")
        return flatten(target, root, depth + 1) if target.is_file() else m.group(0)

    return _INPUT.sub(sub, text)


def jobs(corpora: Path) -> list[tuple[str, str, str, Path]]:
    """(label, text, preamble, base_dir) for each benchmark file."""
    out = []
    stacks = corpora / "stacks"
    preamble = (stacks / "preamble.tex").read_text()
    for chapter in ("sets", "fields", "algebra"):
        text = (stacks / f"{chapter}.tex").read_text().replace("\\input{preamble}", "")
        out.append((f"stacks/{chapter}.tex", text, preamble, stacks))
    hott = corpora / "hott"
    macros = (hott / "macros.tex").read_text()
    for chapter in ("preliminaries", "hlevels"):
        out.append((f"hott/{chapter}.tex", (hott / f"{chapter}.tex").read_text(), macros, hott))
    napkin = corpora / "napkin"
    napkin_pre = flatten(napkin / "tex" / "preamble.tex", napkin) + flatten(napkin / "tex" / "macros.tex", napkin)
    chapter = napkin / "tex" / "alg-NT" / "dedekind.tex"
    out.append(("napkin/tex/alg-NT/dedekind.tex", chapter.read_text(), napkin_pre, napkin))
    paper = corpora / "papers" / "finkelstein-nc-approximation"
    out.append(("papers/finkelstein-nc-approximation", flatten(paper / "ncapproximation.tex", paper), "", paper))
    # This paper's theorem environments and macros live in its class and style files.
    sag = corpora / "papers" / "sag-foundations"
    sag_pre = "\n".join((sag / "util" / f).read_text() for f in ("zariski-base.cls", "zariski.cls", "zariski.sty"))
    out.append(("papers/sag-foundations", flatten(sag / "foundations" / "main.tex", sag / "foundations"), sag_pre,
                sag / "foundations"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, default=Path("/work/shared/corpora"))
    parser.add_argument("--timeout", type=float, default=60.0, help="per plasTeX attempt (the parser's default)")
    args = parser.parse_args()
    print(f"{'file':42} {'KB':>6} {'envs':>5} {'found':>5} {'wall s':>7} {'cpu s':>7} {'stmt/cpu s':>10}"
          f" {'KB/cpu s':>8}  trunc  numbered  error")
    total_kb = total_s = total_cpu = total_n = 0.0
    for label, text, preamble, base in jobs(args.corpora):
        envs = theorem_envs(preamble + text)
        started, cpu_before = time.perf_counter(), _child_cpu()
        result = parse_with_plastex(text, theorem_envs=envs, preamble=preamble, base_dir=str(base),
                                    timeout_s=args.timeout)
        seconds, cpu = time.perf_counter() - started, _child_cpu() - cpu_before
        expected = sum(len(re.findall(r"\\begin\{" + re.escape(e) + r"\}", mask_text(text)[0])) for e in envs)
        kb = len(text.encode()) / 1024
        n = len(result.statements)
        numbered = sum(1 for s in result.statements if s.number)
        total_kb, total_s, total_cpu, total_n = total_kb + kb, total_s + seconds, total_cpu + cpu, total_n + n
        cpu = max(cpu, 1e-9)
        print(f"{label:42} {kb:6.0f} {expected:5d} {n:5d} {seconds:7.1f} {cpu:7.1f} {n / cpu:10.1f} {kb / cpu:8.1f}"
              f"  {str(result.truncated):5}  {numbered:8d}  {result.error or ''}", flush=True)
        if result.warning:
            print(f"{'':42} warning: {result.warning}")
    print(f"{'total':42} {total_kb:6.0f} {'':5} {total_n:5.0f} {total_s:7.1f} {total_cpu:7.1f}"
          f" {total_n / total_cpu:10.1f} {total_kb / total_cpu:8.1f}")
    print(f"projection for 40 MB of TeX at this rate: {40 * 1024 / (total_kb / total_cpu) / 60:.1f} CPU minutes")


def _child_cpu() -> float:
    """CPU seconds used so far by finished child processes (plasTeX runs in one per attempt)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    main()
