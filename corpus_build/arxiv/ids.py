"""arXiv identifiers: new style (``2301.01234v2``) and old style (``math/0601001v1``, ``math.AG/0601001``), pure.

>>> parse_arxiv_id("arXiv:2301.01234v2")
ArxivId(base='2301.01234', version=2)
>>> parse_arxiv_id("https://arxiv.org/abs/math.AG/0601001v3")
ArxivId(base='math/0601001', version=3)
>>> parse_arxiv_id("math0601001").base, parse_arxiv_id("0704.0001").key
('math/0601001', '0704.0001')
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from theorem_rag.errors import InputError

_NEW = re.compile(r"^(?P<base>\d{4}\.\d{4,5})(?:v(?P<v>\d+))?$")
# Old style: archive[.SUBJ]/YYMMNNN; bulk archives drop the slash (math0601001).
_OLD = re.compile(r"^(?P<arch>[a-z]+(?:-[a-z]+)?)(?:\.[A-Z]{2})?/?(?P<num>\d{7})(?:v(?P<v>\d+))?$")
_PREFIX = re.compile(r"^(?:https?://(?:export\.)?arxiv\.org/(?:abs|pdf|e-print)/|arxiv:)", re.I)


@dataclass(frozen=True, order=True)
class ArxivId:
    """A paper id without its version (``base``) and the version, ``None`` when not given."""

    base: str
    version: int | None = None

    @property
    def key(self) -> str:
        """A file-name-safe form of ``base`` (``math/0601001`` -> ``math_0601001``) for cache folders."""
        return self.base.replace("/", "_")

    @property
    def versioned(self) -> str:
        """``base`` with ``vN`` when the version is known."""
        return f"{self.base}v{self.version}" if self.version else self.base

    @property
    def abs_url(self) -> str:
        """The abstract page (of the latest version: statement urls outlive versions)."""
        return f"https://arxiv.org/abs/{self.base}"

    def with_version(self, version: int | None) -> ArxivId:
        return ArxivId(self.base, version)


def parse_arxiv_id(text: str) -> ArxivId:
    """Parse an id in any common spelling (``arXiv:`` prefix, abs/pdf url, ``.pdf`` suffix, bulk file name).

    Anything else is an :class:`~theorem_rag.errors.InputError` naming the value.

    >>> parse_arxiv_id("2301.1234v1")
    ArxivId(base='2301.1234', version=1)
    >>> parse_arxiv_id("not an id")
    Traceback (most recent call last):
    ...
    theorem_rag.errors.InputError: not an arXiv id: 'not an id' (expected e.g. 2301.01234, 2301.01234v2 or math/0601001)
    """
    raw = text
    if not isinstance(text, str):
        raise InputError(f"not an arXiv id: {text!r}")
    s = _PREFIX.sub("", text.strip())
    s = re.sub(r"\.(pdf|gz|tar\.gz|tex)$", "", s)
    m = _NEW.match(s)
    if m:
        return ArxivId(m["base"], int(m["v"]) if m["v"] else None)
    m = _OLD.match(s)
    if m:
        return ArxivId(f"{m['arch']}/{m['num']}", int(m["v"]) if m["v"] else None)
    raise InputError(f"not an arXiv id: {raw!r} (expected e.g. 2301.01234, 2301.01234v2 or math/0601001)")


def from_key(key: str) -> ArxivId:
    """The inverse of :attr:`ArxivId.key`.

    >>> from_key("math_0601001")
    ArxivId(base='math/0601001', version=None)
    """
    return parse_arxiv_id(key.replace("_", "/", 1) if "_" in key else key)


def doc_id(aid: ArxivId) -> str:
    """The document id of a paper in the index: ``arxiv:<id>`` (no version: a newer one replaces it).

    >>> doc_id(ArxivId("2301.01234", 3))
    'arxiv:2301.01234'
    """
    return f"arxiv:{aid.base}"
