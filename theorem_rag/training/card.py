"""The shipped form of a trained model: fp16 weights, its ``theorem_rag.json`` and a model card beside them.

``theorem_rag.json`` is what the library reads (the premise instruction the model was trained with); the card
(``README.md``) is what people read: the recipe, the pair counts, the metrics and the command that reproduces it.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from theorem_rag.embed_models import MODEL_SETTINGS_FILE as MODEL_META
from theorem_rag.embed_models import model_settings as read_model_meta

__all__ = ["MODEL_META", "export_model", "model_card", "pair_sources", "read_model_meta"]


def _premise_line(instruction: str, proof_pairs: int | None = None, query_instruction: str = "") -> str:
    """What the card says about premise queries (``proof_pairs``: how many proof-reference pairs it was trained
    on; None when unknown, taken as none unless there is an instruction) and ordinary ones.

    >>> _premise_line("premises:")
    'Premise search embeds its queries as `"premises: <statement>"`; ordinary searches take no instruction.'
    >>> _premise_line("")[:60]
    'No proof-reference pairs were in its training, so it has no '
    >>> _premise_line("", 3000)[:69]
    'Trained on 3,000 proof-reference pairs without an instruction (citing'
    >>> _premise_line("premises:", query_instruction="query:")[-43:]
    'ordinary searches embed `"query: <query>"`.'
    """
    ordinary = (f'ordinary searches embed `"{query_instruction} <query>"`.' if query_instruction
                else "ordinary searches take no instruction.")
    if instruction:
        return f'Premise search embeds its queries as `"{instruction} <statement>"`; {ordinary}'
    plain = f' (`"{query_instruction} <statement>"`, as {ordinary[:-1]})' if query_instruction else ""
    if proof_pairs:
        return (f"Trained on {proof_pairs:,} proof-reference pairs without an instruction (citing statement as it "
                f"stands -> cited statement), so premise search embeds a statement as a plain query{plain}.")
    return ("No proof-reference pairs were in its training, so it has no premise instruction: premise search "
            f"embeds a statement as a plain query{plain}.")  # fmt: skip


def pair_sources(pairs: Iterable[Any]) -> dict[str, int]:
    """Training pairs per source of the statement each one teaches (the prefix of its ``positive_id``).

    >>> from types import SimpleNamespace as P
    >>> pair_sources([P(positive_id="stacks:00DV"), P(positive_id="hott:thm:x"), P(positive_id="stacks:0A0B")])
    {'stacks': 2, 'hott': 1}
    """
    return dict(Counter(p.positive_id.split(":", 1)[0] for p in pairs).most_common())


def _sources_line(meta: dict[str, Any]) -> str:
    """What the card says the model was trained on, source by source, and what it never saw."""
    sources = meta.get("sources")
    if not sources:
        return "The sources of its training pairs were not recorded."
    line = "Its training pairs teach statements of: " + ", ".join(f"{k} ({v:,})" for k, v in sources.items()) + "."
    excluded = meta.get("excluded_sources") or []
    if excluded:
        line += (f" It never saw a statement of {', '.join(excluded)} (`--exclude-source`): those play the part of "
                 "papers a user brings, which no training ever sees.")
    return line


def model_card(name: str, meta: dict[str, Any], pair_report: str, metrics_md: str = "") -> str:
    """The Markdown model card: what the model is, how it was made, on which sources, what it scores."""
    cfg = meta.get("recipe", {})
    lines = [
        f"# {name}",
        "",
        f"`{cfg.get('base_model', '?')}` (MiniLM-L6, 384 dimensions) fine-tuned by theorem-rag on training pairs mined "
        "from the records of the shared corpora (no evaluation query is ever a training pair). Weights in fp16 "
        "safetensors; the library loads them as float32 on CPU.",
        "",
        _sources_line(meta),
        "",
        _premise_line(meta.get("premise_instruction", ""), meta.get("proof_pairs"), meta.get("query_instruction", "")),
        "",
        "## Reproduce",
        "",
        "```bash",
        meta.get("command", ""),
        "```",
        "",
        "## Recipe",
        "",
        "| setting | value |",
        "|---|---|",
    ]
    lines += [f"| {k} | {v} |" for k, v in cfg.items() if k != "extra"]
    lines += [f"| {k} | {v} |" for k, v in (cfg.get("extra") or {}).items()]
    for key in ("pairs", "steps", "seconds", "resumed_at_step", "device", "first_loss", "final_loss"):
        if key in meta.get("training", {}):
            lines.append(f"| training {key} | {meta['training'][key]} |")
    lines += ["", "## Training pairs", "", pair_report, ""]
    if metrics_md:
        lines += ["## Evaluation (dev sets)", "", metrics_md.strip(), ""]
    lines += [
        "## License",
        "",
        "Base model: Apache-2.0 (sentence-transformers/all-MiniLM-L6-v2). Training text: the shared corpora "
        "(Stacks Project GFDL, PlanetMath CC BY-SA, Open Logic CC BY, Napkin CC BY-SA, HoTT book CC BY-SA, Lebl "
        "CC BY-SA, papers under their own licenses).",
        "",
    ]
    return "\n".join(lines)


def export_model(model_dir: str | Path, out_dir: str | Path, meta: dict[str, Any], card: str,
                 *, fp16: bool = True) -> Path:
    """Save the model of ``model_dir`` to ``out_dir`` (fp16 weights by default) with ``theorem_rag.json`` and the
    card; no checkpoint or training file is copied."""
    import torch
    from sentence_transformers import SentenceTransformer

    out_dir = Path(out_dir)
    if out_dir.exists():
        shutil.rmtree(out_dir)
    model = SentenceTransformer(str(model_dir), device="cpu", local_files_only=True)
    if fp16:
        model = model.to(torch.float16)
    model.save(str(out_dir), safe_serialization=True, create_model_card=False)
    (out_dir / MODEL_META).write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    (out_dir / "README.md").write_text(card, encoding="utf-8")
    return out_dir
