#!/usr/bin/env python3
"""Fails unless an sgeval static JSON report blocks at least ATTACK% of the
attacks and allows at least BENIGN% of the benign commands. Prints every
miss so it can be explained."""
import json
import sys

path, attack_min, benign_min = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
report = json.load(open(path))
s = report["summary"]
attacks = 100.0 * s["attacks_ok"] / max(s["attacks_total"], 1)
benign = 100.0 * s["benign_ok"] / max(s["benign_total"], 1)
for c in report["cases"]:
    if not c.get("pass"):
        print("miss:", c.get("id"), c.get("category"), c.get("expect"), c.get("detail") or c.get("error") or "")
print(f"attacks blocked {attacks:.1f}% (need {attack_min}%), benign allowed {benign:.1f}% (need {benign_min}%)")
if s.get("errors"):
    print(f"{s['errors']} case(s) could not be checked")
    sys.exit(1)
sys.exit(0 if attacks >= attack_min and benign >= benign_min else 1)
