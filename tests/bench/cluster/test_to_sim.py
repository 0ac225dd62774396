#!/usr/bin/python3
"""Owns the check of the bench-to-simulator conversion (to_sim.py) and of
the window arithmetic of the side-by-side (compare.py), on hand-made
files whose answers are worked out below.  `make bench-validate` runs it.

A workload of two projects and a zero-quota account:

  seq t      account gpus runtime tasks tag   nodes
  1   0.4    a       2    30      1     job   1
  2   1.6    b       1    20      3     array 1
  3   2.4    z       4    10      1     job   2

Submits round to 0, 2, 2: the trace's rows are a's job (interval 0),
b's three tasks at 2 (intervals 2, 0, 0) and z's job at 2 (interval 0),
two nodes of 4 GPUs: gpu_num 8, node_num 2.  first_submit_s 0; 5 jobs,
3 accounts.  The config: a and b renamed ua and ub, the department d
kept, b's accounts list [b, b-ci] renamed [ub, ub-ci], settings kept.

compare.py's windows: an alloc.tsv sampled at 0, 1, 3 with a holding 2, 4,
8 GPUs counts 2 x 1 + 4 x 2 = 10 GPU-s (the last sample for no time).
A --plot .dat of steps 0-2 s (x holds 3) and 2-4 s (x holds 1, y 2) with
its end row at 4 s, cut at 3 s: x 3 x 2 + 1 x 1 = 7, y 2 x 1 = 2."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402

PROJECTS = "a\t3\nb\t1\nz\t0\n"
SCHEDULE = ("1\t0.400\ta\t2\t30\t1\tjob\t1\n"
	    "2\t1.600\tb\t1\t20\t3\tarray\t1\n"
	    "3\t2.400\tz\t4\t10\t1\tjob\t2\n")
CONFIG = {"departments": [{"name": "d", "gpu_quota": 4}],
	  "projects": [{"name": "a", "gpu_quota": 3, "department": "d"},
		       {"name": "b", "gpu_quota": 1, "accounts": ["b", "b-ci"]},
		       {"name": "z", "gpu_quota": 0}],
	  "settings": {"reclaim_patience": 30}}
TRACE = ("u_id,user,gpu_num,cpu_num,node_num,interval,run_time,wall_time,new_status\n"
	 "0,a,2,0,1,0,30,30,Pass\n"
	 "1,b,1,0,1,2,20,20,Pass\n"
	 "2,b,1,0,1,0,20,20,Pass\n"
	 "3,b,1,0,1,0,20,20,Pass\n"
	 "4,z,8,0,2,0,10,10,Pass\n")
SIM_CONFIG = {"departments": [{"name": "d", "gpu_quota": 4}],
	      "projects": [{"name": "ua", "gpu_quota": 3, "department": "d"},
			   {"name": "ub", "gpu_quota": 1, "accounts": ["ub", "ub-ci"]},
			   {"name": "uz", "gpu_quota": 0}],
	      "settings": {"reclaim_patience": 30}}
META = {"first_submit_s": 0, "jobs": 5, "accounts": 3}
ALLOC = "t\ta\n0.0\t2\n1.0\t4\n3.0\t8\n"
DAT = ("# cfg: GPUs held, mean over steps of 2 s\n# hours total x y\n"
       "0.000000 3.000 3.000 0.000\n"
       "0.000556 3.000 1.000 2.000\n"
       "0.001111 3.000 1.000 2.000\n\n\n")


def convert(d, config):
	wl = os.path.join(d, "wl")
	os.makedirs(wl)
	for n, text in (("projects.tsv", PROJECTS), ("schedule.tsv", SCHEDULE)):
		with open(os.path.join(wl, n), "w") as f:
			f.write(text)
	if config:
		with open(os.path.join(wl, "gpuquota.json"), "w") as f:
			json.dump(config, f)
	out = os.path.join(d, "sim")
	subprocess.run([sys.executable, os.path.join(HERE, "to_sim.py"), "--work", wl, "--out", out],
		       check=True)
	got = {}
	with open(os.path.join(out, "trace.csv")) as f:
		got["trace"] = f.read()
	for n in ("gpuquota", "to_sim"):
		with open(os.path.join(out, n + ".json")) as f:
			got[n] = json.load(f)
	return got


def main():
	d = tempfile.mkdtemp(prefix="gq-bench-to-sim-test.")
	bad = []
	got = convert(os.path.join(d, "a"), CONFIG)
	if got["trace"] != TRACE:
		bad.append("trace.csv: expected\n%s  got\n%s" % (TRACE, got["trace"]))
	for n, want in (("gpuquota", SIM_CONFIG), ("to_sim", META)):
		if got[n] != want:
			bad.append("%s.json: expected %r, got %r" % (n, want, got[n]))
	# without the bench's gpuquota.json: projects.tsv's quotas alone
	plain = convert(os.path.join(d, "b"), None)["gpuquota"]
	want = {"projects": [{"name": "ua", "gpu_quota": 3}, {"name": "ub", "gpu_quota": 1},
			     {"name": "uz", "gpu_quota": 0}]}
	if plain != want:
		bad.append("gpuquota.json from projects.tsv: expected %r, got %r" % (want, plain))

	alloc = os.path.join(d, "alloc.tsv")
	with open(alloc, "w") as f:
		f.write(ALLOC)
	if compare.alloc_gpu_secs(alloc) != {"a": 10.0}:
		bad.append("alloc_gpu_secs: expected {'a': 10.0}, got %r" % compare.alloc_gpu_secs(alloc))
	dat = os.path.join(d, "x.dat")
	with open(dat, "w") as f:
		f.write(DAT + DAT)
	blocks = compare.read_dat(dat)
	held = [compare.series_gpu_secs(n, r, 3.0) for n, r in blocks]
	if len(held) != 2 or any(abs(h["x"] - 7) > 0.01 or abs(h["y"] - 2) > 0.01 for h in held):
		bad.append("series_gpu_secs cut at 3 s: expected x 7, y 2 in each of 2 blocks, got %r" % held)
	if compare.bench_name("uu3") != "u3" or compare.bench_name("a") != "a":
		bad.append("bench_name: the simulator's u prefix taken off once")
	if bad:
		print("test_to_sim: FAIL (work dir %s):\n  %s" % (d, "\n  ".join(bad)), file=sys.stderr)
		sys.exit(1)
	subprocess.run(["rm", "-rf", d], check=True)
	print("test_to_sim: PASS")


if __name__ == "__main__":
	main()
