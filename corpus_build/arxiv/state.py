"""What the arXiv ingestion keeps on disk between runs: listing pages and version metadata.

Every file is replaced whole (:func:`write_durable`: a temporary file in the same folder, flushed to disk, renamed
over the old one), so a run killed at any moment leaves the previous file or the new one, never a part. A file
damaged anyway (a disk fault, or a partial write by an older version of this code) is not an error: what it held
is asked for again, and the reader says so in ``recovered``.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp()); write_durable(folder / "a.json", '{"n": 1}')
>>> read_json(folder / "a.json"), read_json(folder / "missing.json")
({'n': 1}, None)
>>> _ = (folder / "a.json").write_text('{"n": '); read_json(folder / "a.json")
Traceback (most recent call last):
...
corpus_build.arxiv.state.DamagedState: ...a.json: not readable JSON (Expecting value...)
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from corpus_build.arxiv.atom import ArxivEntry
from corpus_build.arxiv.ids import ArxivId
from theorem_rag.errors import InputError
from theorem_rag.records import digest


class DamagedState(ValueError):
    """A state file that exists but cannot be read; the caller recovers from it."""


def write_durable(path: Path, data: str | bytes) -> None:
    """Replace ``path`` with ``data`` atomically and durably: temporary file in the same folder, fsync, rename,
    fsync of the folder (so the rename itself survives a power cut)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):  # some filesystems cannot fsync a folder; the rename is still atomic
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def read_json(path: Path) -> dict | None:
    """The JSON object in ``path``, ``None`` when there is no such file; :class:`DamagedState` when unreadable."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as e:
        raise DamagedState(f"{path}: not readable ({e})") from e
    try:
        d = json.loads(text)
    except ValueError as e:
        raise DamagedState(f"{path}: not readable JSON ({e})") from e
    if not isinstance(d, dict):
        raise DamagedState(f"{path}: not a JSON object")
    return d


def _entry(d: dict) -> ArxivEntry:
    try:
        return ArxivEntry.from_dict(d)
    except (KeyError, TypeError, InputError) as e:
        raise DamagedState(f"not an arXiv entry ({e})") from e


@dataclass
class Listing:
    """Resumable paging of one search query: the entries so far (``listing-<hash>.jsonl``) and the paging state
    (``listing-<hash>.json``: next start and total), each replaced whole, the entries first.

    The state is derived data: a damaged or missing-entries state resumes from the entries that are readable
    (paging is by offset, so the next page starts after the last good entry) and says so in ``recovered``.
    """

    folder: Path
    query: str
    next_start: int = 0
    total: int | None = None
    entries: list[ArxivEntry] = field(default_factory=list)
    recovered: str = ""

    @property
    def _stem(self) -> Path:
        return self.folder / f"listing-{digest(self.query, length=16)}"

    @classmethod
    def load(cls, folder: Path, query: str) -> Listing:
        self = cls(folder, query)
        state_path, entries_path = self._stem.with_suffix(".json"), self._stem.with_suffix(".jsonl")
        problem = ""
        try:
            state = read_json(state_path)
        except DamagedState as e:
            state, problem = None, str(e)
        if state is None and not problem:
            return self  # no page was ever saved (entries without a state were never committed)
        if state is not None and (state.get("query") != query or not isinstance(state.get("next_start"), int)):
            state, problem = None, f"{state_path}: not this listing's state"
        entries, bad = self._read_entries(entries_path)
        if state is not None:
            self.next_start, self.total = state["next_start"], state.get("total")
        else:
            self.next_start = len(entries)
        if len(entries) < self.next_start:
            problem = bad or f"{entries_path}: {len(entries)} entries where the state counts {self.next_start}"
            self.next_start, self.total = len(entries), None
        self.entries = entries[: self.next_start]
        if problem:
            self.recovered = f"{problem}; the listing resumes after its {self.next_start} readable entries"
        return self

    @staticmethod
    def _read_entries(path: Path) -> tuple[list[ArxivEntry], str]:
        """The entries up to the first unreadable line, and what was wrong there (``""`` if nothing)."""
        entries: list[ArxivEntry] = []
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return entries, f"{path}: missing"
        except (OSError, UnicodeDecodeError) as e:
            return entries, f"{path}: not readable ({e})"
        for n, line in enumerate(lines, 1):
            try:
                entries.append(_entry(json.loads(line)))
            except (ValueError, DamagedState) as e:
                return entries, f"{path}:{n}: damaged line ({e})"
        return entries, ""

    def save_page(self, entries: list[ArxivEntry], next_start: int, total: int) -> None:
        """Add a page: all entries written (replaced whole) before the state that counts them."""
        lines = "".join(json.dumps(e.to_dict()) + "\n" for e in [*self.entries, *entries])
        write_durable(self._stem.with_suffix(".jsonl"), lines)
        self.entries += entries
        write_durable(self._stem.with_suffix(".json"),
                      json.dumps({"query": self.query, "next_start": next_start, "total": total}))  # fmt: skip
        self.next_start, self.total = next_start, total

    @property
    def done(self) -> bool:
        return self.total is not None and self.next_start >= self.total


class MetadataCache:
    """Metadata of given versions (``<root>/<id key>/v<N>.json``): a version's metadata never changes.

    A damaged file counts as absent (the caller asks the API again and the file is rewritten); ``recovered``
    lists the files that were.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.recovered: list[str] = []

    def _path(self, aid: ArxivId) -> Path:
        return self.root / aid.key / f"v{aid.version}.json"

    def get(self, aid: ArxivId) -> ArxivEntry | None:
        if not aid.version:
            return None
        path = self._path(aid)
        try:
            d = read_json(path)
            return _entry(d) if d is not None else None
        except DamagedState as e:
            self.recovered.append(f"{path}: {e}; asked for again")
            return None

    def put(self, entry: ArxivEntry) -> None:
        if entry.id.version:
            write_durable(self._path(entry.id), json.dumps(entry.to_dict()))
