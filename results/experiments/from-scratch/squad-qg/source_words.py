#!/usr/bin/env python3
"""How much of each question comes from its source sentence: the share of a question's content
words (not in a short list of question and function words) that occur among the source's words,
averaged over lines, and the mean number of content words per question.

    python3 source_words.py SRC HYP [HYP ...]

SRC: one source per line (the run's RUN/data/<split>.src); each HYP: one question per line aligned
with it (references, a model's hypotheses, a baseline). Punctuation glued to a word by the
decoder's clean-up ("rome?") is split off first. Standard library only.
"""
import re
import statistics
import sys

FUNCTION_WORDS = set(
    "what which who whom whose when where why how is are was were the a an of in on to for by "
    "with and or did does do ? , . 's from at as that this be has have had its it many much "
    "name type".split())


def words(line):
    return re.sub(r"([?,.])", r" \1", line).replace("'s", " 's").split()


def content_from_source(src, question):
    source = set(src.split())
    content = [w for w in words(question) if w not in FUNCTION_WORDS]
    return sum(w in source for w in content) / max(1, len(content)), len(content)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        sources = f.read().split("\n")
    for path in sys.argv[2:]:
        with open(path, encoding="utf-8") as f:
            questions = f.read().split("\n")
        n = min(len(sources), len(questions))
        while n and not sources[n - 1] and not questions[n - 1]:
            n -= 1
        rows = [content_from_source(sources[i], questions[i]) for i in range(n)]
        print("%s\tlines %d\tcontent words from the source %.3f\tcontent words per question %.2f"
              % (path, n, statistics.mean(r[0] for r in rows), statistics.mean(r[1] for r in rows)))


if __name__ == "__main__":
    main()
