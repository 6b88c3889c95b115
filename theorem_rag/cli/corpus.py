"""``theorem-rag corpus ...``: turn LaTeX sources into theorem records."""

from __future__ import annotations

import click


@click.group()
def corpus() -> None:
    """Parse LaTeX sources into theorem records."""
