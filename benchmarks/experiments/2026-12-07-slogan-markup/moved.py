"""Queries whose rank of the first answer differs between two variants.py panels: moved.py BEFORE.json AFTER.json [VARIANT]."""
import json, sys
b=json.load(open(sys.argv[1])); a=json.load(open(sys.argv[2])); var=sys.argv[3] if len(sys.argv)>3 else "default"
for s in b["variants"]["default"]:
    rb=b["variants"]["default"][s]["ranks"]; ra=a["variants"][var][s]["ranks"]
    moved=[(q, rb[q], ra.get(q)) for q in rb if rb[q]!=ra.get(q)]
    print(s, len(moved), moved[:12])
