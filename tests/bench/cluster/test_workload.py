#!/usr/bin/python3
"""Owns the check of workload.py's gangs shape: the same seed's default
rows for every project but the four of largest quota, one regular job in
ten a gang of 2-4 whole nodes; those four submit gangs within their quota,
one after another.  Run by `make bench-cluster` before it starts a
cluster."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import schedule  # noqa: E402

GPUS = 4


def rows(shape, d):
	out = os.path.join(d, shape)
	subprocess.run([sys.executable, os.path.join(HERE, "workload.py"), "--seed", "3",
			"--nodes", "16", "--gpus", str(GPUS), "--projects", "6", "--zero", "1",
			"--jobs", "600", "--seconds", "300", "--shape", shape, "--out", out],
		       check=True)
	with open(os.path.join(out, "projects.tsv")) as f:
		quota = {n: int(q) for n, q in (l.split() for l in f if l.strip())}
	return schedule.read(os.path.join(out, "schedule.tsv")), quota


def check_gang_projects(gangs, quota, big, bad):
	"""Each of `big`: gangs alone, within its quota, one after another."""
	for name in big:
		mine = [g for g in gangs if g.account == name]
		if len(mine) < 2:
			bad.append("%s submits %d gangs" % (name, len(mine)))
		for a, b in zip(mine, mine[1:] + [None]):
			if not (2 <= a.nodes <= min(4, quota[name] // GPUS) and
				a.gpus == GPUS and a.tasks == 1 and a.tag == "job" and
				60 <= a.runtime <= 180):
				bad.append("gang project's row %r" % (a,))
			if b and b.t < a.t + a.runtime + 5 - 1e-3:
				bad.append("%s's gang at %.1f before %.1f + %d" %
					   (name, b.t, a.t, a.runtime))


def main():
	bad = []
	with tempfile.TemporaryDirectory() as d:
		(mixed, quota), (gangs, _) = rows("mixed", d), rows("gangs", d)
	big = [n for q, n in sorted((q, n) for n, q in quota.items()
				      if q >= 2 * GPUS and n != "burst")[-4:]]
	if len(big) != 4:
		bad.append("want four projects of quota >= %d, got %r" % (2 * GPUS, quota))
	check_gang_projects(gangs, quota, big, bad)
	mixed = [m for m in mixed if m.account not in big]
	rest = [g for g in gangs if g.account not in big]
	if len(mixed) != len(rest):
		bad.append("rows: %d mixed, %d gangs" % (len(mixed), len(rest)))
	n = 0
	for m, g in zip(mixed, rest):
		if g.nodes == 1:
			if m[1:] != g[1:]:
				bad.append("row %d changed: %r -> %r" % (m.seq, m, g))
			continue
		n += 1
		if not (2 <= g.nodes <= 4 and g.gpus == GPUS and g.tasks == 1 and
			60 <= g.runtime <= 180 and (g.t, g.account) == (m.t, m.account) and
			m.tag == "job"):
			bad.append("gang %r of %r" % (g, m))
	jobs = sum(1 for m in mixed if m.tag == "job")
	if not 0.05 * jobs <= n <= 0.15 * jobs:
		bad.append("%d gangs of %d jobs, want about one in ten" % (n, jobs))
	for b in bad:
		print("test_workload: " + b, file=sys.stderr)
	print("test_workload: %s (%d gangs of %d jobs; gang projects %s)" %
	      ("FAIL" if bad else "PASS", n, jobs, ", ".join(big)))
	return 1 if bad else 0


if __name__ == "__main__":
	sys.exit(main())
