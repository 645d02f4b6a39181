#!/usr/bin/env python3
"""Generates the bash completion and the man page of `unieval` from the binary's own help texts.

Run at build time (cmake/UnievalInstall.cmake) with the freshly built binary, so that both follow
the option lists of the program_options descriptions without a second copy to keep in step:

  * `unieval --help` gives the commands and their one-line summaries;
  * `unieval CMD --help` gives each command's options, as Boost.Program_options prints them
    ("  --name arg (=default)  text", "  -h [ --help ]  text"); an option printed with `arg` takes a
    value; a description that is a list "a | b | c" gives the values to complete;
  * `unieval score --help` lists the metrics under "Metrics:" (the values of --metric).

A model command whose help cannot be run (a build without LibTorch has no unieval-model) is
listed with its summary and completes only --help.

usage: unieval_cli_docs.py --unieval BIN --version V --completion OUT --man OUT
"""
import argparse
import os
import re
import subprocess
import sys

# "  --threads arg (=0)   text", "  -h [ --help ]   text", "  -o [ --out ] arg  text"
OPTION = re.compile(
    r"^  (?:-(?P<s1>\w) \[ --(?P<l1>[\w][\w+.-]*) \]|--(?P<l2>[\w][\w+.-]*)(?: \[ -(?P<s2>\w) \])?)"
    r"(?P<arg> arg)?(?: \(=[^)]*\))?(?:\s+(?P<desc>\S.*))?$")
COMMAND = re.compile(r"^  (?P<name>[a-z][\w-]*)\s{2,}(?P<summary>\S.*)$")
CHOICES = re.compile(r"^[\w.+-]+(?: \| [\w.+-]+)+$")
# The environment variables the programs read (getenv in apps/, metrics/, results/, pipelines/).
ENVIRONMENT = [
    ("UNIEVAL_MODEL_BINARY", "path of unieval-model, run for the model commands (default: the "
                             "unieval-model next to unieval)"),
    ("UNIEVAL_PAPER_DIR", "read the published paper tables from this directory instead of the copies "
                          "compiled into the binary (the installed copies are in share/unieval/paper)"),
    ("UNIEVAL_ROUGE_DATA", "ROUGE-1.5.5 data directory (WordNet-2.0 exceptions, smart_common_words.txt) "
                           "for --metric rouge -m / -s"),
    ("UNIEVAL_METEOR_DATA", "METEOR 1.5 data directory (function words, synonyms, paraphrases)"),
    ("UNIEVAL_DATA", "root of the task data used by unieval reproduce and unieval run"),
]


def run_help(binary, args):
    try:
        p = subprocess.run([binary] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=120, env=dict(os.environ, LC_ALL="C.UTF-8"))
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, str(e)
    if p.returncode != 0:
        return None, p.stderr.decode("utf-8", "replace").strip()
    return p.stdout.decode("utf-8", "replace"), ""


def parse_commands(top_help):
    cmds, in_list = [], False
    for line in top_help.splitlines():
        if line.strip() == "commands:":
            in_list = True
            continue
        if in_list:
            m = COMMAND.match(line)
            if not m:
                if cmds:
                    break
                continue
            cmds.append((m.group("name"), m.group("summary")))
    return cmds


def parse_options(help_text):
    """-> {"--name": [choices] or None (no value) or [] (a value, no fixed list)}, in order."""
    opts = {}
    for line in help_text.splitlines():
        m = OPTION.match(line)
        if not m:
            continue
        long_name = "--" + (m.group("l1") or m.group("l2"))
        short = m.group("s1") or m.group("s2")
        value = None
        if m.group("arg"):
            desc = (m.group("desc") or "").strip()
            value = desc.split(" | ") if CHOICES.match(desc) else []
        for name in [long_name] + (["-" + short] if short else []):
            if name not in opts or (value and not opts[name]):
                opts[name] = value
    opts.setdefault("--help", None)
    return opts


def parse_metrics(score_help):
    metrics, in_list = [], False
    for line in score_help.splitlines():
        if line.startswith("Metrics:"):
            in_list = True
            continue
        if in_list:
            m = re.match(r"^  ([a-z][\w+.-]*)\s{2,}\S", line)
            if not m:
                break
            metrics.append(m.group(1))
    return metrics


def bash_words(words):
    return " ".join(words)


def completion_script(version, commands, options):
    out = [
        "# bash completion for unieval " + version + " (generated from `unieval CMD --help` by",
        "# cmake/unieval_cli_docs.py at build time; do not edit).",
        "_unieval() {",
        "  local cur prev cmd i",
        "  COMPREPLY=()",
        '  cur="${COMP_WORDS[COMP_CWORD]}"',
        '  prev="${COMP_WORDS[COMP_CWORD-1]}"',
        "  if [ \"$COMP_CWORD\" -eq 1 ]; then",
        '    COMPREPLY=($(compgen -W "' + bash_words([c for c, _ in commands] + ["--help", "--version"])
        + '" -- "$cur"))',
        "    return 0",
        "  fi",
        '  cmd="${COMP_WORDS[1]}"',
        '  case "$cmd" in',
    ]
    for name, _ in commands:
        opts = options.get(name, {"--help": None})
        valued = [o for o, v in opts.items() if v is not None]
        out.append("    " + name + ")")
        choice_opts = [(o, v) for o, v in opts.items() if v]
        if valued:
            out.append('      case "$prev" in')
            for o, v in choice_opts:
                out.append("        " + o + ') COMPREPLY=($(compgen -W "' + bash_words(v) + '" -- "$cur")); return 0 ;;')
            plain = [o for o in valued if not opts[o]]
            if plain:
                out.append("        " + "|".join(plain) + ") COMPREPLY=($(compgen -f -- \"$cur\")); compopt -o filenames 2>/dev/null; return 0 ;;")
            out.append("      esac")
        out.append('      if [[ "$cur" == -* ]]; then')
        out.append('        COMPREPLY=($(compgen -W "' + bash_words([o for o in opts if o.startswith("--")]) + '" -- "$cur"))')
        out.append("      else")
        out.append('        COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null')
        out.append("      fi")
        out.append("      ;;")
    out += [
        "    *)",
        '      COMPREPLY=($(compgen -f -- "$cur"))',
        "      ;;",
        "  esac",
        "  return 0",
        "}",
        "complete -F _unieval unieval",
        "",
    ]
    return "\n".join(out)


def roff_escape(line):
    line = line.replace("\\", "\\e")
    if line.startswith((".", "'")):
        line = "\\&" + line
    return line


def roff_text(text):
    return "\n".join(roff_escape(l) for l in text.rstrip("\n").splitlines())


def man_page(version, top_help, commands, helps):
    summary_lines = [l for l in top_help.splitlines() if l.startswith("exit codes:")]
    out = [
        '.\\" Generated from the --help texts of unieval ' + version + " by cmake/unieval_cli_docs.py; do not edit.",
        '.TH UNIEVAL 1 "" "unieval ' + version + '" "User Commands"',
        ".SH NAME",
        "unieval \\- official NLG, QA and GLUE metrics and paper reproduction for UniLM, ERNIE-GEN and GPT-style models",
        ".SH SYNOPSIS",
        ".B unieval",
        ".I COMMAND",
        "[\\fIoptions\\fR]",
        ".br",
        ".B unieval",
        ".I COMMAND",
        ".B \\-\\-help",
        ".br",
        ".B unieval \\-\\-version",
        ".SH DESCRIPTION",
        "\\fBunieval\\fR computes the official metrics (ROUGE-1.5.5, sacreBLEU, multi-bleu, NLTK and coco BLEU,",
        "METEOR 1.5, NIST mteval, Distinct-n, Entropy-n, SQuAD, CoQA, GLUE) with numbers identical to the",
        "official scripts, evaluates tasks, renders leaderboards and gates regressions. The model commands",
        "(encode, finetune, pretrain, decode, demo, run) are run by the sibling program",
        "\\fBunieval-model\\fR (LibTorch), which \\fBunieval\\fR executes with the same arguments; it is",
        "looked up next to \\fBunieval\\fR (or at \\fBUNIEVAL_MODEL_BINARY\\fR).",
        ".SH COMMANDS",
    ]
    for name, summary in commands:
        out.append(".TP")
        out.append(".B " + name)
        out.append(roff_escape(summary))
    for name, summary in commands:
        out.append(".SH \"UNIEVAL " + name.upper() + "\"")
        text = helps.get(name)
        if text is None:
            out.append(roff_escape(summary) + ".")
            out.append("Its options are printed by \\fBunieval " + name + " \\-\\-help\\fR in an installation with")
            out.append("\\fBunieval-model\\fR (this page was generated from a build without LibTorch).")
            continue
        out.append(".nf")
        out.append(roff_text(text))
        out.append(".fi")
    out.append(".SH \"EXIT STATUS\"")
    if summary_lines:  # "exit codes: 0 ok, 1 ..."
        out.append(roff_escape(summary_lines[0].split(":", 1)[1].strip()) + ".")
    else:
        out.append("0 ok, 1 a check failed, 2 bad input or option, 3 internal error.")
    out.append(".SH ENVIRONMENT")
    for var, text in ENVIRONMENT:
        out += [".TP", ".B " + var, roff_escape(text) + "."]
    out += [
        ".SH FILES",
        ".TP",
        ".I PREFIX/share/unieval/paper/",
        "the published paper tables (also compiled into the binary).",
        ".TP",
        ".I PREFIX/share/unieval/schema/",
        "JSON schemas of the result files (\\fBunieval eval \\-\\-out\\fR) and run summaries.",
        ".TP",
        ".I PREFIX/share/unieval/scratch/",
        "model configurations of the from-scratch presets.",
        ".SH \"SEE ALSO\"",
        "The documentation in the source tree: README.md and docs/ (docs/install.md for packages).",
        "",
    ]
    return "\n".join(out)


def write_if_changed(path, text):
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except OSError:
        pass
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--unieval", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--completion", required=True)
    ap.add_argument("--man", required=True)
    a = ap.parse_args()

    top, err = run_help(a.unieval, ["--help"])
    if top is None:
        sys.exit("unieval_cli_docs.py: `%s --help` failed: %s" % (a.unieval, err))
    commands = parse_commands(top)
    if not commands:
        sys.exit("unieval_cli_docs.py: no command list in `unieval --help`")
    helps, options, failed = {}, {}, []
    for name, _ in commands:
        text, err = run_help(a.unieval, [name, "--help"])
        if text is None:
            failed.append(name)
            last_error = err.splitlines()[0] if err else "no output"
            continue
        helps[name] = text
        options[name] = parse_options(text)
    if failed:  # the model commands of a build without LibTorch
        print("unieval_cli_docs.py: no --help from %s (%s): listed without options"
              % (", ".join(failed), last_error), file=sys.stderr)
    if "score" in helps:
        metrics = parse_metrics(helps["score"])
        if metrics:
            options["score"]["--metric"] = metrics
    write_if_changed(a.completion, completion_script(a.version, commands, options))
    write_if_changed(a.man, man_page(a.version, top, commands, helps))


if __name__ == "__main__":
    main()
