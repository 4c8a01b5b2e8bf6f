#!/usr/bin/env python3
"""Files perf/results/ by run and regenerates its index. Idempotent: rerun it after adding records.

A record is written as `<device>-<YYYY-MM-DD>-<sha>-<what>` (perf/run_gpu.sh, README recipes), or
older, without a sha (`h200-2026-11-30.csv`) or with the sha later in the name
(`h200-2026-11-30-ncu-dgemm-4096-373c650.txt`). Each file moves, name unchanged, into the folder of its
run, `<YYYY-MM-DD>-<device>-<sha>/` (`<YYYY-MM-DD>-<device>/` when the name has no sha); the names stay
whole so that a citation of a file name (`-edc0727-hmma-sweep.txt`) still finds it with
`git ls-files '*-edc0727-hmma-sweep.txt'`. Tracked files move with `git mv`, so history follows.

Then every `perf/results/<old name>` in the repository's tracked text (sources, scripts, Markdown;
not the records' raw .txt/.csv/.json, which stay as they were recorded) becomes
`perf/results/<folder>/<old name>`, and perf/results/INDEX.md is rewritten: one line per run, newest
first, what it recorded, linking the folder.

    scripts/results_layout.py            # move, fix references, write INDEX.md
    scripts/results_layout.py --check    # exit 1 if anything would change (moves, references, index)
"""
import argparse
import os
import re
import subprocess
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "perf", "results")
INDEX = "INDEX.md"
# Hand-written files of the folder itself; everything else at the top level is a record.
KEEP_AT_TOP = {"README.md", INDEX}

NAME = re.compile(r"^(?P<device>[a-z0-9]+)-(?P<date>\d{4}-\d{2}-\d{2})(?P<rest>[-.].*)?$")
SHA = re.compile(r"^[0-9a-f]{7,40}$")
FOLDER = re.compile(r"^(?P<date>\d{4}-\d{2}-\d{2})-(?P<device>[a-z0-9]+)(?:-(?P<sha>[0-9a-f]{7,40}))?$")
# A citation in the old, flat form: perf/results/<device>-<date>... (the new form starts with the date).
OLD_REF = re.compile(r"perf/results/([a-z0-9]*[a-z][a-z0-9]*-\d{4}-\d{2}-\d{2}[A-Za-z0-9._-]*)")
# Records are left as recorded; only these kinds of tracked files have their citations rewritten.
TEXT_EXT = (".md", ".hpp", ".cpp", ".h", ".c", ".cu", ".py", ".sh", ".txt", ".cmake", ".in")


def run_folder(name):
    """The run folder of a record's file name, or None for a name that is not a record's."""
    m = NAME.match(name)
    if not m:
        return None
    rest = m.group("rest") or ""
    sha = None
    for token in re.split(r"[-.]", rest):
        if SHA.match(token):
            sha = token
            break
    folder = m.group("date") + "-" + m.group("device")
    return folder + "-" + sha if sha else folder


def git(*args, check=True):
    return subprocess.run(["git", "-C", ROOT, *args], check=check, capture_output=True, text=True)


def tracked(path):
    return git("ls-files", "--error-unmatch", path, check=False).returncode == 0


def plan_moves():
    moves = []
    for name in sorted(os.listdir(RESULTS)):
        path = os.path.join(RESULTS, name)
        if name in KEEP_AT_TOP or not os.path.isfile(path):
            continue
        folder = run_folder(name)
        if folder is None:
            print(f"results_layout: left at the top (not a record's name): {name}", file=sys.stderr)
            continue
        moves.append((name, folder))
    return moves


def do_moves(moves):
    for name, folder in moves:
        src = os.path.join(RESULTS, name)
        dst_dir = os.path.join(RESULTS, folder)
        dst = os.path.join(dst_dir, name)
        if os.path.exists(dst):
            sys.exit(f"results_layout: {dst} exists already; not overwriting it with {src}")
        os.makedirs(dst_dir, exist_ok=True)
        if tracked(src):
            git("mv", src, dst)
        else:
            os.rename(src, dst)


def rewrite_refs(text):
    """Old flat citations -> folder paths; the folder must exist, so a typo stays visible."""

    def sub(m):
        name = m.group(1)
        folder = run_folder(name)
        if folder is None or not os.path.isdir(os.path.join(RESULTS, folder)):
            return m.group(0)
        return "perf/results/" + folder + "/" + name

    return OLD_REF.sub(sub, text)


def ref_files():
    out = []
    for rel in git("ls-files").stdout.splitlines():
        if not rel.endswith(TEXT_EXT) and "/" in rel and not rel.startswith("scripts/"):
            continue
        # The records' own raw output (.txt/.csv/.json under perf/results) is left as recorded.
        if rel.startswith("perf/results/") and not rel.endswith(".md"):
            continue
        path = os.path.join(ROOT, rel)
        if os.path.isfile(path) and not os.path.islink(path):
            out.append(path)
    return out


def fix_refs(apply):
    changed = []
    for path in ref_files():
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, OSError):
            continue
        new = rewrite_refs(text)
        if new != text:
            changed.append(os.path.relpath(path, ROOT))
            if apply:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(new)
    return changed


def commit_time(sha):
    r = git("log", "-1", "--format=%ct", sha, "--", check=False)
    return int(r.stdout.strip()) if r.returncode == 0 and r.stdout.strip() else None


def describe(folder, files):
    """The run's README headings (what the recorder said it was), then its files, grouped."""
    titles = []
    for f in files:
        if f.endswith("README.md"):
            with open(os.path.join(RESULTS, folder, f), encoding="utf-8", errors="replace") as fh:
                first = fh.readline().strip()
            if first.startswith("#"):
                titles.append(first.lstrip("#").strip())
    m = FOLDER.match(folder)
    prefix = m.group("device") + "-" + m.group("date") + "-" + (m.group("sha") + "-" if m.group("sha") else "")
    groups = defaultdict(list)
    for f in files:
        what = f[len(prefix):] if f.startswith(prefix) else f
        stem, dot, ext = what.partition(".")
        groups[stem].append(ext)
    parts = []
    for stem in sorted(groups):
        exts = sorted(e for e in groups[stem] if e)
        if len(exts) > 1:
            parts.append(stem + ".{" + ",".join(exts) + "}")
        else:
            parts.append(stem + ("." + exts[0] if exts else ""))
    return titles, parts


def index_text():
    runs = []
    for folder in os.listdir(RESULTS):
        m = FOLDER.match(folder)
        if not m or not os.path.isdir(os.path.join(RESULTS, folder)):
            continue
        files = sorted(os.listdir(os.path.join(RESULTS, folder)))
        sha = m.group("sha")
        t = commit_time(sha) if sha else None
        # Newest first: by date, then by the commit's time where the sha is in this repository.
        runs.append(((m.group("date"), t if t is not None else -1, folder), folder, m, files))
    runs.sort(reverse=True)
    lines = [
        "# Recorded runs",
        "",
        "Generated by `scripts/results_layout.py` (rerun it after adding records; do not edit by hand).",
        "One folder per run, `<date>-<device>-<sha>/`; file names inside are unchanged. What a record",
        "holds and how to make one: [README.md](README.md). Newest first.",
        "",
        "## Latest per device",
        "",
    ]
    seen = set()
    for _, folder, m, files in runs:
        if m.group("device") in seen:
            continue
        seen.add(m.group("device"))
        lines.append(f"- {m.group('device')}: [{folder}]({folder}/)")
    lines += ["", "## All runs", ""]
    for _, folder, m, files in runs:
        titles, parts = describe(folder, files)
        what = "; ".join(titles) + (" — " if titles else "") + ", ".join(parts)
        lines.append(f"- [{folder}]({folder}/): {what}")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 if a rerun would")
    args = ap.parse_args()
    moves = plan_moves()
    if args.check:
        stale = [f"move {n} -> {f}/" for n, f in moves]
        stale += [f"reference to fix in {p}" for p in fix_refs(apply=False)]
        idx = os.path.join(RESULTS, INDEX)
        old = open(idx, encoding="utf-8").read() if os.path.exists(idx) else ""
        if not moves and old != index_text():
            stale.append("INDEX.md is out of date")
        print("\n".join(stale) if stale else "perf/results is laid out")
        return 1 if stale else 0
    do_moves(moves)
    changed = fix_refs(apply=True)
    with open(os.path.join(RESULTS, INDEX), "w", encoding="utf-8") as f:
        f.write(index_text())
    print(f"results_layout: moved {len(moves)} file(s); fixed references in {len(changed)} file(s)"
          + (": " + ", ".join(changed) if changed else "") + "; wrote perf/results/INDEX.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
