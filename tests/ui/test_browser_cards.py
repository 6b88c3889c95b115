"""Result cards in a real browser (Debian's headless Chromium, Playwright), over a small index of hand-written
statements: a nested environment and a diagram render without raw LaTeX or KaTeX errors, the proof expands, a
"used by" link runs its search, the copied BibTeX entry parses, and opening a search URL restores the query and
filters and runs the search.
"""

from __future__ import annotations

import html
import re
import uuid
from urllib.parse import quote

import pytest

from headless import chromium_page, require_chromium
from loopback import free_port

pytestmark = [pytest.mark.slow, pytest.mark.db, pytest.mark.models]

STACKS = "https://stacks.math.columbia.edu/tag/{}"


def _records():
    from theorem_rag.records import Document, Theorem

    def stacks(tag, kind, number, label, body, **kw):
        return Theorem(id=f"stacks:{tag}", source="stacks", kind=kind, body_latex=body, doc_id="stacks:algebra",
                       number=number, label=label, url=STACKS.format(tag), section=("Local rings",),
                       meta={"tag": tag, "chapter": "algebra", "full_label": f"algebra-{label}"}, **kw)  # fmt: skip

    theorems = [
        stacks("00AB", "definition", "10.18.1", "definition-local-ring",
               r"A \emph{local ring} is a ring with exactly one maximal ideal $\mathfrak m$."),
        stacks("00AC", "lemma", "10.18.2", "lemma-local-unit",
               r"Let $R$ be a local ring with maximal ideal $\mathfrak m$. Every $x \notin \mathfrak m$ is a unit.",
               proof_refs=("stacks:00AB",),
               proof=r"If $x$ were not a unit, $(x)$ would lie in a maximal ideal, which is $\mathfrak m$ by "
                     r"Definition \ref{definition-local-ring}. Hence $x \in \mathfrak m$."),
        stacks("00AD", "lemma", "10.18.3", "lemma-square",
               r"Let $R \to S$ be a local homomorphism of local rings. The square "
               r"$$\xymatrix{R \ar[r]^f \ar[d] & S \ar[d] \\ \kappa_R \ar[r] & \kappa_S}$$ commutes, "
               r"by Lemma \ref{lemma-local-unit}.",
               proof_refs=("stacks:00AC",), proof=r"Apply Lemma \ref{lemma-local-unit} to $f(x)$."),
        Theorem(id="planetmath:AlternativeProofOfEuclidsLemma", source="planetmath", kind="theorem",
                doc_id="planetmath:AlternativeProofOfEuclidsLemma", name="alternative proof of Euclid's lemma",
                url="https://planetmath.org/alternativeproofofeuclidslemma",
                body_latex=r"\begin{lemma}[Euclid] If a prime $p$ divides $ab$, then $p \mid a$ or $p \mid b$."
                           r"\end{lemma}\begin{proof} Suppose $p \nmid a$. Then $\gcd(p, a) = 1$, so "
                           r"$px + ay = 1$ and $b = pbx + aby$ is divisible by $p$. \end{proof}"),
    ]  # fmt: skip
    documents = [Document(id="stacks:algebra", source="stacks", title="Commutative Algebra"),
                 Document(id="planetmath:AlternativeProofOfEuclidsLemma", source="planetmath",
                          title="alternative proof of Euclid's lemma")]  # fmt: skip
    return theorems, documents


class _NoChat:
    label = "none (the cards test does not use the assistant)"
    is_small_offline = False


@pytest.fixture(scope="module")
def cards_search(pg_dsn):
    from theorem_rag.db.store import TheoremStore
    from theorem_rag.db.table_names import space_name
    from theorem_rag.embed import Embedder
    from theorem_rag.indexing.ingest import build_index
    from theorem_rag.search import TheoremSearch
    from theorem_rag.slogans.offline import OfflineSloganWriter

    store = TheoremStore(pg_dsn, table=f"cards_{uuid.uuid4().hex[:8]}")
    embedder = Embedder()
    space = space_name(embedder.model_name, "slogan")
    theorems, documents = _records()
    build_index(store, embedder, theorems, documents, writer=OfflineSloganWriter(), space=space, progress=False)
    search = TheoremSearch(store, embedder, space=space, k=5, max_k=50)
    yield search
    store.close()


@pytest.fixture(scope="module")
def app_url(cards_search):
    require_chromium()
    from theorem_rag.ui.app import create_app
    from theorem_rag.ui.server import launch

    demo = create_app(cards_search, _NoChat())
    running = launch(demo, port=free_port(), block=False)
    yield running.url
    running.close()


@pytest.fixture(scope="module")
def page(app_url):
    with chromium_page() as pg:
        yield pg


# The card's visible text without KaTeX's output (whose MathML keeps the TeX source as an annotation).
_VISIBLE_TEXT = "el => { const c = el.cloneNode(true); c.querySelectorAll('.katex').forEach(k => k.remove()); " \
                "return c.textContent; }"  # fmt: skip


def _open(page, url: str) -> None:
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_selector("#trag-query textarea, #trag-query input", timeout=60_000)


def _card(page, theorem_id: str):
    return page.locator(f'#trag-results .trag-card[data-theorem-id="{theorem_id}"]')


def _assert_clean(card) -> None:
    card.locator(".trag-statement .katex").first.wait_for(timeout=30_000)
    assert card.locator(".katex-error").count() == 0
    text = card.locator(".trag-statement").evaluate(_VISIBLE_TEXT)
    assert re.findall(r"\\[A-Za-z]+", text) == [], text


def test_opening_a_search_url_restores_query_and_filters_and_searches(page, app_url):
    _open(page, app_url + "?q=" + quote("a unit outside the maximal ideal of a local ring") + "&source=stacks&k=3")
    page.wait_for_selector("#trag-results .trag-card", timeout=60_000)
    assert page.locator("#trag-query textarea, #trag-query input").first.input_value() == (
        "a unit outside the maximal ideal of a local ring")
    ids = page.locator("#trag-results .trag-card").evaluate_all("els => els.map(e => e.dataset.theoremId)")
    assert len(ids) == 3 and all(i.startswith("stacks:") for i in ids)  # the source filter is on: no PlanetMath
    page.locator("#trag-tab-search").get_by_role("button", name=re.compile("^Filters")).click()
    assert "stacks" in page.locator("#trag-filter-source").inner_text()
    assert page.locator("#trag-filter-k input[type=number]").input_value() == "3"


def test_nested_environment_and_diagram_render_without_raw_latex(page, app_url):
    _open(page, app_url + "?q=" + quote("id:planetmath:AlternativeProofOfEuclidsLemma"))
    card = _card(page, "planetmath:AlternativeProofOfEuclidsLemma")
    card.wait_for(timeout=60_000)
    assert card.locator(".trag-nested-lemma strong").inner_text() == "Lemma"
    assert card.locator(".trag-nested-proof em").inner_text() == "Proof."
    _assert_clean(card)

    _open(page, app_url + "?q=" + quote("id:stacks:00AD"))
    card = _card(page, "stacks:00AD")
    card.wait_for(timeout=60_000)
    _assert_clean(card)
    assert card.locator(".trag-statement .katex-display .mtable").count() == 1  # the square, as an array
    ref = card.locator(".trag-statement a.trag-ref")
    assert (ref.inner_text(), ref.get_attribute("data-ref")) == ("10.18.2", "stacks:00AC")


def test_proof_expands_rendered(page):
    card = _card(page, "stacks:00AD")
    proof = card.locator("details.trag-proof")
    assert not proof.locator(".trag-proof-body").is_visible()
    proof.locator("summary").click()
    body = proof.locator(".trag-proof-body")
    body.wait_for(state="visible", timeout=10_000)
    assert body.locator(".katex").count() >= 1 and body.locator(".katex-error").count() == 0
    assert body.locator("a.trag-ref").inner_text() == "10.18.2"


def test_copied_bibtex_is_valid_bibtex(page):
    from pybtex.database import parse_string

    card = _card(page, "stacks:00AD")
    card.locator("button.trag-copy-bib").click()
    copied = page.evaluate("window.__tragCopied")
    cite, entry = copied.split("\n\n", 1)
    assert cite == r"\cite[Tag 00AD]{stacks-project}"
    parsed = parse_string(entry, "bibtex").entries["stacks-project"]
    assert parsed.fields["title"] == "The Stacks project"


def test_used_by_link_runs_its_search(page, app_url):
    _open(page, app_url + "?q=" + quote("id:stacks:00AC"))
    card = _card(page, "stacks:00AC")
    card.wait_for(timeout=60_000)
    links = card.locator("a.trag-nb")
    assert links.evaluate_all("els => els.map(e => e.textContent)") == ["uses 1", "used by 1"]
    links.nth(1).click()
    page.wait_for_function(
        "document.querySelector('#trag-results .trag-card')?.dataset.theoremId === 'stacks:00AD'", timeout=60_000
    )
    ids = page.locator("#trag-results .trag-card").evaluate_all("els => els.map(e => e.dataset.theoremId)")
    assert ids == ["stacks:00AD"]
    assert page.locator("#trag-query textarea, #trag-query input").first.input_value() == "used-by:stacks:00AC"
    assert "q=used-by%3Astacks%3A00AC" in page.url
    assert html.unescape(page.locator("#trag-status").inner_text()).startswith("1 of 1 statements whose proofs cite")
