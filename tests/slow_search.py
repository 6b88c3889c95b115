"""A real search whose ``search`` first holds a database query for 30 s: what the deadline tests of the REST API and
the web app cancel (the query carries a marker, to find it among the server's active queries)."""

from __future__ import annotations

import threading
import uuid


class SlowSearch:
    """The real search, whose ``search`` first holds a database query for 30 s (marked, to find it on the server)."""

    def __init__(self, search) -> None:
        self.inner, self.marker = search, f"trag_slow_{uuid.uuid4().hex[:8]}"
        self.errors: list[BaseException] = []
        self.finished = threading.Event()

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def search(self, *args, **kwargs):
        try:
            with self.inner.store.connection() as conn:
                conn.execute(f"SELECT pg_sleep(30) /* {self.marker} */")
            return self.inner.search(*args, **kwargs)
        except BaseException as err:
            self.errors.append(err)
            raise
        finally:
            self.finished.set()
