"""Benchmark the upgrade audit on a large real package from the package index.

    python3 bench/bench_audit.py [--package megatron-core] [--old 0.15.3] [--new 0.16.0]
                                 [--import-name megatron.core] [--repeat 3]

Makes a small project that calls the package (a checklist written by our own
``new``), then times in this one process:

- baseline: loading both versions' source with griffe alone (fresh loaders);
- audit, cold: the whole audit with an empty source cache (pip download and unpack
  of both sdists included);
- audit, warm: the whole audit again, sources cached.

It prints each time and its ratio to the baseline. Needs the package index.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from upgrade_checklists import config
from upgrade_checklists.audit import Auditor, Target
from upgrade_checklists.compare import run_check

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
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--package", default="megatron-core")
    ap.add_argument("--old", default="0.15.3")
    ap.add_argument("--new", default="0.16.0")
    ap.add_argument("--import-name", default="megatron.core")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    import griffe

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        (root / "app").mkdir(parents=True)
        (root / "checklists").mkdir()
        (root / "app" / "__init__.py").write_text("")
        (root / "app" / "train.py").write_text(USES.get(args.import_name, f"import {args.import_name}\n"))
        (root / "pyproject.toml").write_text('[tool.upgrade-checklists]\nroots = ["app"]\n')
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        here = os.getcwd()
        os.chdir(root)
        try:
            subprocess.run(["upgrade-checklists", "new", args.package, "--github", "example/unused",
                            "--import-name", args.import_name], check=True, stdout=subprocess.DEVNULL)
            cfg = config.load(root)
            check = run_check(cfg, use_cache=False)
            cl = next(c for c in check.checklists if c.package == args.package)
            cache = Path(tmp) / "cache"

            def audit():
                auditor = Auditor(cfg, check, source="index", cache_dir=cache)
                return auditor.run([Target(args.package, cl, args.old, args.new, "bench")])

            t0 = time.perf_counter()
            result = audit()
            cold = time.perf_counter() - t0
            if result.errors:
                raise SystemExit(f"audit failed: {result.errors}")
            dirs = [cache / "index" / args.package / v for v in (args.old, args.new)]
            files = [sum(1 for _ in d.rglob("*.py")) for d in dirs]

            def griffe_alone():
                for d in dirs:
                    griffe.GriffeLoader(search_paths=[d], allow_inspection=False).load(args.import_name)

            base = statistics.median(_time(griffe_alone) for _ in range(args.repeat))
            warm = statistics.median(_time(audit) for _ in range(args.repeat))
        finally:
            os.chdir(here)
    t = result.targets[0]
    print(f"{args.package} {args.old} -> {args.new}: {files[0]} / {files[1]} Python files; "
          f"{t.resolved} of {len(cl.entries)} catalog APIs resolved, {t.bound} call sites bound, "
          f"{len(result.breaking)} breaking findings")
    print(f"griffe alone, both versions (baseline): {base:7.2f} s")
    print(f"audit, cold (download + unpack):       {cold:7.2f} s   ratio {cold / base:6.2f}")
    print(f"audit, warm (sources cached):          {warm:7.2f} s   ratio {warm / base:6.2f}")
    return 0


def _time(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


if __name__ == "__main__":
    raise SystemExit(main())
