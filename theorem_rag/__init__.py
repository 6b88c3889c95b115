"""theorem-rag: semantic search over research mathematics at the level of single theorems."""

from theorem_rag.config import Settings
from theorem_rag.errors import InputError
from theorem_rag.records import Document, Hit, PaperHit, Theorem

__version__ = "0.1.0"

__all__ = ["Document", "Hit", "InputError", "PaperHit", "Settings", "Theorem", "__version__"]
