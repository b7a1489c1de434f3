"""The command line: argument parsing, output streams and exit codes only.

Exit codes (as ruff): 0 clean (or warnings only), 1 errors (or files rewritten), 2 usage or
configuration error, or an internal error (crash.py: one line, traceback in a log).
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import shlex
import sys
from pathlib import Path

from upgrade_checklists import __version__
from upgrade_checklists.core import config, crash, gitfiles
from upgrade_checklists.output import report, suppress
from upgrade_checklists.check import runcache
from upgrade_checklists.output.selection import select, select_deleted
from upgrade_checklists.core.config import ConfigError
from upgrade_checklists.core.findings import AUDIT_CODES, DESCRIPTIONS, FIXABLE, printable
from upgrade_checklists.core import files

DESCRIPTION = "Keep per-dependency API checklists true to the code, and audit dependency upgrades."

EXIT_CODES = """\
exit codes:
  0  no findings, or warnings only (or --exit-zero)
  1  errors reported, or files rewritten by --fix
  2  usage, configuration or internal error (e.g. a --baseline file that is missing)"""

MAIN_EPILOG = f"""\
examples:
  upgrade-checklists check                    check every checklist against the code
  upgrade-checklists check --fix              repair what can be repaired, report the rest
  upgrade-checklists new torch --github pytorch/pytorch
  upgrade-checklists audit torch==2.6.0       will the code survive the upgrade?

Run `upgrade-checklists COMMAND --help` for a command's options and codes.

{EXIT_CODES}
"""

_CODES = "\n".join(f"  {code:<12}{'[*] ' if code in FIXABLE else '    '}{text}" for code, text in DESCRIPTIONS.items())

CHECK_EPILOG = f"""\
examples:
  upgrade-checklists check                          the whole repository
  upgrade-checklists check app/x.py checklists/torch.md   findings concerning these files
  upgrade-checklists check --fix                    rewrite checklists to repair [*] findings
  upgrade-checklists check --diff                   show what --fix would change
  upgrade-checklists check --statistics             counts per code
  upgrade-checklists check --select MISSING,STALE   only these codes
  upgrade-checklists check --ignore SNIPPET         every code but these
  upgrade-checklists check --write-baseline .upgrade-checklists-baseline.json
                             record today's findings (once, and after working some down)
  upgrade-checklists check --baseline .upgrade-checklists-baseline.json
                             report only findings not in the file; a missing file is an error
  upgrade-checklists check --output-format sarif > findings.sarif

codes ([*]: fixable with --fix):
{_CODES}

suppressing findings:
  pyproject.toml:  [tool.upgrade-checklists] ignore = ["SNIPPET"]
                   [tool.upgrade-checklists.per-checklist-ignores] "vllm.md" = ["TIER"]
  in a checklist, on a row, an entry heading or a version-guard line:
                   <!-- upgrade-checklists: ignore[SNIPPET,LINE] -->
  a baseline (--baseline FILE) matches findings by code, checklist, file and message,
  never by line number.

colour: --color auto (default) colours a terminal; NO_COLOR turns it off, FORCE_COLOR on.

{EXIT_CODES}
"""

NEW_EPILOG = """\
examples:
  upgrade-checklists new torch --github pytorch/pytorch
  upgrade-checklists new megatron-core --github NVIDIA/Megatron-LM --branch-template 'core_r${VERSION}' \\
      --import-name megatron.core --upstream-path megatron/core/

exit codes:
  0  checklist written
  2  usage or configuration error (e.g. the checklist exists already)
"""

AUDIT_EPILOG = f"""\
examples:
  upgrade-checklists audit                     what moved in the pins since HEAD
  upgrade-checklists audit torch==2.6.0        a target version by hand
  upgrade-checklists audit torch==2.6.0 --from 2.5.1 --source index
  upgrade-checklists audit --output-format json

codes: {", ".join(AUDIT_CODES)}
  (severity "error" breaks the upgrade; "warning" and "info" need a look)

exit codes:
  0  nothing breaks
  1  a breaking finding
  2  usage, configuration or fetch error
"""


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """argparse's formatter, its width found without :mod:`shutil` (whose import, with
    bz2 and lzma, argparse pays on every run for the help it rarely prints)."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None) -> None:
        if width is None:  # as shutil.get_terminal_size: $COLUMNS, else the terminal, else 80
            try:
                width = int(os.environ.get("COLUMNS", ""))
            except ValueError:
                width = 0
            if width <= 0:
                try:
                    width = os.get_terminal_size(sys.__stdout__.fileno()).columns
                except (AttributeError, ValueError, OSError):
                    width = 0
            width = (width or 80) - 2
        super().__init__(prog, indent_increment, max_help_position, width)


def _parser() -> argparse.ArgumentParser:
    raw = _Formatter
    p = argparse.ArgumentParser(prog="upgrade-checklists", description=DESCRIPTION, epilog=MAIN_EPILOG, formatter_class=raw)
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    common = argparse.ArgumentParser(add_help=False, formatter_class=raw)
    common.add_argument("--config", type=Path, metavar="FILE",
                        help="the configuration: a pyproject.toml with a [tool.upgrade-checklists] table, or an "
                             "upgrade-checklists.toml (default: the nearest of them in the current directory or above; "
                             "its directory is the repository root)")
    common.add_argument("--output-format", "--format", dest="format", choices=report.FORMATS, default="text",
                        help="text (grouped per checklist), concise (one line each), json, sarif or github (default: text)")
    common.add_argument("--no-cache", action="store_true", help="neither read nor write the scan cache")
    common.add_argument("-v", "--verbose", action="store_true",
                        help="notes on stderr: where each checklist's import names and the tiers came from, files "
                             "skipped, what was scanned or reused from the last run; audit: also list its info findings")

    check = sub.add_parser("check", parents=[common], formatter_class=raw, epilog=CHECK_EPILOG,
                           help="compare checklists with the code (the checklist-structure hook)",
                           description="Compare the checklists with the code's imports and call sites.")
    check.add_argument("paths", nargs="*", help="report only findings concerning these files (as pre-commit passes them)")
    mode = check.add_mutually_exclusive_group()
    mode.add_argument("--fix", action="store_true", help="rewrite checklists to repair the fixable findings")
    mode.add_argument("--diff", action="store_true", help="print the diff --fix would apply; change nothing")
    check.add_argument("--select", action="append", metavar="CODE[,CODE]", help="report only these codes (ALL: every code)")
    check.add_argument("--ignore", action="append", metavar="CODE[,CODE]", help="never report these codes")
    base = check.add_mutually_exclusive_group()
    base.add_argument("--baseline", type=Path, metavar="FILE",
                      help="report only findings not in FILE (a missing FILE is an error: write it with --write-baseline)")
    base.add_argument("--write-baseline", type=Path, metavar="FILE",
                      help="write the current findings to FILE (replacing it) and exit 0; later runs pass --baseline FILE")
    check.add_argument("--statistics", action="store_true", help="counts per code instead of the findings")
    check.add_argument("-q", "--quiet", action="store_true", help="the findings only: no summary, no 'Fixing' lines")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even with findings (2 still means an error)")
    check.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                       help="colour the text output (default: auto, on a terminal unless NO_COLOR is set)")
    new = sub.add_parser("new", parents=[common], formatter_class=raw, epilog=NEW_EPILOG,
                         help="create a checklist for a package from a scan of the code",
                         description="Write a first checklist for PACKAGE from a scan of the code.")
    new.add_argument("package", help="the pip name; the checklist is <checklists>/<PACKAGE>.md")
    new.add_argument("--github", required=True, metavar="ORG/REPO", help="upstream repository")
    new.add_argument("--branch-template", default=None,
                     help="git tag/branch for a version (default: from the tags of a local upstream clone that git_url "
                          "names, else v${VERSION}: check it against upstream's tags)")
    new.add_argument("--import-name", action="append", default=[], metavar="MODULE", help="import path (repeatable; default: found in the code)")
    new.add_argument("--upstream-path", action="append", default=[], metavar="PATH", help="upstream file or directory worth reading (repeatable)")
    new.add_argument("--lines", action="store_true", help="record line numbers in call-site references (default: file and "
                     "enclosing function only, which do not go stale)")
    new.add_argument("--folder-min", type=int, default=None, metavar="N",
                     help="one row for a folder of at least N importers that are not the library's own code "
                          "(tests, examples, scripts; default: 5; 0: a row per file)")
    new.add_argument("--max-entries", type=int, default=None, metavar="N", help="catalog at most N APIs (default: 30)")
    audit = sub.add_parser("audit", parents=[common], formatter_class=raw, epilog=AUDIT_EPILOG,
                           help="audit the code against new upstream versions (the upgrade-audit hook)",
                           description="Check the code's call sites against a dependency's new upstream release.")
    audit.add_argument("specs", nargs="*", metavar="PKG==VERSION[@VARIANT]",
                       help="packages and target versions, optionally for one variant (default: what moved since --base-ref)")
    audit.add_argument("--from", dest="from_version", metavar="VERSION", help="the old version to compare with (default: the pinned one)")
    audit.add_argument("--base-ref", default="HEAD", help="git ref whose pins are the old versions (default: HEAD)")
    audit.add_argument("--source", choices=("git", "index", "auto"), default="auto", help="where upstream source comes from (default: auto, git then index)")
    audit.add_argument("--cache-dir", type=Path, help="where fetched sources are kept (default: the per-user cache; "
                       "never inside the repository)")
    audit.add_argument("--summary", type=Path, metavar="PATH", help="where to write the summary (default: upgrade-summary.md in the repository root)")
    audit.add_argument("--ledger", action="store_true",
                       help="name, for each breaking finding, the first release between old and new in which it appears")
    audit.add_argument("--fix", action="store_true",
                       help="write back what the audit derives: moved Source paths and upstream_paths, dead-guard markers, status counts")
    audit.add_argument("--timeout", type=int, default=600, help="seconds a fetch may take (default: 600)")
    return p


def main(argv: list[str] | None = None) -> int:
    return crash.run_guarded(lambda: _main(argv))  # a bug: one line and exit 2, never 1


def entry() -> None:
    """The console script and ``python -m upgrade_checklists``: :func:`main`, then, its
    output flushed, a hard exit. The interpreter's own exit freed every object the run
    made one by one (syntax trees, parsed checklists, modules): 70 ms of a cold run on
    AReaL, 15 ms of a warm one, for memory the system takes back at once (mypy exits
    the same way). Nothing here waits for the interpreter's exit: every file is written
    and closed, every child process waited for, every thread joined before ``main``
    returns; nothing is registered with ``atexit``. (A profiler that writes its report
    at exit, ``python -m cProfile -m upgrade_checklists``, gets none: profile ``main``.)"""
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a reader that stopped reading (`| head`), a closed stream
        pass
    os._exit(code)


def _main(argv: list[str] | None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help, --version, usage errors
        return int(exc.code or 0)
    args.requested = shlex.join(["upgrade-checklists", *(sys.argv[1:] if argv is None else argv)])
    files.forget()
    try:
        cfg = config.load(Path.cwd(), args.config)
        for warning in cfg.warnings:
            print(f"upgrade-checklists: warning: {printable(warning)}", file=sys.stderr)
        if args.command == "new":
            return _new(args, cfg)
        if args.command == "audit":
            return _audit(args, cfg)
        return _check(args, cfg)
    except (ConfigError, files.Outside) as exc:  # Outside: a path of the repository leads out of it
        print(f"upgrade-checklists: error: {printable(str(exc))}", file=sys.stderr)
        return 2
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""  # none: a standard stream (a closed pipe)
        print(f"upgrade-checklists: error: {printable(f'{where}{exc.strerror or exc}')}", file=sys.stderr)
        return 2


def _check(args: argparse.Namespace, cfg: config.Config) -> int:
    """The ``check`` command, Python's cycle collector paused (as ``compare.run_check``
    does): what follows a run (its record, the report) is done while the run's facts
    and trees are alive, and a collection would walk them all again."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _check_paused(args, cfg)
    finally:
        if collecting:
            gc.enable()


def _check_paused(args: argparse.Namespace, cfg: config.Config) -> int:
    use_cache = not args.no_cache
    args.paths = _root_relative(args.paths, cfg)
    # pre-commit without file arguments: a commit that only deletes files, or touches none of
    # our types: only what concerns the deleted files is this commit's business
    deleted = gitfiles.deleted_in_index(cfg.root) if not args.paths and gitfiles.in_pre_commit() else None
    chosen = suppress.parse_codes(args.select, "--select")
    ignored = suppress.parse_codes(args.ignore, "--ignore") or []
    known = None
    machine = args.format not in ("text", "concise")
    info = sys.stderr if machine else sys.stdout  # stdout of json/sarif/github is the document only
    ctx = report.Context(quiet=args.quiet, statistics=args.statistics, base=_base(cfg),
                         color=args.format == "text" and _use_color(args.color, sys.stdout),
                         exists=lambda rel: (cfg.root / rel).is_file())

    uncatalogued = _selected("UNCATALOGUED", args, cfg)
    # a warm run on an unchanged work tree answers from the last run (runcache.py);
    # --fix and --diff need the parsed checklists
    reuse = use_cache and cfg.cache_dir is not None and not (args.fix or args.diff)

    def run():
        nonlocal known
        result, outcome, reused = _outcome(cfg, use_cache, uncatalogued, reuse)
        kept = suppress.apply_inline(outcome.findings, cfg, runcache.inline_of(outcome), outcome.inline_warnings,
                                     chosen, ignored)
        findings = kept.findings
        if args.write_baseline is not None:
            from upgrade_checklists.output import baseline  # imported where used: a plain commit run never needs it
            where = _argument_path(args.write_baseline, cfg)  # a committed symlink does not lead the write out
            baseline.write(where, findings)
            print(f"Wrote {args.write_baseline} with {len(findings)} known finding{'s' if len(findings) != 1 else ''}; "
                  f"check with --baseline {args.write_baseline} to report only new ones", file=sys.stderr)
            known = baseline.read(where, str(args.write_baseline))
        if args.baseline is not None and known is None:
            from upgrade_checklists.output import baseline
            known = baseline.read(_argument_path(args.baseline, cfg), str(args.baseline))
        if known is not None:
            from upgrade_checklists.output import baseline
            findings, ctx.baselined = baseline.subtract(findings, known)
        ctx.suppressed = kept.suppressed
        if deleted is not None:
            chosen_ones = select_deleted(findings, deleted)
        else:
            chosen_ones = select(findings, args.paths, cfg) if args.paths else findings
        ctx.elsewhere = len(findings) - len(chosen_ones)
        return result, outcome, kept.warnings, chosen_ones, reused

    result, outcome, warnings, findings, reused = run()
    for warning in [*outcome.warnings, *warnings]:
        print(f"upgrade-checklists: warning: {printable(warning)}", file=sys.stderr)
    if args.diff or args.fix:
        from upgrade_checklists.check import fix  # the fixer (and wcwidth) only when asked for
    if args.diff:
        changes = fix.plan(result, cfg, findings)
        for path, (old, new) in sorted(changes.items()):
            sys.stdout.write(fix.unified_diff(_rel(path, cfg), old, new))
        return 1 if changes else 0
    fixed: list[Path] = []
    if args.fix:
        for _ in range(3):  # a fix can reveal another (a moved file in another tier): until stable
            changes = fix.plan(result, cfg, findings)
            if not changes:
                break
            for path, (_old, new) in sorted(changes.items()):
                fix.write_atomic(Path(files.inside(cfg.root, path, follow=False)), new)
                if path not in fixed:
                    fixed.append(path)
            result, outcome, _warnings, findings, reused = run()
        if not args.quiet:
            for path in fixed:
                print(f"Fixing {printable(_rel(path, cfg))}", file=info)
    if args.verbose:
        for note in outcome.notes:
            print(f"note: {printable(note)}", file=sys.stderr)
        if reused:
            print(f"note: {reused}: its outcome is reused", file=sys.stderr)
        print(f"note: scanned {outcome.files_scanned} files in {', '.join(cfg.roots)}; parsed {outcome.parsed}; "
              f"{outcome.cache_hits} from the cache", file=sys.stderr)
    ctx.fixed = [_rel(p, cfg) for p in fixed]
    ctx.checklist_files = set(outcome.checklists)
    out = report.render(findings, args.format, checklists=len(outcome.checklists), files_scanned=outcome.files_scanned,
                        ctx=ctx)
    sys.stdout.write(out)
    summary_file = os.environ.get("GITHUB_STEP_SUMMARY")
    if args.format == "github" and summary_file:
        with open(summary_file, "a", encoding="utf-8") as f:
            f.write(report.step_summary(findings, ctx))
    if args.exit_zero:
        return 0
    return 1 if any(f.fails for f in findings) or fixed else 0


#: the last full run's result (its facts, parsed checklists, the catalogs' syntax trees),
#: kept until the process ends: ``entry`` exits without freeing it, object by object, for
#: nothing. A later run in the same process (tests) replaces it.
_kept = None


def _outcome(cfg: config.Config, use_cache: bool, uncatalogued: bool, reuse: bool):
    """``(Result or None, runcache.Outcome, why it was reused or None)``: the last run's
    outcome when ``reuse`` and nothing changed, or nothing the check reads (no Result
    then), else a full run (remembered for the next one)."""
    state = runcache.state(cfg, f"uncatalogued={uncatalogued}") if reuse else None
    if state is not None:
        outcome = runcache.load(cfg, state)
        if outcome is not None:
            return None, outcome, "nothing changed since the last run"
        if not uncatalogued:
            from upgrade_checklists.check import cutoff

            reused = cutoff.reuse(cfg, state)
            if reused is not None:
                outcome, rechecked = reused
                runcache.save(cfg, state, outcome)
                if rechecked:
                    return None, outcome, (f"the files changed since the last run read the same to the check but for "
                                           f"places the catalog{'s' if len(rechecked) > 1 else ''} of "
                                           f"{', '.join(rechecked)} found in them, checked again")
                return None, outcome, "the files changed since the last run read the same to the check"
    from upgrade_checklists.check.compare import run_check  # the whole check: parsers, comparisons

    global _kept
    result = _kept = run_check(cfg, use_cache=use_cache, uncatalogued=uncatalogued, files=state.files if state else None)
    outcome = runcache.outcome_of(result)
    if state is not None and not state.racy and runcache.reads_of(cfg, state, result, files.journal(), files.globs()):
        plain = runcache.save(cfg, state, outcome)  # None: a racy state, not stored
        if plain is not None and not uncatalogued:
            from upgrade_checklists.check import cutoff

            cutoff.save(cfg, state, result, plain)
    return result, outcome, None


def _use_color(choice: str, stream) -> bool:
    """--color always/never win; for auto, NO_COLOR (set, non-empty) turns colour off,
    FORCE_COLOR turns it on, else colour on a terminal (https://no-color.org)."""
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(stream, "isatty") and stream.isatty()


def _base(cfg: config.Config) -> str:
    """How to reach the repository root from the current directory ("" when there)."""
    try:
        rel = os.path.relpath(cfg.root, Path.cwd())
    except ValueError:  # another drive
        return f"{cfg.root}{os.sep}"
    return "" if rel == "." else rel.replace(os.sep, "/") + "/"


def _new(args: argparse.Namespace, cfg: config.Config) -> int:
    from upgrade_checklists.check.new import create

    if not re.match(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$", args.package):
        raise ConfigError(f"{args.package!r} is not a valid package name")
    from upgrade_checklists.check.folders import FOLDER_MIN
    from upgrade_checklists.check.new import MAX_ENTRIES

    for flag, value in (("--folder-min", args.folder_min), ("--max-entries", args.max_entries)):
        if value is not None and value < 0:
            raise ConfigError(f"{flag} must be 0 or more, not {value}")
    made = create(cfg, args.package, args.github, args.branch_template, args.import_name, args.upstream_path,
                  lines=args.lines, folder_min=FOLDER_MIN if args.folder_min is None else args.folder_min,
                  max_entries=MAX_ENTRIES if args.max_entries is None else args.max_entries)
    print(f"Created {_rel(made.path, cfg)}: {made.files} files, {made.entries} API entries "
          f"(import names: {', '.join(made.import_names)})")
    for r in made.reexported:
        print(f"  import name {r.name} added: {r.package} re-exported under that name ({r.paired} imports it as the "
              f"alternative of {r.package} itself); uses through it are audited as {r.package}'s")
    if made.folder_rows:
        print(f"  {made.rows} rows; one per folder for {', '.join(made.folder_rows)}")
    if made.omitted:
        print(f"  {made.omitted} less used APIs not catalogued (`check --select UNCATALOGUED` lists them)")
    if made.guards:
        print(f"  {made.guards} version guard{'s' if made.guards != 1 else ''} listed")
    if made.template_from is None:
        print(f"  branch_template: {made.branch_template} is a guess: check it against upstream's tag names")
    elif made.template_from != "--branch-template":
        print(f"  branch_template: {made.branch_template}, from {made.template_from}")
    if made.status_updated:
        print(f"Added a row to {cfg.status_file}")
    return 0


def ledger_place(f) -> str:
    """Where a ledger line says a finding is: its place in the code, else its checklist line."""
    if f.file:
        return f"{f.file}:{f.line}" if f.line else f.file
    return f"{f.checklist}:{f.checklist_line}"


def _audit(args: argparse.Namespace, cfg: config.Config) -> int:
    from upgrade_checklists.audit import fetch, pipeline as audit, summary
    from upgrade_checklists.core.atomic import write_atomic_any
    from upgrade_checklists.check.compare import read_project

    path = args.summary if args.summary is not None else cfg.root / "upgrade-summary.md"
    if not path.is_absolute():
        path = cfg.root / path
    path = _argument_path(path, cfg)  # checked before anything is fetched: a link leading out is an error at once
    try:
        cache_dir = fetch.audit_cache_dir(args.cache_dir, cfg.root)  # never a folder of the checkout
    except fetch.FetchError as exc:
        raise ConfigError(str(exc)) from None
    check = read_project(cfg, use_cache=not args.no_cache)  # the checklists and the code's imports: no comparison
    if not cfg.families and check.status_tables is not None and check.status_tables.families:
        cfg.families = check.status_tables.families  # the status file's Upgrade Families table
    auditor = audit.Auditor(cfg, check, source=args.source, cache_dir=cache_dir, timeout=args.timeout,
                            progress=audit.progress_printer())
    try:
        targets, notes = audit.plan(cfg, check.checklists, args.specs, args.from_version, args.base_ref, cache=auditor.store)
    except audit.AuditError as exc:
        raise ConfigError(str(exc)) from None
    from upgrade_checklists.project import staged

    notes = staged.notes(cfg.root, cfg.manifests) + notes  # which state of the manifests the audit sees
    result = auditor.run(targets)
    result.notes = notes + result.notes
    for note in notes:  # which versions are audited, and why: always said
        print(f"note: {printable(note)}", file=sys.stderr)
    introduced = {}
    if args.ledger:
        from upgrade_checklists.audit import ledger

        introduced = ledger.run(auditor, result)
    tables = check.status_tables
    docker = {row.package: row.docker for row in tables.matrix} if tables is not None and tables.has_matrix else None
    write_atomic_any(path, summary.render(result, requested=args.requested, docker=docker, tier_of=_tier_of(check),
                                          introduced=introduced, store=auditor.store))
    if auditor.store is not None:
        auditor.store.save()  # the summary's formatting, remembered
    if args.verbose:
        for note in result.notes[len(notes):]:
            print(f"note: {printable(note)}", file=sys.stderr)
    packages = [{"package": t.package, "old_version": t.old, "new_version": t.new, "source": t.source, "variants": t.variants,
                 "coverage": t.coverage} for t in result.targets]
    sys.stdout.write(report.render(result.findings, args.format, checklists=len(check.checklists),
                                   files_scanned=check.files_scanned, extra={"packages": packages},
                                   hide_info=not args.verbose))
    for f, release in introduced.items():
        print(printable(f"ledger: {ledger_place(f)}: {f.code} first appears in {release}"), file=sys.stderr)
    if args.ledger and not args.verbose:
        for note in result.notes:
            if ": ledger " in note:
                print(f"note: {printable(note)}", file=sys.stderr)
    fixed = _write_back(cfg, args, result) if args.fix else []
    for err in result.errors:
        print(f"upgrade-checklists: error: {printable(str(err))}", file=sys.stderr)
    print(f"Wrote {_rel(path, cfg)}", file=sys.stderr)
    if result.errors:
        return 2
    return 1 if result.breaking or fixed else 0


def _write_back(cfg: config.Config, args: argparse.Namespace, result) -> list[Path]:
    """``audit --fix``: the checklists' post-upgrade state, then the status counts; ``Fixing <path>`` each."""
    from upgrade_checklists.check import fix
    from upgrade_checklists.audit import writeback
    from upgrade_checklists.check.compare import run_check

    fixed: list[Path] = []
    for path, (_old, new) in sorted(writeback.plan(result).items()):
        fix.write_atomic(Path(files.inside(cfg.root, path, follow=False)), new)
        fixed.append(path)
    if cfg.status_file:
        again = run_check(cfg, use_cache=not args.no_cache)
        status = [f for f in again.findings if f.code == "STATUS"]
        for path, (_old, new) in sorted(fix.plan(again, cfg, status).items()):
            fix.write_atomic(Path(files.inside(cfg.root, path, follow=False)), new)
            if path not in fixed:
                fixed.append(path)
    for path in fixed:
        print(f"Fixing {printable(_rel(path, cfg))}")
    return fixed


def _argument_path(path: Path, cfg: config.Config) -> Path:
    """A file named on the command line (``--baseline``, ``--summary``), absolute. One in the
    repository must resolve inside it (a committed symlink, as a folder on the way, must not
    lead the read or the write out: :class:`files.Outside`); one outside the repository is
    the user's own choice and is used as given."""
    full = Path(os.path.abspath(path))
    root = os.path.abspath(cfg.root)
    if str(full).startswith(root.rstrip(os.sep) + os.sep):
        return Path(files.inside(root, str(full), follow=False))
    return full


def _selected(code: str, args: argparse.Namespace, cfg: config.Config) -> bool:
    """Whether an off-by-default code is asked for (``--select`` or the ``select`` key, ``ALL`` too)."""
    chosen = [c.strip().upper() for v in (getattr(args, "select", None) or []) for c in v.split(",")]
    chosen += [c.upper() for c in (getattr(cfg, "select", None) or [])]
    return code in chosen or "ALL" in chosen


def _root_relative(paths: list[str], cfg: config.Config) -> list[str]:
    """Path arguments (relative to the current directory) as paths relative to the
    configuration's root; a path that does not exist is a usage error."""
    out = []
    cwd = Path.cwd()
    for p in paths:
        full = cwd / p
        if not full.exists():
            raise ConfigError(f"{p}: no such file or directory")
        try:
            out.append(full.resolve().relative_to(cfg.root.resolve()).as_posix())
        except ValueError:
            continue  # outside the repository the configuration covers: concerns no checklist
    return out


def _tier_of(check):
    """A file's tier: the row that lists it, else where its location maps to."""
    listed = {row.file: row.tier for cl in check.checklists for row in cl.rows}

    def tier_of(path: str) -> str | None:
        if path in listed:
            return listed[path]
        return check.tiers.tier_of(path)[0] if check.tiers is not None else None
    return tier_of


def _rel(path: Path, cfg: config.Config) -> str:
    try:
        return path.relative_to(cfg.root).as_posix()
    except ValueError:
        return str(path)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
