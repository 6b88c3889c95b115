"""Pictures of an evaluation: Hit@k curves per configuration, and a 2-D map of the embedding space.

matplotlib runs on the Agg backend (files only, no display). The map projects a sample of statement vectors
with PCA (or t-SNE) and colours it twice, by source and by subject, to show how well a model clusters.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from theorem_rag.errors import InputError
from theorem_rag.records import Theorem

if TYPE_CHECKING:
    from theorem_rag.eval.harness import EvalResult

_MSC = re.compile(r"(\d\d)")


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError as e:
        raise ImportError('plots need matplotlib: pip install "theorem-rag[eval]"') from e
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def subject_of(theorem: Theorem) -> str:
    """A statement's subject: the PlanetMath MSC top-level class, else the document (Stacks chapter, paper, book).

    >>> subject_of(Theorem(id="planetmath:X", source="planetmath", kind="definition", body_latex=".",
    ...                    doc_id="planetmath:X", meta={"msc": ["26A15", "54C05"]}))
    'msc 26'
    >>> subject_of(Theorem(id="stacks:00FN", source="stacks", kind="lemma", body_latex=".", doc_id="stacks:algebra"))
    'stacks:algebra'
    """
    msc = theorem.meta.get("msc") or theorem.meta.get("msc_classes") or theorem.meta.get("classification")
    if isinstance(msc, str):
        msc = [msc]
    for code in msc or ():
        m = _MSC.match(str(code).removeprefix("msc:").strip())
        if m:
            return f"msc {m.group(1)}"
    return theorem.doc_id


def subjects_of(theorems: Sequence[Theorem]) -> list[str]:
    """:func:`subject_of` each statement, except that a source held in one document (a book) is split by the
    first heading of each statement (its part or chapter), since the book alone would only repeat the source.

    >>> book = [Theorem(id=str(i), source="napkin", kind="lemma", body_latex=".", doc_id="napkin", section=(s,))
    ...         for i, s in enumerate(["Linear Algebra", "Topology"])]
    >>> subjects_of(book)
    ['napkin: Linear Algebra', 'napkin: Topology']
    """
    docs: dict[str, set[str]] = {}
    for t in theorems:
        docs.setdefault(t.source, set()).add(t.doc_id)
    out = []
    for t in theorems:
        subject = subject_of(t)
        if subject == t.doc_id and len(docs[t.source]) == 1 and t.section:
            subject = f"{t.source}: {t.section[0]}"
        out.append(subject)
    return out


def sample_statements(theorems: Sequence[Theorem], n: int, seed: int = 0) -> list[Theorem]:
    """Up to ``n`` statements, the same share from each source (small sources whole), reproducibly.

    >>> ts = [Theorem(id=f"{s}{i}", source=s, kind="lemma", body_latex=".", doc_id=s) for s in "ab" for i in range(9)]
    >>> Counter(t.source for t in sample_statements(ts + ts[:1], 4))
    Counter({'a': 2, 'b': 2})
    """
    by_source: dict[str, list[Theorem]] = {}
    for t in dict((t.id, t) for t in theorems).values():
        by_source.setdefault(t.source, []).append(t)
    rng = random.Random(seed)
    out: list[Theorem] = []
    remaining = n
    for i, (_, group) in enumerate(sorted(by_source.items(), key=lambda kv: len(kv[1]))):
        share = remaining // (len(by_source) - i)
        picked = group if len(group) <= share else rng.sample(group, share)
        out.extend(picked)
        remaining -= len(picked)
    return out


def plot_hit_curves(result: EvalResult, path: str | Path, metric: str = "hit") -> Path:
    """One panel per query set: ``metric``@k (hit, mrr, recall) per configuration; theorem solid, paper dashed."""
    plt = _pyplot()
    sets = result.query_sets
    fig, axes = plt.subplots(1, len(sets), figsize=(5.0 * len(sets), 4.2), squeeze=False, sharey=True)
    colors = plt.get_cmap("tab10")
    ks = list(result.ks)
    for ax, set_name in zip(axes[0], sets):
        n = None
        for i, (config, by_set) in enumerate(result.results.items()):
            if set_name not in by_set:
                continue
            r = by_set[set_name]
            n = r.n
            for level, style in (("theorem", "-"), ("paper", "--")):
                ys = [getattr(r, level)[f"{metric}@{k}"] for k in ks]
                ax.plot(ks, ys, style, marker="o", color=colors(i % 10), label=f"{config} ({level})")
        ax.set_title(f"{set_name} (n = {n})", fontsize=10)
        ax.set_xscale("log")
        ax.set_xticks(ks, [str(k) for k in ks])
        ax.minorticks_off()
        ax.set_xlabel("k")
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel({"hit": "Hit", "mrr": "MRR", "recall": "Recall"}[metric] + "@k")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(4, max(1, len(labels))), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.05 + 0.035 * ((len(labels) - 1) // 4), 1, 1))
    return _save(fig, plt, path)


def project_2d(vectors: Any, method: str = "pca", seed: int = 0) -> Any:
    """2-D coordinates of row vectors by PCA or t-SNE (scikit-learn), for plotting."""
    import numpy as np

    try:
        from sklearn.decomposition import PCA
        from sklearn.manifold import TSNE
    except ImportError as e:
        raise ImportError('the embedding map needs scikit-learn: pip install "theorem-rag[eval]"') from e
    x = np.asarray(vectors, dtype=np.float32)
    if x.ndim != 2 or len(x) < 3:
        raise ValueError(f"need at least 3 row vectors, got shape {x.shape}")
    if method == "pca":
        return PCA(n_components=2, random_state=seed).fit_transform(x)
    if method == "tsne":
        perplexity = min(30.0, (len(x) - 1) / 3)
        return TSNE(n_components=2, perplexity=perplexity, init="pca", random_state=seed).fit_transform(x)
    raise InputError(f"unknown projection {method!r}; choose 'pca' or 'tsne'")


def plot_embedding_map(
    vectors: Any,
    colourings: Mapping[str, Sequence[str]],
    path: str | Path,
    method: str = "pca",
    title: str = "",
    max_classes: int = 12,
) -> Path:
    """Scatter a 2-D projection of ``vectors`` once per colouring, e.g. ``{"source": [...], "subject": [...]}``.

    Each colouring labels every row; the ``max_classes - 1`` commonest labels get colours, the rest are grey.
    """
    plt = _pyplot()
    xy = project_2d(vectors, method)
    fig, axes = plt.subplots(1, len(colourings), figsize=(6.5 * len(colourings), 6.2), squeeze=False)
    for ax, (name, labels) in zip(axes[0], colourings.items()):
        if len(labels) != len(xy):
            raise ValueError(f"colouring {name!r} has {len(labels)} labels for {len(xy)} vectors")
        top = [lab for lab, _ in Counter(labels).most_common(max_classes - 1)]
        # tab20 pairs dark and light shades of one hue: take every dark shade first so neighbours differ.
        cmap = plt.get_cmap("tab20")
        shown = {lab: cmap((2 * i) % 20 + (2 * i) // 20) for i, lab in enumerate(top)}
        other = [i for i, lab in enumerate(labels) if lab not in shown]
        if other:
            ax.scatter(xy[other, 0], xy[other, 1], s=5, color="0.8", label=f"other ({len(other)})")
        for lab, colour in shown.items():
            idx = [i for i, x in enumerate(labels) if x == lab]
            ax.scatter(xy[idx, 0], xy[idx, 1], s=6, color=colour, label=f"{lab} ({len(idx)})")
        ax.set_title(f"coloured by {name}", fontsize=11)
        ax.set_xticks([])
        ax.set_yticks([])
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.02), ncol=3, fontsize=7, markerscale=2.5, frameon=False)
    fig.suptitle(title or f"{method.upper()} of {len(xy)} statement embeddings", fontsize=12)
    fig.tight_layout()
    return _save(fig, plt, path)


def embed_statements(theorems: Sequence[Theorem], model_name: str, doc_instruction: str = "") -> Any:
    """Embed statements' LaTeX (macros expanded when known) as the index embeds documents, for the 2-D map."""
    from theorem_rag.embed import Embedder, embed_text_for

    embedder = Embedder(model_name, doc_instruction=doc_instruction)
    return embedder.embed_documents([embed_text_for(t, None, "latex") for t in theorems])


def _save(fig: Any, plt: Any, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=130, bbox_inches="tight")
    plt.close(fig)
    return path
