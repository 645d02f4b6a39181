"""Shared test helpers: where ../shared is, reading golden vectors, number comparisons."""
import json
import math
import os
import pathlib
import struct

import pytest

REPO = pathlib.Path(os.environ.get("UNIEVAL_SOURCE_DIR") or pathlib.Path(__file__).resolve().parents[2])


def shared_dir():
    """../shared beside the checkout, or $UNIEVAL_SHARED (as tests/test_util.h)."""
    env = os.environ.get("UNIEVAL_SHARED")
    return pathlib.Path(env) if env else REPO.parent / "shared"


def require_shared(rel):
    path = shared_dir() / rel
    if not path.exists():
        pytest.skip(f"shared resource absent: {path}")
    return path


def golden(name):
    path = require_shared(f"golden/{name}")
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def close(expected, actual, rel=1e-9):
    """Equal, or within `rel` relative (the C++ golden tests' 1e-9 for BLEU / chrF / NLTK NIST)."""
    if expected == actual:
        return True
    return abs(expected - actual) <= rel * max(abs(expected), abs(actual))


def near(expected, actual, tol=1e-12):
    """|e - a| <= tol * max(1, |e|) (the C++ tests' expect_close for SQuAD, CoQA, GLUE, distinct)."""
    return abs(expected - actual) <= tol * max(1.0, abs(expected))


def _ordered(x):
    i = struct.unpack("<q", struct.pack("<d", x))[0]
    return i if i >= 0 else -(i & 0x7FFFFFFFFFFFFFFF)


def ulps_equal(expected, actual, ulps=4):
    """GoogleTest's EXPECT_DOUBLE_EQ: within 4 units in the last place (NaN never equal)."""
    if math.isnan(expected) or math.isnan(actual):
        return False
    return abs(_ordered(expected) - _ordered(actual)) <= ulps


def fmt(x, places):
    return f"{x:.{places}f}"
