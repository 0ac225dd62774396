#!/usr/bin/python3
"""Owns one measured run: replays the submit schedule (workload.py) against
a running cluster at the scheduled times, with the sampler and the pass
poller beside it, and brackets the window with sdiag and /proc readings.

  replay.py --work DIR --system stock|gpuquota|multifactor --state STATEDIR
            --ctld-pid PID --out OUTDIR [--tail SECS] [--workers N]
            [--gpuquota PATH]

Submits with `sbatch --parsable -J j<seq> -A <account> [-N <nodes>]
--gres=gpu:<g> [--array=0-<k-1>] -o /dev/null --wrap 'sleep <runtime>'`
(a checkpointing job's script runs `gpuquota checkpoint` every ckpt
seconds of its run time, on either system: stock keeps the note and
cannot choose by it)
(g per node; -N for a job of more nodes than one) from N worker
threads (each takes the next entry and submits it at its time, or at once
when late).  Stock: the QOS is chosen the way a site's job_submit rule
would: q-<account> while the account's running + pending GPUs in that QOS
(the sampler's last squeue, plus this driver's submits since) plus the
job's fit its quota, else scavenger; zero-quota accounts always scavenger.
After the window (its readings taken), a submit storm: --storm N held
submits (`sbatch --hold`, 1 GPU, a zero-quota account; stock: its
scavenger QOS) from the --workers threads as fast as they return, into the
cluster as the window left it; then cancelled.  Held, they never run nor
change a share: the storm times the submit path alone.
Writes OUTDIR/submits.tsv (its gpus: a task's, over all its nodes),
samples.txt, squeue_latency.txt, passes.json, ctld.json, storm.json
({"submits", "failed", "seconds"})."""
import argparse
import json
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ctld_stats  # noqa: E402
import schedule  # noqa: E402
from passes import PassPoller  # noqa: E402
from sampler import Sampler  # noqa: E402


def work(rt, ckpt, gpuquota):
	"""A job's batch script: sleep its run time; a checkpointing job notes a
	checkpoint (`gpuquota checkpoint`) every ckpt seconds of it."""
	if not ckpt:
		return "sleep %d" % rt
	return ("s=$(date +%%s); while :; do n=$((%d - $(date +%%s) + s)); "
		"[ $n -le 0 ] && break; [ $n -gt %d ] && n=%d; sleep $n; "
		"%s checkpoint >/dev/null 2>&1; done" % (rt, ckpt, ckpt, gpuquota))


def load(work):
	quota = {}
	with open(os.path.join(work, "projects.tsv")) as f:
		for line in f:
			n, q = line.split()
			quota[n] = int(q)
	return quota, schedule.read(os.path.join(work, "schedule.tsv"))


class Router:
	"""Stock only: q-<acct> or scavenger, as a job_submit rule would."""

	def __init__(self, quota, gpus_of, sampler):
		self.quota = quota
		self.gpus_of = gpus_of
		self.sampler = sampler
		self.lock = threading.Lock()
		self.recent = {}	# job name -> (acct, gpus, t_ret or None) of q-<acct> submits

	def route(self, name, acct, gpus):
		q = self.quota.get(acct, 0)
		if q <= 0:
			return "scavenger"
		with self.sampler.lock:
			snap_t, snap = self.sampler.snap_t, self.sampler.snap
		used = 0
		seen = set()
		for jobid, jname, a, qos, state in snap:
			seen.add(jname)
			if a == acct and qos == "q-" + acct:
				used += self.gpus_of.get(jname, 0)
		with self.lock:
			# this driver's q-<acct> submits the snapshot does not show yet
			for n, (a, g, tr) in list(self.recent.items()):
				if n in seen or (tr is not None and tr < snap_t - 30):
					del self.recent[n]
				elif a == acct:
					used += g
			if used + gpus <= q:
				self.recent[name] = (acct, gpus, None)
				return "q-" + acct
		return "scavenger"

	def done(self, name, t_ret):
		with self.lock:
			if name in self.recent:
				a, g, _ = self.recent[name]
				self.recent[name] = (a, g, t_ret)


def sbatch(opts, qos):
	"""`sbatch --parsable [--qos=QOS] OPTS`, timed: (result, call, return)."""
	cmd = ["sbatch", "--parsable"] + (["--qos=" + qos] if qos else []) + opts
	tc = time.time()
	r = subprocess.run(cmd, capture_output=True, text=True)
	return r, tc, time.time()


def storm(n, workers, accounts, qos):
	"""n held submits from `workers` threads as fast as they return; the
	jobs cancelled after.  Returns {"submits", "failed", "seconds"}: from
	the first call to the last return."""
	nxt, lock, calls, rets, failed = [0], threading.Lock(), [], [], [0]
	acct = sorted(accounts)[0]

	def worker():
		while True:
			with lock:
				if nxt[0] >= n:
					return
				nxt[0] += 1
			r, tc, tr = sbatch(["--hold", "-J", "storm", "-A", acct, "--gres=gpu:1",
					    "-o", "/dev/null", "--wrap", "sleep 1"], qos)
			with lock:
				calls.append(tc)
				rets.append(tr)
				failed[0] += r.returncode != 0

	if n <= 0:
		return {"submits": 0, "failed": 0, "seconds": None}
	threads = [threading.Thread(target=worker) for _ in range(workers)]
	for th in threads:
		th.start()
	for th in threads:
		th.join()
	subprocess.run(["scancel", "--name=storm"], capture_output=True)
	return {"submits": n, "failed": failed[0], "seconds": max(rets) - min(calls)}


def main():
	ap = argparse.ArgumentParser()
	ap.add_argument("--work", required=True)
	ap.add_argument("--system", choices=("stock", "gpuquota", "multifactor"), required=True)
	ap.add_argument("--state", required=True)
	ap.add_argument("--ctld-pid", type=int, required=True)
	ap.add_argument("--out", required=True)
	ap.add_argument("--tail", type=float, default=60)
	ap.add_argument("--workers", type=int, default=4)
	ap.add_argument("--storm", type=int, default=400)
	ap.add_argument("--gpuquota", default="gpuquota",
			help="the gpuquota command checkpointing jobs run")
	a = ap.parse_args()
	quota, sched = load(a.work)
	gpus_of = schedule.gpus_of(sched)
	os.makedirs(a.out, exist_ok=True)

	sampler = Sampler(os.path.join(a.out, "samples.txt"))
	poller = PassPoller(os.path.join(a.state, "gpuquota-metrics.json"))
	router = Router(quota, gpus_of, sampler) if a.system == "stock" else None
	sampler.start()
	poller.start()
	time.sleep(2.5)		# a first snapshot before routing needs one

	ctld_stats.sdiag_reset()
	p0 = ctld_stats.proc(a.ctld_pid)
	t0 = time.time()
	nxt = [0]
	lock = threading.Lock()
	results = []
	time_limits = os.environ.get("GQ_BENCH_TIME_LIMITS", "0") == "1"

	def worker():
		while True:
			with lock:
				i = nxt[0]
				if i >= len(sched):
					return
				nxt[0] += 1
			seq, t, acct, g, rt, k, tag, n, ckpt = sched[i]
			delay = t0 + t - time.time()
			if delay > 0:
				time.sleep(delay)
			qos = router.route("j%d" % seq, acct, g * n * k) if router else None
			opts = ["-J", "j%d" % seq, "-A", acct, "--gres=gpu:%d" % g,
				"-o", "/dev/null", "--wrap", work(rt, ckpt, a.gpuquota)]
			if n > 1:
				opts[:0] = ["-N", str(n)]
			if k > 1:
				opts.insert(0, "--array=0-%d" % (k - 1))
			if time_limits:	# its run time + 30 s, in minutes
				opts.insert(0, "--time=%d" % ((rt + 30 + 59) // 60))
			r, tc, tr = sbatch(opts, qos)
			if router:
				router.done("j%d" % seq, tr)
			jobid = r.stdout.strip().split(";")[0] if r.returncode == 0 else ""
			err = r.stderr.strip().replace("\n", " ").replace("\t", " ")
			with lock:
				results.append((seq, t, tc - t0, tr - t0, r.returncode, jobid,
						qos or "-", acct, g * n, k, tag, err[:200]))

	threads = [threading.Thread(target=worker) for _ in range(a.workers)]
	for th in threads:
		th.start()
	for th in threads:
		th.join()
	t_sub = time.time()
	end = max(t0 + sched[-1][1], t_sub) + a.tail
	while time.time() < end:
		time.sleep(0.5)
	t1 = time.time()
	p1 = ctld_stats.proc(a.ctld_pid)
	sd = ctld_stats.sdiag()
	sampler.stop.set()
	poller.stop.set()
	sampler.join()
	poller.join()

	results.sort()
	with open(os.path.join(a.out, "submits.tsv"), "w") as f:
		for r in results:
			f.write("%d\t%.3f\t%.3f\t%.3f\t%d\t%s\t%s\t%s\t%d\t%d\t%s\t%s\n" % r)
	with open(os.path.join(a.out, "squeue_latency.txt"), "w") as f:
		f.write("".join("%.4f\n" % x for x in sampler.latency))
	with open(os.path.join(a.out, "passes.json"), "w") as f:
		json.dump({"file_seen": poller.seen_file,
			   "passes": [{"at": p[0], "pass_us": p[1], "lock_hold_us": p[2], "lock_cpu_us": p[3],
				       "rehold": p[4], "read_hold_us": p[5], "tries": p[6], "read_cpu_us": p[7]}
				      for p in poller.window(t0, t1)]}, f)
	with open(os.path.join(a.out, "ctld.json"), "w") as f:
		json.dump({"system": a.system, "t0": t0, "t1": t1, "t_submitted": t_sub,
			   "cpu_s": p1["cpu_s"] - p0["cpu_s"], "vmhwm_kib": p1["vmhwm_kib"],
			   "sdiag": sd}, f, indent=1)
	st = storm(a.storm, a.workers, [n for n, q in quota.items() if q == 0] or sorted(quota),
		   "scavenger" if router else None)
	with open(os.path.join(a.out, "storm.json"), "w") as f:
		json.dump(st, f)
	bad = sum(1 for r in results if r[4] != 0)
	print("replay: %s: %d submits (%d failed) in %.0f s, window %.0f s"
	      % (a.system, len(results), bad, t_sub - t0, t1 - t0), file=sys.stderr)


if __name__ == "__main__":
	main()
