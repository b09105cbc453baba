"""Runs the nightly DAG's index and refresh commands for one cluster runner
as the DAG builds them (recrawl_nightly.Commands), through
scripts/run-RUNNER.sh with PRINT_ONLY=1: the script checks the command line
with recrawl --check and prints the commands it would run, and runs none.

Usage: python cluster_commands.py DAG_FILE CONF_JSON (CONF_JSON: the DAG's
parameters, cluster_env holding PRINT_ONLY=1). Exits with the one-line
error of the first command that fails.
"""

import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[1])))
import recrawl_nightly  # noqa: E402

c = recrawl_nightly.Commands(**json.loads(sys.argv[2]))
spec = sorted(glob.glob(os.path.join(c.specs, "*.yaml")))[0]
for argv, env in (c.index_add(recrawl_nightly.archive_files(c)),
                  c.extract(spec, c.collection(spec), refresh=True)):
    recrawl_nightly.run(argv, env)
