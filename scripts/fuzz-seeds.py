#!/usr/bin/env python3
"""Writes the seed corpus of one fuzz target from the real files of
../shared/data: small inputs (AFL++ wants seeds well under 1 MB), cut from the
real files where they are large. Standard library only.

usage: fuzz-seeds.py TARGET DATA_DIR OUT_DIR
"""
import json
import os
import re
import sys

LIMIT = 16 * 1024  # bytes per seed


def files(data, *exts, under=""):
    root = os.path.join(data, under)
    for d, _, names in sorted(os.walk(root)):
        for n in sorted(names):
            if n.lower().endswith(exts):
                yield os.path.join(d, n)


def write(out, name, text):
    data = text.encode("utf-8") if isinstance(text, str) else text
    if data and len(data) <= LIMIT * 4:
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        return 1
    return 0


def json_seeds(data, out, keep):
    """The first questions of each JSON file whose shape `keep` accepts."""
    n = 0
    for path in files(data, ".json"):
        try:
            with open(path, encoding="utf-8-sig") as f:
                doc = json.load(f)
        except (ValueError, UnicodeDecodeError):
            continue
        if not keep(doc):
            continue
        base = re.sub(r"[^A-Za-z0-9]+", "-", os.path.relpath(path, data))
        if isinstance(doc, dict) and isinstance(doc.get("questions"), list):
            qs = doc["questions"]
            for i in range(0, min(len(qs), 12), 3):
                cut = dict(doc, questions=qs[i : i + 3])
                n += write(out, f"{base}-{i}.json", json.dumps(cut, ensure_ascii=False))
        elif isinstance(doc, list):
            for i in range(0, min(len(doc), 12), 3):
                n += write(out, f"{base}-{i}.json", json.dumps(doc[i : i + 3], ensure_ascii=False))
    return n


def is_qald(doc):
    return isinstance(doc, dict) and "questions" in doc


def is_array_of(*keys):
    def keep(doc):
        first = next((i for i in doc if isinstance(i, dict)), None) if isinstance(doc, list) else None
        return first is not None and any(k in first for k in keys)

    return keep


def xml_seeds(data, out):
    """Each XML file's head and first questions, closed again."""
    n = 0
    for path in files(data, ".xml"):
        text = open(path, encoding="utf-8", errors="replace").read()
        base = re.sub(r"[^A-Za-z0-9]+", "-", os.path.relpath(path, data))
        ends = [m.end() for m in re.finditer(r"</question>", text)]
        if not ends:
            continue
        root = re.search(r"<(dataset|questions)\b", text)
        close = f"\n</{root.group(1)}>\n" if root else ""
        for k in (1, 3):
            if len(ends) >= k:
                n += write(out, f"{base}-{k}.xml", text[: ends[k - 1]] + close)
    return n


def text_seeds(data, out, exts):
    n = 0
    for path in files(data, *exts):
        raw = open(path, "rb").read()
        base = re.sub(r"[^A-Za-z0-9]+", "-", os.path.relpath(path, data))
        n += write(out, base, raw[:LIMIT])
    return n


def ntriples_seeds(data, out):
    """Blocks of 20 lines from each N-Triples / N-Quads file (plain or .bz2)."""
    import bz2

    n = 0
    for path in files(data, ".nt", ".nq", ".nt.bz2", ".nq.bz2"):
        opener = bz2.open if path.endswith(".bz2") else open
        with opener(path, "rb") as f:
            lines = [f.readline() for _ in range(200)]
        base = re.sub(r"[^A-Za-z0-9]+", "-", os.path.relpath(path, data))
        for i in range(0, 200, 40):
            n += write(out, f"{base}-{i}.nt", b"".join(lines[i : i + 20]))
    return n


def sparql_seeds(data, out):
    """The gold queries of the benchmarks, one per seed."""
    seen, n = set(), 0
    for path in files(data, ".json"):
        try:
            with open(path, encoding="utf-8-sig") as f:
                doc = json.load(f)
        except (ValueError, UnicodeDecodeError):
            continue
        items = doc.get("questions", []) if isinstance(doc, dict) else doc if isinstance(doc, list) else []
        for q in items[:60]:
            if not isinstance(q, dict):
                continue
            query = q.get("query")
            if isinstance(query, dict):
                query = query.get("sparql")
            query = query or q.get("sparql_query") or q.get("query_wikidata")
            if isinstance(query, str) and query.strip() and query not in seen and len(seen) < 400:
                seen.add(query)
                n += write(out, f"q{len(seen):05}.rq", query)
    return n


def iri_seeds(data, out):
    """IRIs as written in the RDF and the gold answers of sameAs.cc classes."""
    seen, n = set(), 0
    for path in files(data, ".nt", ".tsv", under="rdf"):
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                for iri in re.findall(r"<([^>\s]+)>|^(https?://\S+)", line):
                    iri = iri[0] or iri[1]
                    if iri not in seen and len(seen) < 400:
                        seen.add(iri)
                        n += write(out, f"i{len(seen):05}", iri)
    return n


def index_seeds(out):
    """Damages of the test index's sameAs files: per file (the first byte),
    at a few offsets (the next two, little endian), a few overwrites."""
    n = 0
    for which in range(5):
        for offset in (0, 1, 4, 8, 16, 24, 100):
            for over in (b"\xff", b"\x00\x00\x00\x00", b"\xff" * 8, b"\x7f\xff\xff\xff"):
                seed = bytes([which]) + offset.to_bytes(2, "little") + over
                path = os.path.join(out, f"d{which}-{offset:03}-{len(over)}-{over[0]:02x}")
                with open(path, "wb") as f:
                    f.write(seed)
                n += 1
    return n


def main():
    target, data, out = sys.argv[1:4]
    os.makedirs(out, exist_ok=True)
    n = {
        "qald_json": lambda: json_seeds(data, out, is_qald),
        "qald_xml": lambda: xml_seeds(data, out),
        "lcquad": lambda: json_seeds(data, out, is_array_of("sparql_query", "corrected_question")),
        "rubq": lambda: json_seeds(data, out, is_array_of("question_text", "uid")),
        "text2sparql": lambda: text_seeds(data, out, (".yml", ".yaml")),
        "ntriples": lambda: ntriples_seeds(data, out),
        "sparql": lambda: sparql_seeds(data, out),
        "canonical": lambda: iri_seeds(data, out),
        "index": lambda: index_seeds(out),
    }[target]()
    if n == 0:
        sys.exit(f"error: no seeds for {target} under {data}")
    print(f"{n} seeds for {target} from {data} in {out}")


if __name__ == "__main__":
    main()
