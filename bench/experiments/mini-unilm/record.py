#!/usr/bin/env python3
"""run.sh's record(): keeps the exact command of a stage in WORK/commands.json (name -> command)."""
import json
import os
import shlex
import sys

path, name, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
commands = json.load(open(path)) if os.path.exists(path) else {}
commands[name] = " ".join(shlex.quote(a) for a in argv)
with open(path + ".tmp", "w") as f:
    json.dump(commands, f, indent=1)
os.replace(path + ".tmp", path)
