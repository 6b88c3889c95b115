"""Check formulas with the real KaTeX, in one batch: Node.js runs ``katex.renderToString`` with ``throwOnError``.

The browser renders the cards' mathematics with KaTeX; a formula KaTeX cannot parse shows as red source
(``.katex-error``). To count those over a whole corpus without a browser, :class:`KatexChecker` hands every
distinct formula to one Node.js process that loads a KaTeX build and reads back the error message of each, or
none. The build is the one the app's pages use (the ``katex-*.js`` module inside the installed Gradio package)
when it is found, else Debian's (``apt-get install nodejs libjs-katex``), or any through ``THEOREM_RAG_KATEX_JS``.

>>> KatexChecker().errors([("x^2", False), (r"\\frac{1}", False)])          # doctest: +SKIP
[None, 'KaTeX parse error: Expected group after ...']
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

DEBIAN_KATEX_JS = "/usr/share/javascript/katex/katex.min.js"


def gradio_katex_js() -> str | None:
    """The KaTeX module bundled with the installed Gradio frontend (found without importing Gradio), or None."""
    import importlib.util

    spec = importlib.util.find_spec("gradio")
    if spec is None or not spec.submodule_search_locations:
        return None
    assets = Path(next(iter(spec.submodule_search_locations))) / "templates" / "frontend" / "assets"
    found = sorted(assets.glob("katex-*.js"))
    return str(found[0]) if found else None

# Render each formula as the page's auto-render does (display or inline), but throw instead of drawing red text.
_SCRIPT = r"""
const fs = require('fs');
const url = require('url');
(async () => {
const mod = await import(url.pathToFileURL(process.argv[2]).href);
const katex = mod.default || mod;
const items = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));
const out = items.map(([tex, display]) => {
  try { katex.renderToString(tex, {displayMode: display, throwOnError: true, strict: 'ignore'}); return null; }
  catch (e) { return String(e.message || e).slice(0, 300); }
});
fs.writeFileSync(process.argv[4], JSON.stringify({version: katex.version, errors: out}));
})().catch((e) => { console.error(String(e)); process.exit(1); });
"""


class KatexUnavailable(RuntimeError):
    """Node.js or the KaTeX build is missing."""


class KatexChecker:
    """KaTeX parse errors for many formulas at once (one Node.js process per call)."""

    def __init__(self, katex_js: str | None = None, node: str | None = None) -> None:
        self.katex_js = katex_js or os.environ.get("THEOREM_RAG_KATEX_JS") or gradio_katex_js() or DEBIAN_KATEX_JS
        self.node = node or shutil.which("node") or shutil.which("nodejs") or ""
        if not self.node:
            raise KatexUnavailable("checking formulas with KaTeX needs Node.js: apt-get install nodejs libjs-katex")
        if not Path(self.katex_js).is_file():
            raise KatexUnavailable(
                f"no KaTeX build at {self.katex_js}: apt-get install libjs-katex, or set THEOREM_RAG_KATEX_JS"
            )
        self.version = ""

    def errors(self, formulas: Sequence[tuple[str, bool]]) -> list[str | None]:
        """The KaTeX error message of each ``(tex, display)``, ``None`` where it renders."""
        distinct = list(dict.fromkeys(formulas))
        if not distinct:
            return []
        with tempfile.TemporaryDirectory(prefix="trag-katex-") as tmp:
            src, dst, script = Path(tmp, "in.json"), Path(tmp, "out.json"), Path(tmp, "check.js")
            src.write_text(json.dumps(distinct), encoding="utf-8")
            script.write_text(_SCRIPT, encoding="utf-8")
            proc = subprocess.run([self.node, str(script), self.katex_js, str(src), str(dst)],
                                  capture_output=True, text=True, timeout=1800)  # fmt: skip
            if proc.returncode != 0:
                raise KatexUnavailable(f"node failed: {proc.stderr.strip()[-500:]}")
            result = json.loads(dst.read_text(encoding="utf-8"))
        self.version = result["version"]
        by_formula = dict(zip(distinct, result["errors"]))
        return [by_formula[f] for f in formulas]
