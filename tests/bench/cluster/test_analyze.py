#!/usr/bin/python3
"""Owns the check of the benchmark's measures: analyze.py on a hand-made
run of two projects (a and b, quota 2 each, 4 GPUs) whose answers are
worked out below.  `make bench-cluster` runs it before starting clusters.

  t=100  a runs j1 (2) and j2 (2): a holds 4, quota 2; b nothing
  t=100.5 b submits j3 (2 GPUs): under quota, cluster full: a reclaim probe
  t=101  j3 pending (Resources): b below min(quota, demand) while a is
         over quota: 1 s of violation for b
  t=102  j2 requeued (pending, BeginTime; it ran from 99 to about 101.5:
         2 GPUs x 2.5 s = 5 GPU-s lost), j3 runs since 102 (latency 1.5 s)
  t=103  j2 eligible again; a holds its quota, so no violation
  t=104  j1 ended: 2 GPUs idle while j2 (2) waits: 2 GPU-s idle-waiting
  t=105  j2 runs; end of window
Allocated: 4, 4, 4, 4, 2 GPUs over the five seconds: 90 % of 4 GPUs."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

SAMPLES = {
	100: [("1", "j1", "a", "RUNNING", "99", "None"),
	      ("2", "j2", "a", "RUNNING", "99", "None")],
	101: [("1", "j1", "a", "RUNNING", "99", "None"),
	      ("2", "j2", "a", "RUNNING", "99", "None"),
	      ("3", "j3", "b", "PENDING", "N/A", "Resources")],
	102: [("1", "j1", "a", "RUNNING", "99", "None"),
	      ("2", "j2", "a", "PENDING", "N/A", "BeginTime"),
	      ("3", "j3", "b", "RUNNING", "102", "None")],
	103: [("1", "j1", "a", "RUNNING", "99", "None"),
	      ("2", "j2", "a", "PENDING", "N/A", "Resources"),
	      ("3", "j3", "b", "RUNNING", "102", "None")],
	104: [("2", "j2", "a", "PENDING", "N/A", "Resources"),
	      ("3", "j3", "b", "RUNNING", "102", "None")],
	105: [("2", "j2", "a", "RUNNING", "105", "None"),
	      ("3", "j3", "b", "RUNNING", "102", "None")],
}

EXPECT = {
	"idle_wait_gpu_s": 2.0,
	"allocated_pct": 90.0,
	"lost_gpu_s": 5.0,
	"requeues": 1,
	"reclaim_s.p50": 1.5,
	"reclaim_s.n": 1,
	"violation_s.b": 1.0,
	"violation_s.a": 0.0,
	"violation_total_s": 1.0,
	"violation_grace_total_s": 0.0,
	"lock_us.p99": 300.0,
	"pass_us.max": 2000.0,
	"cpu_s": 3.5,
	"squeue_s.p50": 0.2,
	"burst_sbatch_per_s": None,
}


def get(r, path):
	for k in path.split("."):
		r = r[k]
	return r


def main():
	d = tempfile.mkdtemp(prefix="gq-bench-selftest.")
	wl, run = os.path.join(d, "wl"), os.path.join(d, "run")
	os.makedirs(wl)
	os.makedirs(run)
	with open(os.path.join(wl, "projects.tsv"), "w") as f:
		f.write("a\t2\nb\t2\n")
	with open(os.path.join(wl, "schedule.tsv"), "w") as f:
		f.write("1\t0.0\ta\t2\t60\t1\tjob\n2\t0.0\ta\t2\t60\t1\tjob\n"
			"3\t0.5\tb\t2\t60\t1\tjob\n")
	with open(os.path.join(run, "samples.txt"), "w") as f:
		for t, rows in sorted(SAMPLES.items()):
			f.write("S\t%d.000\t%d.000\t%d\n" % (t, t, len(rows)))
			for jid, name, acct, state, start, reason in rows:
				f.write("\t".join((jid, name, acct, "normal", state, start, reason)) + "\n")
	with open(os.path.join(run, "submits.tsv"), "w") as f:
		f.write("1\t0.000\t-1.000\t-0.900\t0\t1\t-\ta\t2\t1\tjob\t\n")
		f.write("2\t0.000\t-0.900\t-0.800\t0\t2\t-\ta\t2\t1\tjob\t\n")
		f.write("3\t0.500\t0.500\t0.600\t0\t3\t-\tb\t2\t1\tjob\t\n")
	with open(os.path.join(run, "squeue_latency.txt"), "w") as f:
		f.write("0.1\n0.2\n0.3\n")
	with open(os.path.join(run, "passes.json"), "w") as f:
		json.dump({"file_seen": True, "passes": [
			{"at": 101.0, "pass_us": 1000, "lock_hold_us": 100},
			{"at": 103.0, "pass_us": 2000, "lock_hold_us": 300}]}, f)
	with open(os.path.join(run, "ctld.json"), "w") as f:
		json.dump({"system": "gpuquota", "t0": 100.0, "t1": 105.0, "t_submitted": 100.6,
			   "cpu_s": 3.5, "vmhwm_kib": 1024, "sdiag": {"main_mean_cycle": 10}}, f)
	subprocess.run([sys.executable, os.path.join(HERE, "analyze.py"),
			"--work", wl, "--run", run], check=True)
	with open(os.path.join(run, "result.json")) as f:
		r = json.load(f)
	bad = []
	for k, want in EXPECT.items():
		got = get(r, k)
		if want is None:
			ok = got is None
		else:
			ok = got is not None and abs(got - want) < 1e-6
		if not ok:
			bad.append("%s: expected %s, got %s" % (k, want, got))
	if bad:
		print("test_analyze: FAIL (work dir %s):\n  %s" % (d, "\n  ".join(bad)), file=sys.stderr)
		sys.exit(1)
	subprocess.run(["rm", "-rf", d], check=True)
	print("test_analyze: PASS")


if __name__ == "__main__":
	main()
