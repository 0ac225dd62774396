#!/usr/bin/python3
"""Owns the check of validate.sh's plumbing without a bench run: a fake
bench work dir of the quick bench's shape (workload.py with
GQ_BENCH_QUICK's sizes: 4 nodes x 4 GPUs, 5 projects, 1 zero-quota
account, 150 submits over 120 s), a slurm.conf as scripts/cluster.sh
writes its nodes and AuthInfo, and the report's files with placeholder
figures (report.py's results.json, analyze.py's alloc.tsv): not a
measurement, only what the script reads.  `make bench-validate` runs it
(build/gpuquota is needed).

Checked: validate.sh exits 0, reads the shape (16 GPUs, the requeue delay
cred_expire 10 + 1), replays the bench's window (150 s) only, prints both tables with a row per project of
projects.tsv and the placeholder's figures where the bench's go (1 000
GPU-s held: 10 GPUs for 100 s; 7 requeues); the simulator held GPUs in
the window; without a run's alloc.tsv it fails naming that file."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))

CONF = ("ClusterName=gqfake\nAuthInfo=socket=/x/munge.sock,cred_expire=10\n"
	"SchedulerParameters=sched_interval=2,bf_interval=2\n"
	+ "".join("NodeName=n%d NodeAddr=127.0.0.1 Port=%d CPUs=4 Gres=gpu:4 RealMemory=1000 "
		  "State=UNKNOWN\n" % (i, 7000 + i) for i in range(1, 5))
	+ "PartitionName=gpu Nodes=n[1-4] Default=YES MaxTime=INFINITE State=UP\n")


def placeholder(projects):
	"""One round's analyze.py result: the keys compare.py reads."""
	return {"window_s": 150.0, "capacity": 16, "allocated_pct": 41.7,
		"idle_wait_gpu_s": 0.0, "requeues": 7, "lost_gpu_s": 0.0,
		"violation_s": {p: 0.0 for p in projects}}


def fake_bench(d):
	wl = os.path.join(d, "workload")
	subprocess.run([sys.executable, os.path.join(HERE, "workload.py"), "--seed", "1",
			"--nodes", "4", "--gpus", "4", "--projects", "5", "--zero", "1",
			"--jobs", "150", "--seconds", "120", "--out", wl], check=True)
	with open(os.path.join(wl, "projects.tsv")) as f:
		projects = [l.split()[0] for l in f if l.strip()]
	os.makedirs(os.path.join(d, "r1-gpuquota"))
	with open(os.path.join(d, "r1-gpuquota", "slurm.conf"), "w") as f:
		f.write(CONF)
	for s in ("stock", "gpuquota"):
		os.makedirs(os.path.join(d, "r1-%s.out" % s))
		with open(os.path.join(d, "r1-%s.out" % s, "alloc.tsv"), "w") as f:
			f.write("t\t" + "\t".join(projects) + "\n")
			# the first project holds 10 GPUs from 0 to 100 s: 1 000 GPU-s
			for t in (0, 100):
				f.write("%.1f\t10%s\n" % (t, "\t0" * (len(projects) - 1)))
	os.makedirs(os.path.join(d, "report"))
	with open(os.path.join(d, "report", "results.json"), "w") as f:
		json.dump({s: [placeholder(projects)] for s in ("stock", "gpuquota")}, f)
	return projects


def main():
	d = tempfile.mkdtemp(prefix="gq-bench-validate-test.")
	projects = fake_bench(d)
	r = subprocess.run([os.path.join(HERE, "validate.sh"), d], capture_output=True, text=True)
	bad = []
	if r.returncode != 0:
		bad.append("validate.sh exited %d: %s" % (r.returncode, r.stderr))
	if "4 nodes x 4 GPUs (4 CPUs), 11 s requeue delay, 193 jobs, the first 150 s" not in r.stderr:
		bad.append("no shape, delay, job count (150 submits, arrays as tasks) and window in %r"
			   % r.stderr)
	rows = {l.split("|")[1].strip(): l for l in r.stdout.splitlines() if l.startswith("| ")}
	if not rows.get("GPU-s held in the window", "").startswith("| GPU-s held in the window | 1000 |"):
		bad.append("bench gpuquota GPU-s held: expected 1000, got %r"
			   % rows.get("GPU-s held in the window"))
	req = rows.get("requeues", "")
	if req.count("| 7 |") != 2:
		bad.append("requeues: expected the bench's 7 under both systems, got %r" % req)
	held = rows.get("GPU-s held in the window", "| x | 0 | 0 |").split("|")
	if not held[3].strip().isdigit() or int(held[3]) <= 0:
		bad.append("simulate gpuquota held no GPU in the window: %r" % held)
	span = rows.get("span, s (bench: the window; simulate: its replay)", "| x | 0 | 0 |").split("|")
	if span[3].strip() != "150":
		bad.append("simulate gpuquota's replay not cut to the bench's 150 s window: %r" % span)
	per = [l for l in r.stdout.splitlines() if l.split("|")[1:2] and l.split("|")[1].strip() in projects]
	if len(per) != 2 * len(projects):
		bad.append("expected a row per project under each system, got %d" % len(per))
	if not os.path.exists(os.path.join(d, "validate", "validate.md")):
		bad.append("no validate/validate.md")
	missing = os.path.join(d, "r1-stock.out", "alloc.tsv")
	os.remove(missing)
	r = subprocess.run([os.path.join(HERE, "validate.sh"), d], capture_output=True, text=True)
	if r.returncode == 0 or missing not in r.stderr:
		bad.append("without %s: expected a failure naming it, got %d %r"
			   % (missing, r.returncode, r.stderr))
	if bad:
		print("test_validate: FAIL (work dir %s):\n  %s" % (d, "\n  ".join(bad)), file=sys.stderr)
		sys.exit(1)
	subprocess.run(["rm", "-rf", d], check=True)
	print("test_validate: PASS")


if __name__ == "__main__":
	main()
