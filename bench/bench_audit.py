"""Benchmark the upgrade audit on large real packages from the package index.

    python3 bench/bench_audit.py [--corpus ../shared/corpus] [--find-links DIR] [--repeat 1]
                                 [--case transformers:5.3.0:5.24.0:transformers] ...

For each case (default: transformers 5.3.0 -> 5.24.0 and megatron-core 0.15.3 -> 0.16.0),
audits a project that uses the package: the AReaL corpus (``--corpus``: the folder with
``areal-*.tar.gz`` and ``areal.toml``, unpacked into a temporary git repository; its own
checklist for the package), else a small project with a checklist written by our own
``new``. Each measured step runs in a child process of its own, timed from outside, with
its peak memory (max RSS, its children's included):

- griffe alone: a full griffe load of both versions' source (the baseline);
- audit, cold: empty cache (download and unpack of both versions included);
- audit, sources cached, model cache empty;
- audit, warm: sources cached and model cache filled (what a second audit costs);
- audit, project uncached: the same with ``--no-cache`` (the project's imports and uses found
  again: the uncached project scan, whose cost is this step's time less the warm one's).

It prints each step's time, its ratio to the baseline and its peak RSS, and whether the
audits' findings are the same in every step. ``--find-links DIR`` serves the downloads
from ``DIR`` (and its subfolders, e.g. ``DIR/<pkg>-<ver>/``) without the network.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

USES = {
    "megatron.core": '''\
from megatron.core import parallel_state as mpu
from megatron.core.transformer.transformer_config import TransformerConfig
from megatron.core.distributed import DistributedDataParallel as DDP
from megatron.core.distributed import DistributedDataParallelConfig
from megatron.core.optimizer import OptimizerConfig, get_megatron_optimizer
from megatron.core.models.gpt import GPTModel


def build(module, spec):
    mpu.initialize_model_parallel(tensor_model_parallel_size=2, pipeline_model_parallel_size=1)
    config = TransformerConfig(num_layers=2, hidden_size=8, num_attention_heads=2)
    model = GPTModel(config=config, transformer_layer_spec=spec, vocab_size=128, max_sequence_length=64)
    ddp = DDP(config, DistributedDataParallelConfig(), model)
    opt = get_megatron_optimizer(OptimizerConfig(lr=1e-4), [ddp])
    return mpu.get_data_parallel_rank(), opt
''',
    "transformers": '''\
from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer, PreTrainedModel


def build(path):
    config = AutoConfig.from_pretrained(path, trust_remote_code=False)
    model = AutoModelForCausalLM.from_pretrained(path, config=config, torch_dtype="auto")
    tok = AutoTokenizer.from_pretrained(path, use_fast=True)
    return model, tok, isinstance(model, PreTrainedModel)
''',
}
DEFAULT_CASES = ["transformers:5.3.0:5.24.0:transformers", "megatron-core:0.15.3:0.16.0:megatron.core"]


# -- the child: one measured step ----------------------------------------------------------

def child(spec: dict) -> None:
    """Run one step in this process; write its peak RSS (KB, children included) to spec["out"]."""
    if spec["step"] == "griffe":
        import logging

        import griffe

        logging.getLogger("griffe").setLevel(logging.ERROR)
        for d in spec["dirs"]:
            griffe.GriffeLoader(search_paths=[Path(d)], allow_inspection=False, store_source=False).load(spec["module"])
        code = 0
    else:
        from upgrade_checklists.cli import main

        os.chdir(spec["root"])
        code = main(spec["argv"])
    rss = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    Path(spec["out"]).write_text(json.dumps({"rss_kb": rss, "code": code}))


def measure(spec: dict, env: dict[str, str]) -> tuple[float, int, int]:
    """(wall seconds, peak RSS in KB, exit code) of one step in a child process."""
    with tempfile.NamedTemporaryFile("r", suffix=".json", delete=False) as f:
        out = f.name
    try:
        t = time.perf_counter()
        r = subprocess.run([sys.executable, __file__, "--child", json.dumps({**spec, "out": out})], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - t
        if r.returncode != 0:
            raise SystemExit(f"step {spec['step']} failed (exit {r.returncode}): {r.stderr.strip()[-2000:]}")
        data = json.loads(Path(out).read_text())
        return wall, data["rss_kb"], data["code"]
    finally:
        os.unlink(out)


# -- the projects --------------------------------------------------------------------------

def corpus_project(corpus: Path, into: Path) -> tuple[Path, Path]:
    """The corpus unpacked as a committed git repository: (root, config file)."""
    archive = next(iter(sorted(corpus.glob("*.tar.gz"))), None)
    config = corpus / "areal.toml"
    if archive is None or not config.is_file():
        raise SystemExit(f"{corpus}: no *.tar.gz with areal.toml next to it")
    with tarfile.open(archive) as tf:
        tf.extractall(into, filter="data")
    root = next(p for p in into.iterdir() if p.is_dir())
    for cmd in (["init", "-q"], ["add", "-A"], ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "-qm", "corpus"]):
        subprocess.run(["git", *cmd], cwd=root, check=True)
    return root, config


def small_project(into: Path, package: str, module: str) -> tuple[Path, Path]:
    root = into / "project"
    (root / "app").mkdir(parents=True)
    (root / "checklists").mkdir()
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "use.py").write_text(USES.get(module, f"import {module}\n"))
    (root / "pyproject.toml").write_text('[tool.upgrade-checklists]\nroots = ["app"]\n')
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["upgrade-checklists", "new", package, "--github", "example/unused", "--import-name", module],
                   cwd=root, check=True, stdout=subprocess.DEVNULL)
    return root, root / "pyproject.toml"


def findings_of(path: Path) -> list:
    data = json.loads(path.read_text())
    return sorted(json.dumps(f, sort_keys=True) for f in data.get("findings", []))


# -- main ----------------------------------------------------------------------------------

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", action="append", metavar="PKG:OLD:NEW:IMPORT", help=f"(default: {', '.join(DEFAULT_CASES)})")
    ap.add_argument("--corpus", type=Path, help="folder with the AReaL corpus archive and areal.toml")
    ap.add_argument("--find-links", type=Path, help="serve downloads from this folder and its subfolders (offline)")
    ap.add_argument("--repeat", type=int, default=1, help="warm steps: the median of this many runs")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(json.loads(args.child))
        return 0
    # as installed: Python's compiled modules cached (as bench_check.py runs the check)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if args.find_links:
        dirs = [args.find_links, *sorted(p for p in args.find_links.iterdir() if p.is_dir())]
        env.update(PIP_NO_INDEX="1", PIP_FIND_LINKS=" ".join(str(d.resolve()) for d in dirs))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for case in args.case or DEFAULT_CASES:
            package, old, new, module = case.split(":")
            work = tmp / package
            work.mkdir()
            if args.corpus:
                root, config = corpus_project(args.corpus, work / "corpus")
            else:
                root, config = small_project(work, package, module)
            cache = work / "cache"

            def audit(name: str, *extra: str) -> tuple[float, int]:
                out = work / f"{name}.json"
                argv = ["audit", f"{package}=={new}", "--from", old, "--config", str(config), "--source", "index",
                        "--cache-dir", str(cache), "--summary", str(work / f"{name}.md"), "--output-format", "json", *extra]
                spec = {"step": "audit", "root": str(root), "argv": argv}
                with open(out, "w") as f:  # the child's stdout is the JSON report
                    t = time.perf_counter()
                    r = subprocess.run([sys.executable, __file__, "--child", json.dumps({**spec, "out": str(out) + ".rss"})],
                                       env=env, stdout=f, stderr=subprocess.PIPE, text=True)
                    wall = time.perf_counter() - t
                if r.returncode != 0:
                    raise SystemExit(f"{package} audit ({name}) crashed: {r.stderr.strip()[-2000:]}")
                data = json.loads(Path(str(out) + ".rss").read_text())
                if data["code"] not in (0, 1):
                    raise SystemExit(f"{package} audit ({name}) could not run (exit {data['code']}): {r.stderr.strip()[-500:]}")
                findings[name] = findings_of(out)
                return wall, data["rss_kb"]

            findings: dict[str, list] = {}
            cold = audit("cold")
            dirs = [str(cache / "index" / package / v) for v in (old, new)]
            files = [sum(1 for _ in Path(d).rglob("*.py")) for d in dirs]
            base = [measure({"step": "griffe", "dirs": dirs, "module": module}, env) for _ in range(args.repeat)]
            empty, warm, scan = [], [], []
            for i in range(args.repeat):
                shutil.rmtree(cache / "models", ignore_errors=True)
                empty.append(audit(f"empty{i}"))
                warm.append(audit(f"warm{i}"))
                scan.append(audit(f"scan{i}", "--no-cache"))
            same = len({json.dumps(f) for f in findings.values()}) == 1
            med = lambda runs: (statistics.median(r[0] for r in runs), max(r[1] for r in runs))  # noqa: E731
            rows.append((package, old, new, files, len(findings["cold"]), same, med(base), cold, med(empty), med(warm), med(scan)))
    print(f"project: {'AReaL corpus (' + str(args.corpus) + ')' if args.corpus else 'a small project per package'}")
    for package, old, new, files, n, same, base, cold, empty, warm, scan in rows:
        print(f"\n{package} {old} -> {new}: {files[0]} / {files[1]} Python files; {n} findings, "
              f"{'the same in every step' if same else 'DIFFERENT between steps'}")
        print(f"  {'step':42} {'wall':>8}  {'ratio':>6}  {'peak RSS':>9}")
        for label, (wall, rss) in [("griffe alone, both versions (baseline)", base), ("audit, cold (download + unpack)", cold),
                                   ("audit, sources cached, model cache empty", empty),
                                   ("audit, warm (sources and model cached)", warm),
                                   ("audit, warm, project uncached (--no-cache)", scan)]:
            print(f"  {label:42} {wall:7.2f}s  {wall / base[0]:6.2f}  {rss / 1024:7.0f}MB")
        cost = scan[0] - warm[0]
        print(f"  {'project scan (uncached less warm)':42} {cost:7.2f}s  {cost / base[0]:6.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
