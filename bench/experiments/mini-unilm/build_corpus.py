#!/usr/bin/env python3
"""Assemble the English pre-training corpus of the mini-UniLM experiment, reproducibly, from
Debian packages and (when present) ../shared/data. Python 3 standard library only; it never
downloads anything (install the packages with apt first) and its output is never committed.

    apt-get install python3.11-doc debian-reference-en dict-gcide wordnet-base jargon-text
    python3 bench/experiments/mini-unilm/build_corpus.py --out /work/corpus/mini-unilm

Output (BERT's corpus format, read by `unieval pretrain`: one sentence per line, a blank line
between documents):
    OUT/train.txt     the training corpus
    OUT/heldout.txt   a held-out slice (every document whose SHA-256 falls in the first
                      --heldout-percent of the hash range: stable when sources are added)
    OUT/stats.json    per source: documents, sentences, words, characters; package versions;
                      SHA-256 of both files; the options. Exact WordPiece token counts are printed
                      by `unieval pretrain --json` (corpus_tokens) when it builds its shard.

Sources, and why (English prose of different registers; all shipped by Debian bookworm/main):
  python-docs     python3.11-doc, the reStructuredText sources of the Python 3.11 documentation
                  (_sources/*.rst.txt): ~10 MB of modern expository English (tutorial, library
                  reference, HOWTOs); markup and code blocks are stripped. One file = a document.
  debian-ref      debian-reference-en, the Debian Reference manual (HTML chapters): technical
                  prose. One chapter = a document.
  gcide           dict-gcide, the Collaborative International Dictionary of English (Webster 1913
                  + WordNet glosses): definitions and quotations, broad vocabulary. One
                  headword entry = a document (entries of fewer than 2 sentences are grouped).
  wordnet         wordnet-base, WordNet 3.0 glosses and their example sentences: short, clean,
                  modern definitional English. 25 synsets of one lexicographer file = a document.
  jargon          jargon-text, the Jargon File 4.4.7: informal essays on hacker culture. One
                  entry = a document.
  cnndm, convai2  ../shared/data: 128 CNN/DailyMail test articles (fastseq fixture) and the
                  ConvAI2 validation dialogues (one dialogue = a document, one turn = a line).
Not used: bible-kjv-text (stored in the `bible` program's compressed format, not text);
debian-handbook (mostly other languages and images); SQuAD contexts (--with-squad to include):
the Du et al. question-generation test split is built from SQuAD v1.1 dev paragraphs, so
pre-training on them would show the QG evaluation's inputs to the model; the SQuAD-QG and GLUE
files themselves (evaluation data).

Processing: sentences are split on . ? ! followed by a space and an upper-case letter, digit or
quote (paragraphs of the sources are kept apart); whitespace collapsed; lines of fewer than 3
words or more than 300 dropped; exact duplicate sentences (case- and space-insensitive) are
dropped after their first occurrence, in the fixed source order above; documents left with no
sentence are dropped.
"""
import argparse
import glob
import gzip
import hashlib
import html
import html.parser
import io
import json
import os
import re
import subprocess
import sys
import tarfile

SHARED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "shared", "data")

SENT_SPLIT = re.compile(r"(?<=[.?!])[\"')\]]?\s+(?=[\"'(\[]?[A-Z0-9])")
WS = re.compile(r"\s+")


def sentences(paragraph):
    paragraph = WS.sub(" ", paragraph).strip()
    if not paragraph:
        return []
    return [s.strip() for s in SENT_SPLIT.split(paragraph) if s.strip()]


# ---- sources ------------------------------------------------------------------------------------

RST_ROLE = re.compile(r":[a-zA-Z:+-]+:`!?~?([^`<]*?)(?:\s*<[^>]*>)?`")
RST_LINK = re.compile(r"`([^`<]+?)\s*<[^>]*>`_+")
RST_LIT = re.compile(r"``([^`]*)``")
RST_EMPH = re.compile(r"(\*\*|\*|`)([^*`]+)\1_?")


SKIP_DIRECTIVES = {"code-block", "sourcecode", "code", "literalinclude", "doctest", "testcode", "testoutput",
                   "testsetup", "productionlist", "index", "toctree", "highlight", "csv-table", "list-table",
                   "table", "raw", "image", "figure", "include", "only", "audit-event-table", "opcode",
                   "cmdoption", "option", "envvar", "grammar-snippet", "availability", "impl-detail"}


def rst_text(text):
    """Paragraphs of prose from reStructuredText: code and table directives, literal blocks,
    title adornments and inline markup removed; the bodies of prose directives (function, class,
    note, ...) kept."""
    out, para = [], []
    skip_indent = None  # inside a literal block or a skipped directive body

    def flush():
        if para:
            out.append(" ".join(para))
            para.clear()

    for raw in text.split("\n"):
        line = raw.rstrip()
        indent = len(line) - len(line.lstrip())
        if skip_indent is not None:
            if not line.strip() or indent > skip_indent:
                continue
            skip_indent = None
        stripped = line.strip()
        if not stripped:
            flush()
            continue
        m = re.match(r"\.\. (?:([\w:-]+)::|_|\[|\|)", stripped)
        if m or stripped.startswith(".."):
            flush()
            name = m.group(1) if m and m.group(1) else None
            if name is None or name.split(":")[-1] in SKIP_DIRECTIVES:
                skip_indent = indent
            continue  # a prose directive: drop its line, keep its body
        if stripped.startswith(":") and re.match(r":[\w -]+:( |$)", stripped):
            continue  # directive options / field lists
        if re.fullmatch(r"([=\-~^*#+\"'`:.])\1{2,}", stripped) or stripped.startswith(("|", ">>>", "...", "+-", "=")):
            flush()
            continue
        if stripped.endswith("::"):
            stripped = stripped[:-3] if stripped.endswith(" ::") else stripped[:-1]
            skip_indent = indent
        stripped = RST_ROLE.sub(r"\1", stripped)
        stripped = RST_LINK.sub(r"\1", stripped)
        stripped = RST_LIT.sub(r"\1", stripped)
        stripped = RST_EMPH.sub(r"\2", stripped)
        if stripped:
            para.append(stripped)
        if skip_indent is not None:
            flush()
    flush()
    return out


def python_docs():
    root = "/usr/share/doc/python3.11/html/_sources"
    for path in sorted(glob.glob(os.path.join(root, "**", "*.rst.txt"), recursive=True)):
        if "/whatsnew/changelog" in path:
            continue  # thousands of issue titles, not prose
        with open(path, encoding="utf-8", errors="replace") as f:
            paras = rst_text(f.read())
        yield [s for p in paras for s in sentences(p)]


class _HtmlParas(html.parser.HTMLParser):
    BLOCK = {"p", "li", "dd", "dt", "h1", "h2", "h3", "h4", "td", "div", "br", "tr", "title"}
    SKIP = {"pre", "script", "style", "code", "table"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.paras, self.cur, self.skip = [], [], 0

    def _flush(self):
        text = WS.sub(" ", "".join(self.cur)).strip()
        if text:
            self.paras.append(text)
        self.cur = []

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIP:
            self.skip += 1
        if tag in self.BLOCK:
            self._flush()

    def handle_endtag(self, tag):
        if tag in self.SKIP and self.skip:
            self.skip -= 1
        if tag in self.BLOCK:
            self._flush()

    def handle_data(self, data):
        if not self.skip:
            self.cur.append(data)


def debian_reference():
    for path in sorted(glob.glob("/usr/share/debian-reference/*.en.html")):
        p = _HtmlParas()
        with open(path, encoding="utf-8", errors="replace") as f:
            p.feed(f.read())
        p._flush()
        yield [s for para in p.paras for s in sentences(para)]


def gcide():
    path = "/usr/share/dictd/gcide.dict.dz"  # dictzip = gzip with an index: gzip reads it
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
        text = f.read()
    # Entries start at column 0 after a blank line: "headword \\pronunciation\\ pos." then the
    # indented senses. Consecutive entries are grouped into documents of >= 10 sentences.
    entries = re.split(r"\n\s*\n(?=\S)", text)
    pending = []
    for e in entries:
        if e.startswith("00-database") or "\\" not in e.split("\n", 1)[0]:
            continue
        body = e.split("\n", 1)[1] if "\n" in e else ""
        body = re.sub(r"\\[^\\]*\\", " ", body)   # pronunciations
        body = re.sub(r"\[[^\]]*\]", " ", body)      # etymologies, [WordNet 1.5]
        body = re.sub(r"[{}]", "", body)
        for p in re.split(r"\n\s*\n", body):
            p = WS.sub(" ", p).strip()
            if not p or p.startswith(("Syn:", "Syn.", "See ", "Note:")):
                continue
            p = re.sub(r"^\d+\.\s*", "", p)
            p = re.sub(r"^\((?:[A-Z][\w.]*\s?)+\)\s*", "", p)  # (Zool.), (Bot.)
            p = p.replace(" -- ", ": ").replace("--", ": ")
            pending.extend(sentences(p[0].upper() + p[1:] if p else p))
        if len(pending) >= 10:
            yield pending
            pending = []
    if pending:
        yield pending


def wordnet():
    for pos in ("noun", "verb", "adj", "adv"):
        path = "/usr/share/wordnet/data." + pos
        groups = {}
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("  ") or "|" not in line:
                    continue
                head, gloss = line.split("|", 1)
                fields = head.split()
                lex = fields[1]
                word = fields[4].replace("_", " ")
                parts = [g.strip() for g in gloss.strip().split(";") if g.strip()]
                defs = [p for p in parts if not p.startswith('"')]
                examples = [p.strip('"') for p in parts if p.startswith('"')]
                sents = []
                if defs:
                    sents.append("%s: %s." % (word, "; ".join(defs).rstrip(".")))
                for x in examples:
                    x = x.strip().strip('"').strip()
                    if x:
                        sents.append(x[0].upper() + x[1:] + ("" if x[-1] in ".?!" else "."))
                groups.setdefault(lex, []).append(sents)
        for lex in sorted(groups):
            synsets = groups[lex]
            for i in range(0, len(synsets), 25):
                yield [s for ss in synsets[i:i + 25] for s in ss]


def jargon():
    path = "/usr/share/doc/jargon-text/jargon.txt.gz"
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
        text = f.read()
    # Entries start with ":headword:" at the beginning of a line.
    for entry in re.split(r"\n[ \t]*(?=:[^:\n]{1,60}:)", text)[1:]:
        body = re.sub(r"^:[^:\n]{1,60}:[^\n]*", "", entry)
        body = body.replace("{", "").replace("}", "")
        paras = [p for p in re.split(r"\n\s*\n", body) if p.strip()]
        sents = [s for p in paras for s in sentences(p)]
        if sents:
            yield sents


def cnndm():
    path = os.path.join(SHARED, "cnndm", "fastseq", "optimizer_cnndm_128.txt.gz")
    if not os.path.exists(path):
        return
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            s = sentences(line)
            if s:
                yield s


def convai2():
    path = os.path.join(SHARED, "personachat", "convai2_valid_self_original_no_cands.txt.gz")
    if not os.path.exists(path):
        return
    doc = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            num, _, rest = line.rstrip("\n").partition(" ")
            if num == "1" and doc:
                yield doc
                doc = []
            if rest.startswith("your persona:"):
                doc.append(rest[len("your persona:"):].strip())
            else:
                doc.extend(t.strip() for t in rest.split("\t") if t.strip())
    if doc:
        yield doc


def squad():
    path = os.path.join(SHARED, "squad", "dev-v1.1.json.gz")
    if not os.path.exists(path):
        return
    with gzip.open(path, "rt", encoding="utf-8") as f:
        data = json.load(f)
    for article in data["data"]:
        yield [s for p in article["paragraphs"] for s in sentences(p["context"])]


SOURCES = [
    ("python-docs", python_docs, "python3.11-doc"),
    ("debian-ref", debian_reference, "debian-reference-en"),
    ("gcide", gcide, "dict-gcide"),
    ("wordnet", wordnet, "wordnet-base"),
    ("jargon", jargon, "jargon-text"),
    ("cnndm", cnndm, None),
    ("convai2", convai2, None),
]


def package_version(pkg):
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], capture_output=True, text=True, check=False)
        return out.stdout.strip() or None
    except OSError:
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="output directory (train.txt, heldout.txt, stats.json)")
    ap.add_argument("--heldout-percent", type=float, default=1.0, help="documents held out (by hash), percent")
    ap.add_argument("--with-squad", action="store_true", help="also SQuAD v1.1 dev contexts (see the header)")
    ap.add_argument("--sources", default=",".join(s[0] for s in SOURCES), help="comma-separated subset")
    args = ap.parse_args()
    wanted = args.sources.split(",")
    sources = [s for s in SOURCES if s[0] in wanted]
    if args.with_squad:
        sources.append(("squad", squad, None))
    os.makedirs(args.out, exist_ok=True)
    seen = set()
    stats = {"options": vars(args), "sources": {}}
    tmp_train = os.path.join(args.out, "train.txt.tmp")
    tmp_held = os.path.join(args.out, "heldout.txt.tmp")
    with open(tmp_train, "w", encoding="utf-8") as train, open(tmp_held, "w", encoding="utf-8") as held:
        for name, fn, pkg in sources:
            st = {"package": pkg, "version": package_version(pkg) if pkg else None, "documents": 0,
                  "heldout_documents": 0, "sentences": 0, "words": 0, "characters": 0, "duplicates_dropped": 0}
            missing = False
            try:
                docs = fn()
                for doc in docs:
                    kept = []
                    for s in doc:
                        s = WS.sub(" ", s).strip()
                        n = len(s.split())
                        if n < 3 or n > 300:
                            continue
                        key = hashlib.sha1(s.lower().encode("utf-8")).digest()
                        if key in seen:
                            st["duplicates_dropped"] += 1
                            continue
                        seen.add(key)
                        kept.append(s)
                    if not kept:
                        continue
                    text = "\n".join(kept) + "\n\n"
                    h = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")
                    is_held = h % 10000 < args.heldout_percent * 100
                    (held if is_held else train).write(text)
                    st["heldout_documents" if is_held else "documents"] += 1
                    st["sentences"] += len(kept)
                    st["words"] += sum(len(s.split()) for s in kept)
                    st["characters"] += sum(len(s) for s in kept)
            except FileNotFoundError as e:
                missing = True
                st["missing"] = str(e)
            stats["sources"][name] = st
            print("%-12s %s" % (name, "missing (%s)" % st.get("missing") if missing else
                                "%d docs, %d sentences, %d words" % (st["documents"] + st["heldout_documents"],
                                                                      st["sentences"], st["words"])),
                  file=sys.stderr)
    for tmp, final in ((tmp_train, "train.txt"), (tmp_held, "heldout.txt")):
        os.replace(tmp, os.path.join(args.out, final))
        with open(os.path.join(args.out, final), "rb") as f:
            stats[final] = {"sha256": hashlib.sha256(f.read()).hexdigest(),
                            "bytes": os.path.getsize(os.path.join(args.out, final))}
    total = {k: sum(s.get(k, 0) for s in stats["sources"].values())
             for k in ("documents", "heldout_documents", "sentences", "words", "characters")}
    stats["total"] = total
    with open(os.path.join(args.out, "stats.json.tmp"), "w") as f:
        json.dump(stats, f, indent=2)
        f.write("\n")
    os.replace(os.path.join(args.out, "stats.json.tmp"), os.path.join(args.out, "stats.json"))
    print(json.dumps(total), file=sys.stderr)


if __name__ == "__main__":
    main()
