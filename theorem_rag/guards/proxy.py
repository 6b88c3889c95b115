"""Which client address a server sees behind a reverse proxy: the proxies whose ``X-Forwarded-For`` it believes.

Rate limits are per client address. Behind a reverse proxy every connection comes from the proxy, so the servers
take the client's address from the ``X-Forwarded-For`` header that the proxy adds, but only on connections from
a trusted proxy (``THEOREM_RAG_FORWARDED_ALLOW_IPS``, ``--forwarded-allow-ips``: addresses or networks, comma
separated); from anyone else the header is ignored, since a client could write any address into it and so get a
fresh bucket on every request. Of the header's addresses the client is the rightmost one that is not a trusted
proxy: each proxy appends the address it was reached from, so everything left of that hop is the client's own
writing. The default trusts loopback only (a proxy on the same machine); an empty value trusts nobody. uvicorn
does the rewriting (its ``ProxyHeadersMiddleware``), before the rate limiter reads the address.

``*`` and networks as wide as the internet are refused: uvicorn believes the *leftmost* address under ``*``, which
the client chooses, and a trusted set that holds every client lets each one write its own address too.

>>> uvicorn_proxy_options("")
{'proxy_headers': False}
>>> uvicorn_proxy_options(" 10.0.0.5, 10.0.1.0/24 ")
{'proxy_headers': True, 'forwarded_allow_ips': '10.0.0.5,10.0.1.0/24'}
>>> uvicorn_proxy_options("10.0.0.999")
Traceback (most recent call last):
...
ValueError: --forwarded-allow-ips takes IP addresses or networks, comma separated; got '10.0.0.999'
"""

from __future__ import annotations

import ipaddress
from typing import Any

ENV_VAR = "THEOREM_RAG_FORWARDED_ALLOW_IPS"
DEFAULT_TRUSTED = "127.0.0.1,::1"
# The widest network one may trust: the widest private block of each family (10.0.0.0/8, fc00::/7). An IPv6 network
# that overlaps the IPv4-mapped block (::ffff:0:0/96, how a dual-stack socket reports IPv4 clients) is held to IPv4's.
_WIDEST_PREFIX = {4: 8, 6: 7}
_IPV4_MAPPED = ipaddress.IPv6Network("::ffff:0:0/96")


def _too_wide(network: ipaddress.IPv4Network | ipaddress.IPv6Network) -> bool:
    """Whether trusting ``network`` would trust clients at large (wider than :data:`_WIDEST_PREFIX`)."""
    if network.version == 6 and network.overlaps(_IPV4_MAPPED):
        return network.prefixlen < _IPV4_MAPPED.prefixlen + _WIDEST_PREFIX[4]
    return network.prefixlen < _WIDEST_PREFIX[network.version]


def trusted_proxies(value: str | None) -> list[str]:
    """The trusted proxy addresses and networks in ``value`` (``None``: :data:`DEFAULT_TRUSTED`), checked.

    >>> trusted_proxies("0.0.0.0/0")
    Traceback (most recent call last):
    ...
    ValueError: --forwarded-allow-ips '0.0.0.0/0' would trust every client to name itself in X-Forwarded-For ...
    """
    items = [v.strip() for v in (DEFAULT_TRUSTED if value is None else value).split(",") if v.strip()]
    for item in items:
        try:
            network = None if item == "*" else ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise ValueError(f"--forwarded-allow-ips takes IP addresses or networks, comma separated; got "
                             f"{item!r}") from None  # fmt: skip
        if network is None or _too_wide(network):
            raise ValueError(f"--forwarded-allow-ips {item!r} would trust every client to name itself in "
                             "X-Forwarded-For (a fresh rate-limit bucket per request); name the reverse proxies "
                             "instead, e.g. 10.0.0.5 or 10.0.0.0/24 (no network wider than /8 in IPv4, /7 in IPv6), "
                             "or '' when no proxy is in front")  # fmt: skip
    return items


def uvicorn_proxy_options(value: str | None) -> dict[str, Any]:
    """The keyword arguments of ``uvicorn.run`` / ``uvicorn.Config`` that trust the proxies in ``value`` (and,
    unlike uvicorn's own default, ignore ``FORWARDED_ALLOW_IPS`` in the environment: one setting, one name)."""
    items = trusted_proxies(value)
    if not items:
        return {"proxy_headers": False}
    return {"proxy_headers": True, "forwarded_allow_ips": ",".join(items)}
