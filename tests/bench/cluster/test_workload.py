#!/usr/bin/python3
"""Owns the check of workload.py's gangs shape: the same seed's default
rows, one regular job in ten a gang of 2-4 whole nodes, the rest
unchanged.  Run by `make bench-cluster` before it starts a cluster."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import schedule  # noqa: E402


def rows(shape, d):
	out = os.path.join(d, shape)
	subprocess.run([sys.executable, os.path.join(HERE, "workload.py"), "--seed", "3",
			"--nodes", "8", "--gpus", "4", "--jobs", "600", "--seconds", "300",
			"--shape", shape, "--out", out], check=True)
	return schedule.read(os.path.join(out, "schedule.tsv"))


def main():
	bad = []
	with tempfile.TemporaryDirectory() as d:
		mixed, gangs = rows("mixed", d), rows("gangs", d)
	if len(mixed) != len(gangs):
		bad.append("rows: %d mixed, %d gangs" % (len(mixed), len(gangs)))
	n = 0
	for m, g in zip(mixed, gangs):
		if g.nodes == 1:
			if m != g:
				bad.append("row %d changed: %r -> %r" % (m.seq, m, g))
			continue
		n += 1
		if not (2 <= g.nodes <= 4 and g.gpus == 4 and g.tasks == 1 and
			60 <= g.runtime <= 180 and (g.t, g.account) == (m.t, m.account) and
			m.tag == "job"):
			bad.append("gang %r of %r" % (g, m))
	jobs = sum(1 for m in mixed if m.tag == "job")
	if not 0.05 * jobs <= n <= 0.15 * jobs:
		bad.append("%d gangs of %d jobs, want about one in ten" % (n, jobs))
	for b in bad:
		print("test_workload: " + b, file=sys.stderr)
	print("test_workload: %s (%d gangs of %d jobs)" % ("FAIL" if bad else "PASS", n, jobs))
	return 1 if bad else 0


if __name__ == "__main__":
	sys.exit(main())
