"""Usage: python smol_slogans.py N RECORDS/theorems.jsonl

Time SmolLM2-135M writing slogans with the project's LLM slogan prompt, on N real statements (issue 11 budget)."""
import json, sys, time
from theorem_rag.chat_backends import build_chat_model
from theorem_rag.records import Theorem
from theorem_rag.slogans.prompts import build_messages, clean_slogan
n = int(sys.argv[1])
recs = []
for i, line in enumerate(open(sys.argv[2])):
    if i % 997 == 0:
        d = json.loads(line); recs.append(d)
    if len(recs) >= n: break
chat = build_chat_model("local:smollm2")
chat.load()
t0 = time.perf_counter(); out = []
for d in recs:
    t = Theorem(id=d["id"], source=d["source"], kind=d["kind"], doc_id=d["doc_id"], body_latex=d["body_latex"], name=d.get("name"))
    text = "".join(chat.stream(build_messages(t), max_tokens=120))
    out.append((d["id"], clean_slogan(text) if text.strip() else ""))
dt = time.perf_counter() - t0
print(f"{n} slogans in {dt:.1f} s: {dt/n:.2f} s each; 29,467 would take {29467*dt/n/3600:.1f} h")
for i, s in out[:8]: print(i, "|", s[:200])
