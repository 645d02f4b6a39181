"""Runs mjpost/sacrebleu's own test files against unieval.sacrebleu (#42).

    python3 python/tests/sacrebleu_suite.py SACREBLEU_TEST_DIR [test_x.py ...] [-- pytest args]

SACREBLEU_TEST_DIR is sacreBLEU's `test/` folder (e.g. from `git archive` of a checkout; the
files are read from there, never copied into this repository). A temporary folder gets a package
named `sacrebleu` whose modules re-export unieval.sacrebleu (sacrebleu, sacrebleu.compat,
sacrebleu.metrics, sacrebleu.tokenizers.tokenizer_ter, sacrebleu.significance; `test` links to
SACREBLEU_TEST_DIR, which test_significance.py reads its data through), and pytest runs the
chosen files (default: the ones that need no network) with that folder first on sys.path.
Exit status: pytest's.
"""
import os
import pathlib
import subprocess
import sys
import tempfile

OFFLINE = ["test_sentence_bleu.py", "test_bleu.py", "test_chrf.py", "test_ter.py", "test_tokenizer_ter.py",
           "test_significance.py"]

SHIM = {
    "sacrebleu/__init__.py": "from unieval.sacrebleu import *  # noqa\n"
                             "from unieval.sacrebleu import __version__  # noqa\n"
                             "from . import compat, metrics, tokenizers  # noqa\n",
    "sacrebleu/compat.py": "from unieval.sacrebleu import (corpus_bleu, raw_corpus_bleu, sentence_bleu, corpus_chrf,  # noqa\n"
                           "    sentence_chrf, corpus_ter, sentence_ter)\n",
    "sacrebleu/metrics/__init__.py": "from unieval.sacrebleu import BLEU, CHRF, TER  # noqa\n",
    "sacrebleu/tokenizers/__init__.py": "",
    "sacrebleu/tokenizers/tokenizer_ter.py": "from unieval.sacrebleu import TercomTokenizer  # noqa\n",
    "sacrebleu/significance.py": "from unieval.sacrebleu.significance import *  # noqa\n"
                                 "from unieval.sacrebleu.significance import estimate_ci  # noqa\n",
}


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    test_dir = pathlib.Path(argv[0])
    rest = argv[1:]
    extra = []
    if "--" in rest:
        extra = rest[rest.index("--") + 1:]
        rest = rest[:rest.index("--")]
    files = rest or [f for f in OFFLINE if (test_dir / f).exists()]
    with tempfile.TemporaryDirectory(prefix="unieval_sacrebleu_shim_") as shim:
        for rel, text in SHIM.items():
            p = pathlib.Path(shim) / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
        # test_significance.py opens ./test/wmt17_en_de_systems.pkl.bz2 (sacreBLEU's tests run from
        # its checkout's root): `test` in the working folder is the test folder.
        os.symlink(test_dir.resolve(), pathlib.Path(shim) / "test")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([shim] + [x for x in [env.get("PYTHONPATH")] if x])
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(test_dir)]
        cmd += [str(test_dir / f) for f in files] + extra
        return subprocess.call(cmd, env=env, cwd=shim)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
