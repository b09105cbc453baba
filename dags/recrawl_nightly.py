"""recrawl_nightly: the nightly run of recrawl on a growing web archive.

Each night (schedule @daily, no catch-up, one run at a time) the DAG

1. ``index_new_files``: indexes the WARC/ARC files of the archive folder that
   the index does not hold yet, as a new segment
   (``recrawl index --add``; a rerun of the same night adds nothing);
2. ``list_specs``: lists the Collection Specifications of the specs folder;
3. ``refresh`` (one mapped task per specification): continues each
   collection in OUTPUT/NAME against the index as it is now
   (``recrawl extract --refresh``), or extracts it for the first time when
   OUTPUT/NAME holds no finished run (no run.json);
4. ``publish`` (one mapped task per collection): writes the collection's
   report (``recrawl eval``) and copies collection.wacz and the report into
   PUBLISH/NAME, each file atomically (a temporary file in the same folder,
   then a rename), and only the files whose bytes changed.

The archive, specs, index and publish folders may be gs:// folders (recrawl
index and recrawl extract read and write a gs:// index themselves): the DAG
lists and copies the others with ``recrawl files`` (recrawl's own storage
layer, which honours STORAGE_EMULATOR_HOST), so the DAG needs no GCS client. A gs://
specs folder is copied into OUTPUT/.specs first (only the files that
changed), since recrawl extract reads local specifications; the output
folder is local (recrawl extract writes collection.wacz for local outputs).

A failed command fails its task, and so the DAG run, with the command's own
one-line error. Nothing is deleted: recrawl's commands keep the index and
every collection whole when a night stops halfway, and the same run resumes
them.

The commands run as subprocesses of a task, not through the Beam provider's
BeamRunGoPipelineOperator: that operator runs ``LAUNCHER --runner=R
--worker_binary=... --labels=...`` with no place for recrawl's subcommand
(index, extract, eval) and fails with "Apache Beam process failed with return
code N" instead of the command's error; recrawl submits its own jobs
(prism in process, Flink and Spark through scripts/run-flink.sh and
scripts/run-spark.sh).

Every command line is built in one place: the ``Commands`` class.
Parameters (``airflow dags test recrawl_nightly DATE -c '{"archive": ...}'``
or the trigger form) default to the environment variables
RECRAWL_NIGHTLY_<PARAM> of the scheduler (e.g. RECRAWL_NIGHTLY_ARCHIVE),
read when the DAG file is parsed. docs/nightly.md has the set-up.
"""

from __future__ import annotations

import filecmp
import fnmatch
import glob
import json
import logging
import os
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from airflow.sdk import DAG, Param, get_current_context, task
from airflow.sdk.exceptions import AirflowFailException

log = logging.getLogger(__name__)

DAG_ID = "recrawl_nightly"

# The recrawl checkout this file lives in: scripts/run-flink.sh and
# scripts/run-spark.sh are taken from it.
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ARCHIVE_PATTERNS = ("*.warc.gz", "*.warc", "*.arc.gz", "*.arc")
SPEC_PATTERNS = ("*.yaml", "*.yml", "*.json")
RUNNERS = ("prism", "flink", "spark")
# OUTPUT/.specs: the local copy of a gs:// specs folder.
SPECS_COPY = ".specs"


def is_gcs(path: str) -> bool:
    return path.startswith("gs://")


def _env(name: str, default: str = "") -> str:
    return os.environ.get("RECRAWL_NIGHTLY_" + name.upper(), default)


PARAMS = {
    "archive": Param(_env("archive"), type="string",
                     description="folder (local or gs://) the crawlers add WARC/ARC files to; the index and the extractions read them there"),
    "index": Param(_env("index"), type="string",
                   description="index folder (local or gs://): recrawl index --add keeps its base, segments and index.files here"),
    "index_format": Param(_env("index_format", "cdxj"), enum=["cdxj", "zipnum"],
                          description="format of the index (the first night fixes it)"),
    "shards": Param(int(_env("shards", "1")), type="integer", minimum=1,
                    description="recrawl index --shards (the first night fixes it)"),
    "dictionary": Param(_env("dictionary", "true") == "true", type="boolean",
                        description="index with --dictionary: document frequencies for the IDF"),
    "specs": Param(_env("specs"), type="string",
                   description="folder (local or gs://) of Collection Specifications (*.yaml, *.yml, *.json): one collection each"),
    "output": Param(_env("output"), type="string",
                    description="local folder of the collections: OUTPUT/NAME for the specification NAME.yaml"),
    "publish": Param(_env("publish"), type="string",
                     description="folder (local or gs://) of the published files: PUBLISH/NAME/collection.wacz and PUBLISH/NAME/report/"),
    "runner": Param(_env("runner", "prism"), enum=list(RUNNERS),
                    description="prism: in the worker's process; flink or spark: through scripts/run-RUNNER.sh"),
    "index_flags": Param(_env("index_flags"), type="string",
                         description="more flags for recrawl index, e.g. --lines_per_block=1000 --parallelism=8"),
    "extract_flags": Param(_env("extract_flags"), type="string",
                           description="more flags for recrawl extract, e.g. --rounds_per_job=10"),
    "cluster_env": Param(json.loads(_env("cluster_env", "{}")), type="object",
                         description="environment of scripts/run-RUNNER.sh, e.g. {\"FLINK_MASTER\": \"host:8081\"}"),
    "recrawl": Param(_env("recrawl", "recrawl"), type="string",
                     description="the recrawl program (a path, or a name on PATH)"),
}


def fail(message: str) -> None:
    """Fails the task (no retry) with one line."""
    raise AirflowFailException(message)


def run(argv: list[str], env: dict[str, str] | None = None) -> None:
    """Runs a command, sends each line it prints to the task log, and fails
    the task with the command's last line (recrawl's one-line error) when
    it exits non-zero."""
    log.info("running: %s", shlex.join(argv))
    full_env = dict(os.environ)
    full_env.update(env or {})
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                env=full_env, text=True, errors="replace")
    except OSError as e:
        fail(f"{argv[0]}: cannot run: {e}")
    last = ""
    assert proc.stdout is not None
    for line in proc.stdout:
        line = line.rstrip("\n")
        log.info("%s", line)
        if line.strip():
            last = line.strip()
    code = proc.wait()
    if code != 0:
        fail(last or f"{shlex.join(argv)} exited with status {code} and printed nothing")


@dataclass
class Commands:
    """The command lines of a night, from the DAG run's parameters."""

    archive: str
    index: str
    index_format: str
    shards: int
    dictionary: bool
    specs: str
    output: str
    publish: str
    runner: str
    index_flags: str
    extract_flags: str
    cluster_env: dict = field(default_factory=dict)
    recrawl: str = "recrawl"

    @classmethod
    def from_params(cls, params: dict) -> "Commands":
        c = cls(**{k: params[k] for k in PARAMS})
        for name in ("archive", "index", "specs", "output", "publish"):
            value = getattr(c, name)
            if not value:
                fail(f"param {name} is empty: pass it in the run's conf or set RECRAWL_NIGHTLY_{name.upper()}")
            setattr(c, name, value.rstrip("/") if is_gcs(value) else os.path.abspath(value))
        if is_gcs(c.output):
            fail(f"param output={c.output}: a gs:// folder; recrawl extract writes collection.wacz for local outputs only, so the output folder must be local")
        if c.runner not in RUNNERS:
            fail(f"param runner={c.runner!r}: want one of {', '.join(RUNNERS)}")
        return c

    def index_path(self) -> str:
        """The --index value of the extractions."""
        if self.index_format == "cdxj":
            return "cdxj:" + os.path.join(self.index, "index.cdxj")
        return "zipnum:" + self.index

    def pipeline(self, name: str, own_flags: list[str], script_env: dict[str, str],
                 extra: list[str]) -> tuple[list[str], dict[str, str]]:
        """`recrawl NAME OWN_FLAGS EXTRA NAME_FLAGS` on prism; on Flink or
        Spark, scripts/run-RUNNER.sh with the pipeline's flags in its
        environment (SCRIPT_ENV) and EXTRA NAME_FLAGS as its arguments."""
        more = shlex.split(getattr(self, name + "_flags"))
        if self.runner == "prism":
            return [self.recrawl, name, *own_flags, *extra, "--runner=prism", *more], {}
        env = {"PIPELINE": name, **script_env, **{k: str(v) for k, v in self.cluster_env.items()}}
        recrawl = shutil.which(self.recrawl)
        if recrawl:
            env.setdefault("RECRAWL_CHECK_BINARY", recrawl)
        return ["bash", os.path.join(REPO, "scripts", f"run-{self.runner}.sh"), *extra, *more], env

    def index_add(self, files: list[str]) -> tuple[list[str], dict[str, str]]:
        inputs = ",".join(files)
        extra = ["--add"] + (["--dictionary"] if self.dictionary else [])
        return self.pipeline(
            "index",
            [f"--input={inputs}", f"--output={self.index}", f"--format={self.index_format}", f"--shards={self.shards}"],
            {"INPUT": inputs, "OUTPUT": self.index, "FORMAT": self.index_format, "SHARDS": str(self.shards)},
            extra)

    def extract(self, spec: str, out: str, refresh: bool) -> tuple[list[str], dict[str, str]]:
        extra = (["--refresh"] if refresh else []) + ["--quiet"]
        return self.pipeline(
            "extract",
            [f"--spec={spec}", f"--index={self.index_path()}", f"--archive={self.archive}", f"--output={out}"],
            {"SPEC": spec, "INDEX": self.index_path(), "ARCHIVE": self.archive, "OUTPUT": out},
            extra)

    def eval(self, out: str, report: str) -> list[str]:
        return [self.recrawl, "eval", f"--runs={out}", f"--report={report}"]

    def collection(self, spec: str) -> str:
        """OUTPUT/NAME for the specification NAME.yaml."""
        return os.path.join(self.output, os.path.splitext(os.path.basename(spec))[0])


def commands() -> Commands:
    return Commands.from_params(get_current_context()["params"])


def recrawl_files(c: Commands, *args: str) -> list[str]:
    """Runs `recrawl files ARGS` (listing and copying through recrawl's
    storage layer, local or gs://) and returns the lines it printed on
    stdout; fails the task with its last line on stderr when it fails."""
    argv = [c.recrawl, "files", *args]
    log.info("running: %s", shlex.join(argv))
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, errors="replace")
    except OSError as e:
        fail(f"{argv[0]}: cannot run: {e}")
    errors = [line.strip() for line in proc.stderr.splitlines() if line.strip()]
    for line in errors:
        log.info("%s", line)
    if proc.returncode != 0:
        fail(errors[-1] if errors else f"{shlex.join(argv)} exited with status {proc.returncode} and printed nothing")
    return [line for line in proc.stdout.splitlines() if line]


def copy_files(c: Commands, src: str, dest: str) -> list[str]:
    """Copies the file or folder src to dest with `recrawl files copy`
    (each file atomically, only those whose bytes differ); returns the
    names of the files it copied."""
    lines = recrawl_files(c, "copy", src, dest)
    for line in lines:
        log.info("%s", line)
    return [line.split(" ", 1)[1] for line in lines if line.startswith("copied ")]


def archive_files(c: Commands) -> list[str]:
    """The WARC and ARC files of the archive folder, sorted."""
    folder = c.archive
    if is_gcs(folder):
        files = recrawl_files(c, "list", *(folder + "/" + p for p in ARCHIVE_PATTERNS))
        if not files:
            fail(f"param archive={folder}: holds no WARC or ARC file ({', '.join(ARCHIVE_PATTERNS)})")
        return files
    if not os.path.isdir(folder):
        fail(f"param archive={folder}: no such folder")
    files = sorted({f for p in ARCHIVE_PATTERNS for f in glob.glob(os.path.join(folder, p))})
    if not files:
        fail(f"param archive={folder}: holds no WARC or ARC file ({', '.join(ARCHIVE_PATTERNS)})")
    return files


def publish_file(src: str, dest: str) -> bool:
    """Copies src to dest atomically, unless dest holds the same bytes;
    tells whether it copied."""
    if os.path.exists(dest) and filecmp.cmp(src, dest, shallow=False):
        return False
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(dest) + ".", dir=os.path.dirname(dest))
    try:
        with os.fdopen(fd, "wb") as w, open(src, "rb") as r:
            shutil.copyfileobj(r, w, 1 << 20)
            w.flush()
            os.fsync(w.fileno())
        os.replace(tmp, dest)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return True


def publish_gcs(c: Commands, out: str, dest: str) -> None:
    """Publishes to a gs:// folder: the report is written into a local
    staging folder, then both are copied with `recrawl files copy`."""
    staging = tempfile.mkdtemp(prefix=f".{os.path.basename(out)}.report.")
    try:
        run(c.eval(out, staging))
        changed = ["report/" + f for f in copy_files(c, staging, dest + "/report")]
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    changed += copy_files(c, os.path.join(out, "collection.wacz"), dest + "/collection.wacz")
    log.info("published %s: %s", dest, ", ".join(changed) if changed else "nothing changed")


with DAG(
    dag_id=DAG_ID,
    description="index the night's new WARC files, refresh every collection, publish each WACZ and report",
    doc_md=__doc__,
    schedule="@daily",
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    catchup=False,
    max_active_runs=1,  # two nights at once would wait on the index's lock
    params=PARAMS,
    default_args={"retries": 0, "execution_timeout": timedelta(hours=20)},
    tags=["recrawl"],
) as dag:

    @task
    def index_new_files() -> None:
        """recrawl index --add on every archive file: only the new ones are indexed."""
        c = commands()
        argv, env = c.index_add(archive_files(c))
        run(argv, env)

    @task
    def list_specs() -> list[str]:
        """The specifications of the specs folder; a gs:// folder is copied
        into OUTPUT/.specs first and its specifications listed there."""
        c = commands()
        if is_gcs(c.specs):
            local = os.path.join(c.output, SPECS_COPY)
            lines = recrawl_files(c, "copy", c.specs, local)  # "copied NAME" or "unchanged NAME"
            for line in lines:
                log.info("%s", line)
            names = [line.split(" ", 1)[1] for line in lines]
            found = sorted(os.path.join(local, n) for n in names
                           if "/" not in n and any(fnmatch.fnmatch(n, p) for p in SPEC_PATTERNS))
        elif not os.path.isdir(c.specs):
            fail(f"param specs={c.specs}: no such folder")
        else:
            found = sorted({f for p in SPEC_PATTERNS for f in glob.glob(os.path.join(c.specs, p))})
        if not found:
            fail(f"param specs={c.specs}: holds no specification ({', '.join(SPEC_PATTERNS)})")
        names = [os.path.splitext(os.path.basename(f))[0] for f in found]
        if len(set(names)) != len(names):
            fail(f"param specs={c.specs}: two specifications share a name: {', '.join(sorted(names))}")
        return found

    @task(map_index_template="{{ collection }}")
    def refresh(spec: str) -> str:
        """Refreshes one collection, or extracts it when it has no finished run yet."""
        c = commands()
        out = c.collection(spec)
        get_current_context()["collection"] = os.path.basename(out)
        finished = os.path.exists(os.path.join(out, "run.json"))
        log.info("%s: %s", out, "refresh" if finished else "no finished run: first extraction")
        argv, env = c.extract(spec, out, refresh=finished)
        run(argv, env)
        return out

    @task(map_index_template="{{ collection }}")
    def publish(out: str) -> None:
        """Writes the collection's report and publishes it with the WACZ."""
        c = commands()
        name = os.path.basename(out)
        get_current_context()["collection"] = name
        dest = os.path.join(c.publish, name)
        if is_gcs(c.publish):
            publish_gcs(c, out, dest)
            return
        os.makedirs(c.publish, exist_ok=True)
        staging = tempfile.mkdtemp(prefix=f".{name}.report.", dir=c.publish)
        try:
            run(c.eval(out, staging))
            changed = []
            for root, _, files in os.walk(staging):
                for f in sorted(files):
                    src = os.path.join(root, f)
                    rel = os.path.relpath(src, staging)
                    if publish_file(src, os.path.join(dest, "report", rel)):
                        changed.append("report/" + rel)
        finally:
            shutil.rmtree(staging, ignore_errors=True)  # the staging copy only
        if publish_file(os.path.join(out, "collection.wacz"), os.path.join(dest, "collection.wacz")):
            changed.append("collection.wacz")
        log.info("published %s: %s", dest, ", ".join(changed) if changed else "nothing changed")

    specs = list_specs()
    index_new_files() >> specs
    publish.expand(out=refresh.expand(spec=specs))
