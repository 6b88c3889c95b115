"""Which client address a server sees behind a reverse proxy: the proxies whose ``X-Forwarded-For`` it believes.

Rate limits are per client address. Behind a reverse proxy every connection comes from the proxy, so the servers
take the client's address from the ``X-Forwarded-For`` header that the proxy adds, but only on connections from
a trusted proxy (``THEOREM_RAG_FORWARDED_ALLOW_IPS``, ``--forwarded-allow-ips``: addresses or networks, comma
separated, or ``*``); from anyone else the header is ignored, since a client could write any address into it and so
get a fresh bucket on every request. The default trusts loopback only (a proxy on the same machine); an empty
value trusts nobody. uvicorn does the rewriting (its ``ProxyHeadersMiddleware``), before the rate limiter reads
the address.

>>> uvicorn_proxy_options("")
{'proxy_headers': False}
>>> uvicorn_proxy_options(" 10.0.0.5, 10.0.1.0/24 ")
{'proxy_headers': True, 'forwarded_allow_ips': '10.0.0.5,10.0.1.0/24'}
>>> uvicorn_proxy_options("10.0.0.999")
Traceback (most recent call last):
...
ValueError: --forwarded-allow-ips takes IP addresses or networks (or *), comma separated; got '10.0.0.999'
"""

from __future__ import annotations

import ipaddress
from typing import Any

ENV_VAR = "THEOREM_RAG_FORWARDED_ALLOW_IPS"
DEFAULT_TRUSTED = "127.0.0.1,::1"


def trusted_proxies(value: str | None) -> list[str]:
    """The trusted proxy addresses and networks in ``value`` (``None``: :data:`DEFAULT_TRUSTED`), checked."""
    items = [v.strip() for v in (DEFAULT_TRUSTED if value is None else value).split(",") if v.strip()]
    for item in items:
        if item == "*":
            continue
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise ValueError(f"--forwarded-allow-ips takes IP addresses or networks (or *), comma separated; got "
                             f"{item!r}") from None  # fmt: skip
    return items


def uvicorn_proxy_options(value: str | None) -> dict[str, Any]:
    """The keyword arguments of ``uvicorn.run`` / ``uvicorn.Config`` that trust the proxies in ``value`` (and,
    unlike uvicorn's own default, ignore ``FORWARDED_ALLOW_IPS`` in the environment: one setting, one name)."""
    items = trusted_proxies(value)
    if not items:
        return {"proxy_headers": False}
    return {"proxy_headers": True, "forwarded_allow_ips": ",".join(items)}
