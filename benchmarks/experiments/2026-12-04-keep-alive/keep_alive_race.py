"""The keep-alive race between a server and a pooling HTTP client, measured against a running server.

N clients (one httpx connection each) send ``GET /health``, stay idle ``d`` seconds, and send again on the same
connection; ``d`` is spread evenly over ``[lo, hi]``, around the server's keep-alive. A task blocks the clients'
event loop 50 ms at a time, as a loaded client's is: a server that closes idle connections after as long as httpx
keeps them (5 s, uvicorn's default) then drops some second requests (``RemoteProtocolError``/``ReadError``)
instead of answering them.

    theorem-rag api --port 8101 --keep-alive 5 &     # uvicorn's default
    theorem-rag api --port 8102 &                    # the default keep-alive (75 s)
    python benchmarks/keep_alive_race.py http://127.0.0.1:8101 --clients 64 --idle 4.85 5.15
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import time

import httpx


async def _client(url: str, idle: float) -> str:
    async with httpx.AsyncClient(base_url=url, timeout=30) as c:
        await c.get("/health")
        await asyncio.sleep(idle)
        try:
            return f"HTTP {(await c.get('/health')).status_code}"
        except httpx.HTTPError as err:
            return type(err).__name__


async def _busy(stop: asyncio.Event, block: float = 0.05) -> None:
    while not stop.is_set():
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < block:
            pass
        await asyncio.sleep(0.01)


async def run(url: str, clients: int, lo: float, hi: float) -> list[tuple[float, str]]:
    """``(idle seconds, outcome)`` per client."""
    idles = [lo + (hi - lo) * i / max(clients - 1, 1) for i in range(clients)]
    stop = asyncio.Event()
    busy = asyncio.create_task(_busy(stop))
    outcomes = await asyncio.gather(*(_client(url, d) for d in idles))
    stop.set()
    await busy
    return list(zip(idles, outcomes))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("url")
    p.add_argument("--clients", type=int, default=64)
    p.add_argument("--idle", type=float, nargs=2, default=[4.85, 5.15], metavar=("LO", "HI"))
    args = p.parse_args()
    results = asyncio.run(run(args.url, args.clients, *args.idle))
    print(args.url, dict(collections.Counter(o for _, o in results)), f"idle {args.idle[0]}-{args.idle[1]} s")
    failed = [round(d, 3) for d, o in results if not o.startswith("HTTP")]
    if failed:
        print("dropped at idle (s):", failed)


if __name__ == "__main__":
    main()
