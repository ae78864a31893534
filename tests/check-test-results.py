#!/usr/bin/env python3
"""What the tests did, read from the trx files `dotnet test --logger trx` wrote, and whether CI can accept it.

Usage: tests/check-test-results.py [--expected-skips FILE] TRX_DIR LISTING...

Each LISTING is what `dotnet test PROJECT --no-build --list-tests` printed for one test project: every case its
assembly holds, theory rows included. Prints, per assembly, the cases listed and what became of them, then the
skipped cases counted by reason, the slowest cases and classes (where CI's minutes go), and last a line "tests: N passed, N failed,
N skipped". Exits 1 when
  - an assembly reported fewer (or more) cases than it lists: a case that never ran is reported nowhere else;
  - a case failed, timed out or was aborted;
  - with --expected-skips, a case was skipped that no entry of FILE expects, or an entry expects a skip that did
    not happen (a stale entry hides the next skip of its kind).
FILE holds one entry a line: a Python regular expression searched for in the skipped case's full name, then " # ",
then why CI's machine cannot run it. Blank lines and lines starting with # are comments.
"""
import argparse
import collections
import pathlib
import re
import sys
import xml.etree.ElementTree as ET

MESSAGE_LINES = 12
SLOWEST = 12
TRX = "{http://microsoft.com/schemas/VisualStudio/TeamTest/2010}"


def listed_cases(listing):
    """(assembly, number of cases) from one --list-tests output."""
    text = listing.read_text()
    assembly = re.search(r"^Test run for (.+?\.dll)", text, re.M)
    if not assembly or "The following Tests are available:" not in text:
        sys.exit(f"{listing}: not the output of dotnet test --list-tests")
    cases = text.split("The following Tests are available:", 1)[1].splitlines()
    return pathlib.PurePath(assembly.group(1)).stem, sum(1 for line in cases if line.startswith("    "))


def results(trx_dir):
    """Every reported case as (assembly, name, outcome, message, seconds), from every trx file under trx_dir. A skip's
    message is its reason; a failure's ends with its stack trace."""
    files = sorted(pathlib.Path(trx_dir).glob("**/*.trx"))
    if not files:
        sys.exit(f"{trx_dir}: no trx file: did dotnet test run with --logger trx?")
    for trx in files:
        root = ET.parse(trx).getroot()
        assembly_of = {unit.get("id"): pathlib.PurePath(unit.find(f"{TRX}TestMethod").get("codeBase")).stem
                       for unit in root.iter(f"{TRX}UnitTest")}
        for result in root.iter(f"{TRX}UnitTestResult"):
            outcome = result.get("outcome")
            parts = ("Message",) if outcome in ("Passed", "NotExecuted") else ("Message", "StackTrace")
            error = [result.find(f"{TRX}Output/{TRX}ErrorInfo/{TRX}{part}") for part in parts]
            message = "\n".join((part.text or "").strip() for part in error if part is not None)
            yield assembly_of[result.get("testId")], result.get("testName"), outcome, message.strip(), seconds(result.get("duration"))


def seconds(duration):
    """A trx duration, "hh:mm:ss.fffffff", in seconds (0 where none is given)."""
    if not duration:
        return 0.0
    hours, minutes, rest = duration.split(":")
    return int(hours) * 3600 + int(minutes) * 60 + float(rest)


def expected_skips(path):
    entries = []
    for number, line in enumerate(pathlib.Path(path).read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        pattern, _, why = line.partition(" # ")
        if not why.strip():
            sys.exit(f"{path}:{number}: an expected skip needs its reason after ' # '")
        entries.append((re.compile(pattern.strip()), why.strip()))
    return entries


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--expected-skips")
    parser.add_argument("trx_dir")
    parser.add_argument("listings", nargs="+", type=pathlib.Path)
    args = parser.parse_args()

    listed = dict(listed_cases(listing) for listing in args.listings)
    by_assembly = collections.defaultdict(list)
    durations = []
    for assembly, name, outcome, message, took in results(args.trx_dir):
        by_assembly[assembly].append((name, outcome, message))
        durations.append((took, assembly, name))
    entries = expected_skips(args.expected_skips) if args.expected_skips else None

    problems = []
    failures = []
    totals = collections.Counter()
    skipped = []
    for assembly in sorted(set(listed) | set(by_assembly)):
        cases = by_assembly[assembly]
        outcomes = collections.Counter("passed" if o == "Passed" else "skipped" if o == "NotExecuted" else "failed"
                                       for _, o, _ in cases)
        totals.update(outcomes)
        print(f"{assembly}: {listed.get(assembly, 0)} cases listed, {len(cases)} reported: {outcomes['passed']} passed, "
              f"{outcomes['failed']} failed, {outcomes['skipped']} skipped")
        if len(cases) != listed.get(assembly, 0):
            problems.append(f"{assembly} lists {listed.get(assembly, 0)} cases and reported {len(cases)}")
        failed = [(name, outcome, message) for name, outcome, message in cases if outcome not in ("Passed", "NotExecuted")]
        problems += [f"failed ({outcome}): {name}" for name, outcome, _ in failed]
        failures += failed
        skipped += [(name, message) for name, outcome, message in cases if outcome == "NotExecuted"]

    if skipped:
        print("skipped, by reason:")
        for reason, count in collections.Counter(message or "(no reason given)" for _, message in skipped).most_common():
            print(f"  {count:4}  {reason}")
    print(f"slowest {SLOWEST} (each assembly runs its classes side by side, so these overlap):")
    for took, assembly, name in sorted(durations, reverse=True)[:SLOWEST]:
        print(f"  {took:7.1f} s  {assembly}: {name[:200]}")
    # A class runs its cases one after another, beside the other classes: the longest class bounds its assembly's time.
    by_class = collections.Counter()
    for took, assembly, name in durations:
        by_class[f"{assembly}: {name.split('(', 1)[0].rsplit('.', 1)[0]}"] += took
    print(f"slowest {SLOWEST} classes (their cases' time added up: a class runs its cases one at a time):")
    for name, took in by_class.most_common(SLOWEST):
        print(f"  {took:7.1f} s  {name}")
    if entries is not None:
        used = set()
        for name, message in skipped:
            match = next((i for i, (pattern, _) in enumerate(entries) if pattern.search(name)), None)
            if match is None:
                problems.append(f"skipped, and not expected on CI's machine: {name}: {message}")
            else:
                used.add(match)
        problems += [f"{args.expected_skips} expects a skip that did not happen: {entries[i][0].pattern} # {entries[i][1]}"
                     for i in range(len(entries)) if i not in used]

    # Why each case failed, shortened: CI keeps only this output, and a failure that cannot be read cannot be mended.
    for name, _, message in failures:
        print(f"why {name} failed:", file=sys.stderr)
        for line in (message or "(no message)").splitlines()[:MESSAGE_LINES]:
            print(f"    {line[:300]}", file=sys.stderr)
    for problem in problems:
        print(f"FAIL: {problem}", file=sys.stderr)
    print(f"tests: {totals['passed']} passed, {totals['failed']} failed, {totals['skipped']} skipped")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
