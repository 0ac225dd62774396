#!/usr/bin/python3
"""Owns the check of the trace mapping: trace_workload.py on a hand-made
trace of six jobs whose answers are worked out below.  `make bench-cluster` runs it
before starting clusters.

A cluster of 2 nodes x 4 GPUs (C = 8), a submit window of 100 s (run times
clipped to 2-50 s), 2 projects, 1 zero-quota account, load 0.6 (480 of the
800 GPU-seconds), the stretch from row 1 (row 0 left out):

  row user gpu_num node_num interval run_time  shape            trace t
  1   7    2       1        500      1 000     2 GPUs, 1 node   0
  2   3    16      4        100      2 000     2 whole nodes    100
  3   7    8       1        300      40        4 GPUs (of 8)    400
  4   5    1       1        600      100 000   1 GPU            1 000
  5   6    1       1        0        10        1 GPU            1 000

Submit times: the span is 1 000 s, x0.1: 0, 10, 40, 100, 100.
Run times x b: rows 3 and 5 stay at the 2 s floor and row 4 at the 50 s
ceiling for any b near 0.02; offered = 2 r1 + 8 r2 + 4 x 2 + 50 + 2 with
r1 = round(1000 b), r2 = round(2000 b).  At r1 = 23, r2 = 46: 474 < 480;
r2 = 47 gives 482 >= 480: the smallest b is just above 46.5 / 2000 =
0.02325.  Run times 23, 47, 2, 50, 2; offered 482 (0.6025x).
Users by offered GPU-seconds: 3 (8 x 47 = 376), 7 (2 x 23 + 4 x 2 = 54),
5 (50), 6 (2).  Projects u3 and u7, quotas 8 x 376/430 = 6.995 and
8 x 54/430 = 1.005: floors 6 and 1, the GPU left to the larger remainder
(u3): 7 and 1.  Users 5 and 6 to z01."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import trace_workload  # noqa: E402

CSV = """u_id,user,gpu_num,cpu_num,node_num,interval,run_time,wall_time,new_status
0,9,1,0,1,0,100,0,Pass
1,7,2,0,1,500,1000,0,Pass
2,3,16,0,4,100,2000,0,Pass
3,7,8,0,1,300,40,0,Failed
4,5,1,0,1,600,100000,0,Killed
5,6,1,0,1,0,10,0,Pass
"""

PROJECTS = "u3\t7\nu7\t1\nz01\t0\n"
SCHEDULE = ("1\t0.000\tu7\t2\t23\t1\tjob\t1\n"
	    "2\t10.000\tu3\t4\t47\t1\tjob\t2\n"
	    "3\t40.000\tu7\t4\t2\t1\tjob\t1\n"
	    "4\t100.000\tz01\t1\t50\t1\tjob\t1\n"
	    "5\t100.000\tz01\t1\t2\t1\tjob\t1\n")
USERS = "3\tu3\t376\n7\tu7\t54\n5\tz01\t50\n6\tz01\t2\n"
ABOUT = ("jobs 1-5 (5 jobs", "submit times x0.1 (into 100 s)", "run times x0.02325 clipped to 2-50 s",
	 "offered 0.60x", "min(k, 2) whole nodes")


def run(d, csv_path):
	subprocess.run([sys.executable, os.path.join(HERE, "trace_workload.py"), "--trace", csv_path,
			"--start", "1", "--jobs", "5", "--nodes", "2", "--gpus", "4", "--projects", "2",
			"--zero", "1", "--seconds", "100", "--load", "0.6", "--out", d],
		       check=True, stderr=subprocess.DEVNULL)
	out = {}
	for n in ("projects.tsv", "schedule.tsv", "users.tsv", "about.txt"):
		with open(os.path.join(d, n)) as f:
			out[n] = f.read()
	return out


def main():
	d = tempfile.mkdtemp(prefix="gq-bench-trace-test.")
	csv_path = os.path.join(d, "trace.csv")
	with open(csv_path, "w") as f:
		f.write(CSV)
	got = run(os.path.join(d, "a"), csv_path)
	bad = []
	for n, want in (("projects.tsv", PROJECTS), ("schedule.tsv", SCHEDULE), ("users.tsv", USERS)):
		if got[n] != want:
			bad.append("%s: expected\n%s  got\n%s" % (n, want, got[n]))
	bad += ["about.txt: no '%s' in %r" % (x, got["about.txt"]) for x in ABOUT
		if x not in got["about.txt"]]
	if run(os.path.join(d, "b"), csv_path) != got:
		bad.append("a second run wrote other files")
	# at least 1 each: 4 x 1/101 floors to 0, the larger remainder is 100's
	# (4 x 100 mod 101 = 97): 0 and 4, then 1 taken from the larger
	if trace_workload.quotas([1, 100], 4) != [1, 3]:
		bad.append("quotas([1, 100], 4): expected [1, 3], got %r" % trace_workload.quotas([1, 100], 4))
	if trace_workload.shape(8, 1, 2, 4) != (4, 1) or trace_workload.shape(16, 4, 2, 4) != (4, 2):
		bad.append("shape: one node min(gpus, G), k nodes min(k, N) whole ones")
	if bad:
		print("test_trace: FAIL (work dir %s):\n  %s" % (d, "\n  ".join(bad)), file=sys.stderr)
		sys.exit(1)
	subprocess.run(["rm", "-rf", d], check=True)
	print("test_trace: PASS")


if __name__ == "__main__":
	main()
