"""A real search whose ``search`` (or another method, such as ``premises``) first holds a database query for 30 s:
what the deadline tests of the REST API and the web app cancel (the query carries a marker, to find it among the
server's active queries)."""

from __future__ import annotations

import threading
import uuid


class SlowSearch:
    """The real search, whose methods named in ``slow`` first hold a database query for 30 s (marked, to find it on
    the server); every other attribute is the real search's."""

    def __init__(self, search, slow: tuple[str, ...] = ("search",)) -> None:
        self.inner, self.slow, self.marker = search, slow, f"trag_slow_{uuid.uuid4().hex[:8]}"
        self.errors: list[BaseException] = []
        self.finished = threading.Event()

    def __getattr__(self, name):
        real = getattr(self.inner, name)
        return self._held(real) if name in self.slow else real

    def _held(self, real):
        def call(*args, **kwargs):
            try:
                with self.inner.store.connection() as conn:
                    conn.execute(f"SELECT pg_sleep(30) /* {self.marker} */")
                return real(*args, **kwargs)
            except BaseException as err:
                self.errors.append(err)
                raise
            finally:
                self.finished.set()

        return call
