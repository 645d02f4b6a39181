#!/usr/bin/env python3
"""run.sh's record(): keeps the exact command of a stage in WORK/commands.json (name -> command).

Two run.sh chains may record at once (bench/experiments/mini-unilm-v2/two_cores.sh): the
read-modify-write holds an exclusive lock on WORK/commands.json.lock, so neither loses the other's
entry."""
import fcntl
import json
import os
import shlex
import sys

path, name, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
with open(path + ".lock", "a") as lock:
    fcntl.flock(lock, fcntl.LOCK_EX)
    commands = json.load(open(path)) if os.path.exists(path) else {}
    commands[name] = " ".join(shlex.quote(a) for a in argv)
    with open(path + ".tmp", "w") as f:
        json.dump(commands, f, indent=1)
    os.replace(path + ".tmp", path)
