"""The app's notice when nothing matches well: said plainly, with what to try (its own module, apart from the
cards, so the card layout and this notice change independently).

>>> from theorem_rag.retrieval.confidence import assess
>>> "No close match" in no_match_html(assess([0.01]))
True
>>> no_match_html(assess([0.99]))
''
"""

from __future__ import annotations

import html
from typing import Any


def no_match_html(assessment: Any) -> str:
    """A ``trag-nomatch`` notice for an assessment that is not confident; empty when it is."""
    if assessment is None or assessment.confident:
        return ""
    tips = "".join(f"<li>{html.escape(s)}</li>" for s in assessment.suggestions)
    return (
        '<div class="trag-msg trag-msg-warning trag-nomatch" role="status">'
        f"<b>{html.escape(assessment.message or 'No close match.')}</b> "
        f"The nearest results are below (confidence {assessment.confidence:.2f}). Try:<ul>{tips}</ul></div>"
    )
