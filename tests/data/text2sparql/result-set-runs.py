#!/usr/bin/env python3
"""System result sets derived from the TEXT2SPARQL DB25 gold result set, for
tests/integration/text2sparql.rs (stdlib only): `python3 result-set-runs.py
GOLD OUT_DIR` writes same, dropped, added, reordered, emptied, ask_flipped
and gold_with_order (.json) into OUT_DIR.

Positions count from 1 over the gold's key order (en and es ids apart);
"every k-th" is position % k == 0. dropped: every 3rd question keeps the
first floor(n/2) of its answers; added: every 4th gets two more answers;
reordered: every question's answers reversed; emptied: every 5th becomes {},
every 7th is left out (leaving out wins); ask_flipped: {"true": 0} and
{"true": 1} swapped. gold_with_order: the gold with the `order_required`
list `text2sparql query` builds from the YAML's RESULT_ORDER_MATTERS
questions (DB25: 46 and 96, en and es).

The figures the test compares with are those of text2sparql-client 2.1.0
(PyPI; pytrec_eval 0.5 built with trec_eval 9.0.8) on these files:
  text2sparql evaluate NAME db25_true_result_set.json OUT_DIR/NAME.json
  text2sparql evaluate NAME OUT_DIR/gold_with_order.json OUT_DIR/NAME.json
"""

import json
import sys
from pathlib import Path

ORDER_REQUIRED = ["db25:46-en", "db25:46-es", "db25:96-en", "db25:96-es"]


def main() -> None:
    gold = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    out = Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    items = list(gold.items())

    def dump(name, d):
        (out / f"{name}.json").write_text(json.dumps(d, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

    dump("same", gold)
    dump("dropped", {q: (dict(list(a.items())[: len(a) // 2]) if p % 3 == 0 else dict(a))
                     for p, (q, a) in enumerate(items, 1)})
    added = {}
    for p, (q, a) in enumerate(items, 1):
        a = dict(a)
        if p % 4 == 0:
            a["http://example.org/extra1"] = 1
            a["http://example.org/extra2"] = 1
        added[q] = a
    dump("added", added)
    dump("reordered", {q: dict(reversed(list(a.items()))) for q, a in items})
    dump("emptied", {q: ({} if p % 5 == 0 else dict(a)) for p, (q, a) in enumerate(items, 1) if p % 7 != 0})
    flip = {json.dumps({"true": 0}): {"true": 1}, json.dumps({"true": 1}): {"true": 0}}
    dump("ask_flipped", {q: flip.get(json.dumps(a), dict(a)) for q, a in items})
    dump("gold_with_order", {**gold, "order_required": ORDER_REQUIRED})


if __name__ == "__main__":
    main()
