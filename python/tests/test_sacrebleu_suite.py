"""sacreBLEU's own test files against unieval.sacrebleu (python/tests/sacrebleu_suite.py).

Runs when UNIEVAL_SACREBLEU_TESTS names mjpost/sacrebleu's `test/` folder (e.g. `git archive` of a
v2.6.0 checkout; nothing of it is copied into this repository), else skips saying so. The files
that need no network must all pass (test_significance.py included: PairedTest on sacreBLEU's
WMT17 systems, which needs numpy, as sacreBLEU's significance does)."""
import os
import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
FILES = ["test_sentence_bleu.py", "test_bleu.py", "test_chrf.py", "test_ter.py", "test_tokenizer_ter.py",
         "test_significance.py"]


def test_sacrebleus_offline_tests_pass_against_the_drop_in():
    d = os.environ.get("UNIEVAL_SACREBLEU_TESTS")
    if not d:
        pytest.skip("UNIEVAL_SACREBLEU_TESTS is not set (sacreBLEU's test/ folder, e.g. from a v2.6.0 checkout)")
    missing = [f for f in FILES if not (pathlib.Path(d) / f).exists()]
    assert not missing, f"{d} lacks {missing}"
    r = subprocess.run([sys.executable, str(HERE / "sacrebleu_suite.py"), d] + FILES, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert " passed" in r.stdout and "failed" not in r.stdout, r.stdout[-2000:]
