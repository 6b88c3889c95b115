"""The app's stylesheet and page script, as strings handed to ``Blocks.launch(css=..., head=...)``.

The script listens on the document (cards are re-rendered on every search, so per-card handlers would be lost):
thumbs buttons write a JSON payload into a hidden textbox and press a hidden button, which runs the Python
feedback handler; "Copy", "BibTeX" and "Markdown" put a citation on the clipboard; "uses n" / "used by n" and a
resolved reference put their query (``uses:ID``, ``used-by:ID``, ``id:ID``) into the search box and search; a
click on a slogan shows it whole; a citation link in an answer scrolls to its source.
"""

from __future__ import annotations

CSS = """
.trag-hidden { display: none !important; }
#trag-header h1 { margin-bottom: 0; }
#trag-header p { margin-top: .2rem; color: var(--body-text-color-subdued); }
.trag-card { border: 1px solid var(--border-color-primary); border-radius: 10px; padding: .75rem 1rem;
  margin: 0 0 .75rem 0; background: var(--background-fill-primary); box-shadow: 0 1px 2px rgba(0,0,0,.04);
  transition: box-shadow .2s, border-color .2s; }
.trag-card:hover { box-shadow: 0 2px 8px rgba(0,0,0,.08); }
.trag-card.trag-flash { border-color: var(--color-accent); box-shadow: 0 0 0 3px var(--color-accent-soft); }
.trag-head { display: flex; flex-wrap: wrap; align-items: baseline; gap: .5rem; margin-bottom: .35rem; }
.trag-rank { font-weight: 700; color: var(--color-accent); min-width: 1.4rem; }
.trag-kind { font-weight: 650; }
.trag-kind-definition { color: #0f766e; } .trag-kind-theorem { color: #7c2d12; }
.trag-kind-lemma, .trag-kind-proposition, .trag-kind-corollary { color: #1e3a8a; }
.trag-badge { font-size: .75rem; padding: .05rem .5rem; border-radius: 999px; background: var(--color-accent-soft);
  color: var(--color-accent); border: 1px solid var(--color-accent); }
.trag-where { font-size: .8rem; color: var(--body-text-color-subdued); }
.trag-link { margin-left: auto; font-size: .85rem; white-space: nowrap; }
.trag-statement { line-height: 1.55; font-family: 'Latin Modern Roman', 'STIX Two Text', Georgia, serif;
  font-size: 1.02rem; overflow-x: auto; }
.trag-statement ol, .trag-statement ul { margin: .25rem 0 .25rem 1.5rem; }
.trag-statement .katex-display { margin: .4rem 0; overflow-x: auto; overflow-y: hidden; }
.trag-sc { font-variant: small-caps; }
.trag-foot button svg { vertical-align: -2px; }
.trag-ref { font-family: var(--font-mono); font-size: .8em; color: var(--body-text-color-subdued); }
.trag-diagram { font-size: .85rem; font-style: italic; }
a.trag-ref { font-family: inherit; font-size: inherit; color: var(--color-accent); text-decoration: none; }
.trag-citekey { color: var(--body-text-color-subdued); }
.trag-nested { margin: .35rem 0 .35rem .4rem; padding-left: .6rem; border-left: 2px solid var(--border-color-primary); }
.trag-slogan { margin-top: .4rem; padding-left: .6rem; border-left: 3px solid var(--color-accent);
  color: var(--body-text-color-subdued); font-style: italic; white-space: nowrap; overflow: hidden;
  text-overflow: ellipsis; cursor: pointer; }
.trag-slogan.trag-open { white-space: normal; }
.trag-proof { margin-top: .4rem; }
.trag-proof > summary { cursor: pointer; font-weight: 600; font-size: .9rem; color: var(--body-text-color-subdued); }
.trag-proof-body { line-height: 1.5; font-family: 'Latin Modern Roman', 'STIX Two Text', Georgia, serif;
  padding: .3rem 0 0 .6rem; border-left: 2px solid var(--border-color-primary); overflow-x: auto; }
.trag-lean { margin: .2rem 0; padding: .4rem .6rem; border-radius: 6px; background: var(--background-fill-secondary);
  font-family: var(--font-mono); font-size: .88rem; line-height: 1.45; white-space: pre-wrap; overflow-x: auto; }
.trag-lean-name { font-family: var(--font-mono); font-weight: 600; }
.trag-doc { margin-top: .35rem; line-height: 1.5; } .trag-doc p { margin: .2rem 0; }
.trag-nbs a { margin-right: .1rem; }
.trag-why { color: var(--body-text-color-subdued); margin-left: auto; }
.trag-why > summary { cursor: pointer; }
.trag-confidence { margin-left: auto; font-weight: 600; }
.trag-slogan::before { content: "In words: "; font-style: normal; font-weight: 600; }
.trag-foot { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem; margin-top: .5rem; font-size: .8rem; }
.trag-cite { font-size: .78rem; background: var(--background-fill-secondary); padding: .1rem .4rem; border-radius: 4px;
  max-width: 60%; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.trag-id { font-family: var(--font-mono); color: var(--body-text-color-subdued); }
.trag-score { color: var(--body-text-color-subdued); margin-left: .4rem; }
.trag-foot button { border: 1px solid var(--border-color-primary); border-radius: 6px; padding: .05rem .45rem;
  background: var(--background-fill-secondary); cursor: pointer; font-size: .8rem; }
.trag-foot button:hover { border-color: var(--color-accent); }
.trag-foot button.trag-voted { background: var(--color-accent-soft); border-color: var(--color-accent); }
.trag-paper { border-left: 4px solid var(--color-accent); padding-left: .75rem; margin-bottom: 1.25rem; }
.trag-paper .trag-title { font-size: 1.1rem; font-weight: 650; }
.trag-meta { color: var(--body-text-color-subdued); font-size: .85rem; margin-bottom: .5rem; }
.trag-msg { padding: .6rem .9rem; border-radius: 8px; margin-bottom: .75rem; }
.trag-msg-error { background: #fef2f2; color: #991b1b; border: 1px solid #fecaca; }
.trag-msg-warning { background: #fffbeb; color: #92400e; border: 1px solid #fde68a; }
.trag-msg-info { background: var(--background-fill-secondary); color: var(--body-text-color-subdued); }
a.trag-cite { font-weight: 600; text-decoration: none; }
.trag-bad-cite { color: #b91c1c; text-decoration: line-through; cursor: help; }
#trag-model-label { font-size: .85rem; color: var(--body-text-color-subdued); }
#trag-status { font-size: .85rem; color: var(--body-text-color-subdued); min-height: 1.2rem; }
#trag-sources { max-height: 640px; overflow-y: auto; }
"""

HEAD = """
<script>
(() => {
  if (window.__tragBound) return;
  window.__tragBound = true;
  function send(payload) {
    const box = document.querySelector('#trag-vote-box textarea, #trag-vote-box input');
    const btn = document.querySelector('#trag-vote-btn');
    if (!box || !btn) return;
    box.value = JSON.stringify(payload);
    box.dispatchEvent(new Event('input', {bubbles: true}));
    setTimeout(() => btn.click(), 60);
  }
  document.addEventListener('click', (ev) => {
    const target = ev.target instanceof Element ? ev.target : null;
    if (!target) return;
    const vote = target.closest('button.trag-vote');
    if (vote) {
      ev.preventDefault();
      vote.parentElement.querySelectorAll('button.trag-vote').forEach((b) => b.classList.remove('trag-voted'));
      vote.classList.add('trag-voted');
      send({theorem_id: vote.dataset.theoremId, vote: Number(vote.dataset.vote),
            where: vote.closest('#trag-sources') ? 'assistant' : 'search', nonce: Date.now()});
      return;
    }
    const copy = target.closest('button.trag-copy');
    if (copy) {
      ev.preventDefault();
      const label = copy.textContent;
      window.__tragCopied = copy.dataset.copy;
      const done = () => { copy.textContent = 'Copied'; setTimeout(() => { copy.textContent = label; }, 1500); };
      if (navigator.clipboard) navigator.clipboard.writeText(copy.dataset.copy).then(done, done);
      return;
    }
    const nb = target.closest('a.trag-nb, a.trag-ref[data-ref]');
    if (nb && !ev.ctrlKey && !ev.metaKey && !ev.shiftKey && ev.button === 0) {
      ev.preventDefault();
      const q = nb.dataset.query || ('id:' + nb.dataset.ref);
      const box = document.querySelector('#trag-query textarea, #trag-query input');
      const go = document.querySelector('#trag-search-btn');
      if (box && go) {
        box.value = q;
        box.dispatchEvent(new Event('input', {bubbles: true}));
        setTimeout(() => go.click(), 60);
        window.scrollTo({top: 0, behavior: 'smooth'});
      }
      return;
    }
    const slogan = target.closest('.trag-slogan');
    if (slogan) { slogan.classList.toggle('trag-open'); return; }
    const cite = target.closest('a.trag-cite');
    if (cite) {
      ev.preventDefault();
      const el = document.getElementById((cite.getAttribute('href') || '').slice(1));
      if (el) {
        el.scrollIntoView({behavior: 'smooth', block: 'center'});
        el.classList.add('trag-flash');
        setTimeout(() => el.classList.remove('trag-flash'), 1600);
      }
    }
  }, true);
})();
</script>
"""
