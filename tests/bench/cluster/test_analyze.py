#!/usr/bin/python3
"""Owns the check of the benchmark's measures: analyze.py on a hand-made
run of two projects (a and b, quota 2 each, 4 GPUs) whose answers are
worked out below.  `make bench-cluster` runs it before starting clusters.

  t=100  a runs j1 (2) and j2 (2): a holds 4, quota 2; b nothing
  t=100.5 b submits j3 (2 GPUs): under quota, cluster full: a reclaim probe
  t=100.49 b calls sbatch for j4 (2 GPUs) first, but slurmctld takes j3 in
         first (job ids 3, 4): in b's queue j4 comes after j3, past b's
         quota, so it is no probe, and j3 is (counted by call time, j3
         would have been none and j4 a probe that never started)
  t=101  j3 pending (Resources): b below min(quota, demand) while a is
         over quota: 1 s of violation for b
  t=102  j2 requeued (pending, BeginTime; it ran from 99 to about 101.5,
         checkpointing every 2 s: its last at 101, 2 GPUs x 0.5 s = 1 GPU-s
         lost, 5 without checkpoints), j3 runs since 102 (latency 1.5 s)
  t=103  j2 eligible again; a holds its quota, so no violation
  t=104  j1 ended: 2 GPUs idle while j2 (2) waits: 2 GPU-s idle-waiting
  t=105  j2 runs; end of window
Allocated: 4, 4, 4, 4, 2 GPUs over the five seconds: 90 % of 4 GPUs.

Then the measures of issue 47's targets (test_targets, worked out there)
and the causes episodes.py gives violation episodes (test_episodes), on
hand-made samples and log lines whose answers are worked out there."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import episodes  # noqa: E402

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
	"lost_gpu_s": 1.0,
	"requeues": 1,
	"lost_ckpt_gpu_s": 1.0,
	"requeues_ckpt": 1,
	"reclaim_s.p50": 1.5,
	"reclaim_s.n": 1,
	"violation_s.b": 1.0,
	"violation_s.a": 0.0,
	"violation_total_s": 1.0,
	"violation_grace_total_s": 0.0,
	"lock_us.p99": 300.0,
	"lock_cpu_us.p50": 80.0,
	"pass_us.max": 2000.0,
	"cpu_s": 3.5,
	"squeue_s.p50": 0.2,
	"burst_sbatch_per_s": None,
}


def get(r, path):
	for k in path.split("."):
		r = r[k]
	return r


def row(jid, acct, state, gpus, reason="None", start=None, node=None, prio=None):
	return {"id": jid, "name": "j" + jid.partition("_")[0], "acct": acct, "state": state,
		"start": start, "reason": reason, "gpus": gpus, "node": node, "prio": prio}


IQ_A = "None, gpuquota: in quota (a would hold 4 of 4)"
OFS_A = "Priority, gpuquota: over fair share, runs on idle GPUs only (a would hold 9, quota 4, fair share 4.0)"


def cause(run, rows, t=100.0, seen=None):
	"""The cause episodes.py gives project a's violation in one sample."""
	seen = seen or episodes.Seen()
	seen.update(t, rows)
	alloc = sum(r["gpus"] for r in rows if r["acct"] == "a" and r["state"] == "RUNNING")
	fits = [r for r in rows if r["acct"] == "a" and r["state"] == "PENDING"
		and alloc + r["gpus"] <= run.quota["a"]]
	return episodes.classify(run, "a", t, rows, fits, seen)


def test_episodes():
	"""Two nodes of 4 GPUs; a (quota 4), b (quota 2), c (quota 4).  b runs
	b1 (1 GPU, started at 10) and b2 (1 GPU, at 20) on n1 and b3 (2 GPUs,
	at 30) on n2: it holds 4, 2 over its quota.  c runs c1 (2 GPUs) on
	each node: at its quota.  The cluster is full."""
	log = ["[2026-11-30T22:00:00.500] sched: Allocate JobId=11 NodeList=n1 #CPUs=1 Partition=gpu",
	       "[2026-11-30T22:00:00.600] sched/backfill: _start_job: Started JobId=12 in gpu on n1",
	       "[2026-11-30T22:00:00.700] sched/backfill: _start_job: Started JobId=13 in gpu on n2",
	       "[2026-11-30T22:00:00.800] sched: Allocate JobId=14 NodeList=n1 #CPUs=1 Partition=gpu",
	       "[2026-11-30T22:00:00.900] sched: Allocate JobId=15_0(16) NodeList=n2 #CPUs=1 Partition=gpu"]
	starts, reclaims = episodes.read_log(log)
	t0 = starts["11"][0][0]
	bad = []

	def check(what, got, want):
		if got != want:
			bad.append("%s: expected %r, got %r" % (what, want, got))

	check("log: array task by both ids", (starts["15_0"][0][1], starts["16"][0][1]), ("n2", "n2"))
	check("log: time", round(starts["12"][0][0] - t0, 3), 0.1)
	run = episodes.Run({"a": 4, "b": 2, "c": 4}, ["a", "b", "c"], 4, 2, starts, reclaims)
	t = t0 + 100
	full = [row("11", "b", "RUNNING", 1, start=10), row("12", "b", "RUNNING", 1, start=20),
		row("13", "b", "RUNNING", 2, start=30), row("14", "c", "RUNNING", 2, start=5),
		row("15_0", "c", "RUNNING", 2, start=5)]
	# room on one node: n1 has b1 + b2 = 2 within b's 2 over quota, n2
	# has b3 (2) = 2: at most 2, fewer than a's 4-GPU in-quota job needs
	check("room", episodes.best_room(full, run.quota, "a", 4, 2, starts, t), 2)
	check("no room", cause(run, full + [row("20", "a", "PENDING", 4, IQ_A)], t)[0],
	      "no room on one node")
	# youngest first within the budget, one node: b (quota 1) runs b5 (1
	# GPU, started at 50) and b6 (2 GPUs, at 40), c 1: b is 2 over; b5 goes
	# first, then b6 (2) no longer fits: 1 GPU of room, not 2
	one = [row("11", "b", "RUNNING", 1, start=50), row("12", "b", "RUNNING", 2, start=40),
	       row("14", "c", "RUNNING", 1, start=5)]
	check("youngest first", episodes.best_room(one, {"a": 4, "b": 1, "c": 4}, "a", 4, 1,
						   starts, t), 1)
	# a job on two nodes (n[1-2]) holds half its GPUs on each: b (quota 2)
	# runs 40 (2 x 2 GPUs), c 2 GPUs on each node: full.  b is 2 over its
	# quota, 40 costs 4: no room; with b's quota 0, 40 goes: 2 on each node,
	# room for a's job of 2 x 2 GPUs, not for one of 2 x 4
	check("node list", episodes.hostnames("n[1-2,5],n7"), ["n1", "n2", "n5", "n7"])
	two = [row("40", "b", "RUNNING", 4, start=60, node="n[1-2]"),
	       row("41", "c", "RUNNING", 2, start=5, node="n1"), row("42", "c", "RUNNING", 2, start=5, node="n2")]
	check("two nodes, over budget", episodes.node_rooms(two, {"a": 4, "b": 2, "c": 4}, "a", 4, 2, starts, t),
	      [0, 0])
	rooms = episodes.node_rooms(two, {"a": 4, "b": 0, "c": 4}, "a", 4, 2, starts, t)
	check("two nodes", rooms, [2, 2])
	check("room on two nodes", episodes.no_room(rooms, dict(row("43", "a", "PENDING", 4), nodes=2)), False)
	check("no room on two nodes", episodes.no_room(rooms, dict(row("43", "a", "PENDING", 8), nodes=2)), True)
	# the same 2-GPU job fits: it has room; just in quota: latency; 5 s on, still
	# no reclaim logged for it: flagged
	seen = episodes.Seen()
	job = [row("21", "a", "PENDING", 2, IQ_A)]
	check("latency", cause(run, full + job, t, seen)[0], "pass and cycle latency")
	check("defect", cause(run, full + job, t + 5, seen)[0], "in quota, room, no reclaim")
	# the same, but gpuquota's reason says it found no room: the two
	# reckonings differ, named as such
	nr = [row("21", "a", "PENDING", 2, "Priority, gpuquota: in quota (a would hold 2 of 4); "
		  "no node can free 2 GPUs for it within the other projects' floors yet")]
	check("no room by gpuquota", cause(run, full + nr, t + 5, seen)[0],
	      "no room by gpuquota, room by this analysis")
	# a reclaim logged for it 1 s before: under way
	run.reclaims = episodes.read_log([
		"[2026-11-30T22:01:39.600] gpuquota: reclaim: JobId=21 (a, in-quota, A=2, quota 4, "
		"fair share 4.00) takes JobId=13 (b, 2 GPUs; b holds 4, quota 2, fair share 2.00, "
		"floor 2.00)"])[1]
	check("reclaim parsed", (run.reclaims[0]["preemptor"], run.reclaims[0]["vproject"],
				 run.reclaims[0]["gpus"]), ("21", "b", 2))
	check("under way", cause(run, full + job, t)[0], "reclaim under way")
	run.reclaims = []
	# an array of 3 x 2 GPUs: one task fits a's 4, all three do not
	arr = [row("30_%d" % i, "a", "PENDING", 2, OFS_A) for i in range(3)]
	check("array", cause(run, full + arr, t)[0], "array wider than its quota")
	# no band seen yet
	check("unclassified", cause(run, full + [row("31", "a", "PENDING", 1)], t)[0],
	      "not classified yet")
	# behind a's in-quota 4-GPU job, a 1-GPU job out of the band is not the
	# cause: the 4-GPU job's (no room) is
	c = cause(run, full + [row("20", "a", "PENDING", 4, IQ_A),
			       row("32", "a", "PENDING", 1, OFS_A)], t)
	check("behind in-quota work", (c[0], c[1]["id"]), ("no room on one node", "20"))
	# held while GPUs are kept for a's own whole-node job: that job's cause
	# (a's queue is served in order); kept for another project's: not
	held = "gpuquota: GPUs that come free on n1 are kept for job 20 of %s, which needs 4 GPUs on one node; work outside quotas that could start there waits at most 30 s"
	seen = episodes.Seen()
	seen.band["33"] = episodes.IQ	# seen in quota before
	check("held for its own", cause(run, full + [row("33", "a", "PENDING", 1, held % "a")], t, seen)[0],
	      "no room on one node")
	seen = episodes.Seen()
	seen.band["33"] = episodes.IQ
	check("held for another's", cause(run, full + [row("33", "a", "PENDING", 1, held % "c")], t + 5,
					  seen)[0] != "no room on one node", True)
	# a job starting 2 s after the sample
	run.starts = dict(starts, **{"21": [(t + 2, "n1")]})
	check("starting", cause(run, full + [row("21", "a", "PENDING", 2, OFS_A)], t)[0],
	      "starting")
	run.starts = starts
	# priority names the band when the reason does not
	check("band from priority", episodes.band_of(2500000000, "Resources"), episodes.IQ)
	check("band from reason", episodes.band_of(None, IQ_A), episodes.IQ)
	check("band of a job held for a reclaim",
	      episodes.band_of(0, "gpuquota: GPUs are being reclaimed for job 5 of p02; work "
			       "outside quotas waits until it starts (at most 30 s)"), episodes.HELD)
	# held for another project's reclaim, seen in quota before, behind a's
	# in-quota 4-GPU job 20 that has no room: not in quota (gpuquota holds
	# no in-quota job for that), so 20's wait is the cause, not a defect
	seen = episodes.Seen()
	seen.band["34"] = episodes.IQ
	hr = "gpuquota: GPUs are being reclaimed for job 9 of c; work outside quotas waits until it starts (at most 30 s)"
	waiting = [row("20", "a", "PENDING", 4, IQ_A), row("34", "a", "PENDING", 1, hr)]
	cause(run, full + waiting, t, seen)
	c = cause(run, full + waiting, t + 5, seen)
	check("held behind in-quota work", (c[0], c[1]["id"]), ("no room on one node", "20"))
	# a task past its array's throttle (gpuquota lowers %N to the tasks in
	# the array's band): the array's priority says in quota, the task is
	# not in the band; behind a's 4-GPU job with no room, that job's cause
	seen = episodes.Seen()
	thr = [row("20", "a", "PENDING", 4, IQ_A),
	       row("35_1", "a", "PENDING", 1, "JobArrayTaskLimit", prio=2000000002)]
	cause(run, full + thr, t, seen)
	c = cause(run, full + thr, t + 5, seen)
	check("past its array's throttle", (c[0], c[1]["id"]), ("no room on one node", "20"))
	# an episode: a's array waits 15 samples 1 s apart (the last one's
	# state holds 0 s): 14 s in violation, the samples at 10..13 s are past
	# the 10 s grace (1 s each): 4 s, all of them the array's
	samples = [(t + i, full + arr) for i in range(15)]
	eps = episodes.explain(run, samples)
	check("episodes", len(eps), 1)
	check("length", eps[0]["length"], 14.0)
	check("past", (eps[0]["past"], eps[0]["causes"]), (4.0, {"array wider than its quota": 4.0}))
	return bad


def test_lost_work():
	"""A requeue 100 s into a 2-GPU run: 200 GPU-s without checkpoints; with
	one every 30 s (at 30, 60, 90), 2 x 10 = 20; every 25 s (the last at
	100): 0; a requeue before its start loses nothing."""
	import analyze
	got = (analyze.lost_work(1100, 1000, 2, 0), analyze.lost_work(1100, 1000, 2, 30),
	       analyze.lost_work(1100, 1000, 2, 25), analyze.lost_work(900, 1000, 2, 0))
	return [] if got == (200, 20, 0, 0) else ["lost_work: %s, want (200, 20, 0, 0)" % (got,)]


def test_per_start():
	"""Main: 100 cycles of 2 ms, backfill: 50 of 4 ms; 120 jobs started,
	20 of them by backfill.  Main per job it started: 200 ms / 100 = 2 ms;
	both per job started: 400 ms / 120 = 3.33 ms.  Without the counts:
	None."""
	import analyze
	sd = {"main_mean_cycle": 2000, "main_total_cycles": 100, "bf_mean_cycle": 4000,
	      "bf_total_cycles": 50, "jobs_started": 120, "bf_started": 20}
	got = (analyze._per_start(sd, "main"), round(analyze._per_start(sd, "all")),
	       analyze._per_start({"main_mean_cycle": 10}, "main"))
	return [] if got == (2000, 3333, None) else ["per_start: %s, want (2000, 3333, None)" % (got,)]


# a and b, quota 4 each, 8 GPUs.  t=200: a runs j1 and j2 (4 GPUs each):
# a holds 8.  b calls sbatch for j3 (2 nodes x 2 GPUs) at 200.5: in b's
# quota (0 + 4 <= 4), a multi-node in-quota job; and for j4 (1 node, 2
# GPUs) at 212.  Samples: 201 j3 pending; 212 j3 and j4 pending; 215 j2
# requeued (BeginTime), j3 runs since 215; 220 the end.  b's violation:
# 201-215 = 14 s (episode of 14: 4 past the 10 s grace).  Jobs that fit
# one node: j4 alone, 212-215 = 3 s (none past the grace).  j3 waited 215
# - 200.5 = 14.5 s.  One requeue (j2), one move line in the log: moves 1,
# a share of 1.0.
TARGET_SAMPLES = {
	200: [("1", "j1", "a", "RUNNING", "199", "None"),
	      ("2", "j2", "a", "RUNNING", "199", "None")],
	201: [("1", "j1", "a", "RUNNING", "199", "None"),
	      ("2", "j2", "a", "RUNNING", "199", "None"),
	      ("3", "j3", "b", "PENDING", "N/A", "Resources")],
	212: [("1", "j1", "a", "RUNNING", "199", "None"),
	      ("2", "j2", "a", "RUNNING", "199", "None"),
	      ("3", "j3", "b", "PENDING", "N/A", "Resources"),
	      ("4", "j4", "b", "PENDING", "N/A", "Resources")],
	215: [("1", "j1", "a", "RUNNING", "199", "None"),
	      ("2", "j2", "a", "PENDING", "N/A", "BeginTime"),
	      ("3", "j3", "b", "RUNNING", "215", "None"),
	      ("4", "j4", "b", "PENDING", "N/A", "Resources")],
	220: [("1", "j1", "a", "RUNNING", "199", "None"),
	      ("2", "j2", "a", "PENDING", "N/A", "BeginTime"),
	      ("3", "j3", "b", "RUNNING", "215", "None"),
	      ("4", "j4", "b", "PENDING", "N/A", "Resources")],
}

TARGET_EXPECT = {
	"violation_total_s": 14.0,
	"violation_grace_total_s": 4.0,
	"violation_one_node_total_s": 3.0,
	"violation_one_node_grace_total_s": 0.0,
	"multinode_wait_s.mean": 14.5,
	"multinode_wait_s.n": 1,
	"multinode_wait_s.censored": 0,
	"requeues": 1,
	"moves": 1,
	"moves_share": 1.0,
}


def write_run(d, projects, schedule_lines, samples, submits, t0, t1):
	"""A hand-made work dir and run dir (rN-gpuquota.out) under d."""
	wl, run = os.path.join(d, "wl"), os.path.join(d, "r1-gpuquota.out")
	os.makedirs(wl)
	os.makedirs(run)
	with open(os.path.join(wl, "projects.tsv"), "w") as f:
		f.write(projects)
	with open(os.path.join(wl, "schedule.tsv"), "w") as f:
		f.write(schedule_lines)
	with open(os.path.join(run, "samples.txt"), "w") as f:
		for t, rows in sorted(samples.items()):
			f.write("S\t%d.000\t%d.000\t%d\n" % (t, t, len(rows)))
			for jid, name, acct, state, start, reason in rows:
				f.write("\t".join((jid, name, acct, "normal", state, start, reason)) + "\n")
	with open(os.path.join(run, "submits.tsv"), "w") as f:
		f.write(submits)
	with open(os.path.join(run, "squeue_latency.txt"), "w") as f:
		f.write("0.1\n0.2\n0.3\n")
	with open(os.path.join(run, "passes.json"), "w") as f:
		json.dump({"file_seen": True, "passes": [
			{"at": t0 + 1, "pass_us": 1000, "lock_hold_us": 100, "lock_cpu_us": 80},
			{"at": t0 + 3, "pass_us": 2000, "lock_hold_us": 300}]}, f)
	with open(os.path.join(run, "ctld.json"), "w") as f:
		json.dump({"system": "gpuquota", "t0": t0, "t1": t1, "t_submitted": t0 + 0.6,
			   "cpu_s": 3.5, "vmhwm_kib": 1024, "sdiag": {"main_mean_cycle": 10}}, f)
	return wl, run


def analyzed(wl, run, expect):
	"""analyze.py on a hand-made run: the keys of expect that differ."""
	subprocess.run([sys.executable, os.path.join(HERE, "analyze.py"),
			"--work", wl, "--run", run], check=True)
	with open(os.path.join(run, "result.json")) as f:
		r = json.load(f)
	bad = []
	for k, want in expect.items():
		got = get(r, k)
		if want is None:
			ok = got is None
		else:
			ok = got is not None and abs(got - want) < 1e-6
		if not ok:
			bad.append("%s: expected %s, got %s" % (k, want, got))
	return bad


def test_targets():
	d = tempfile.mkdtemp(prefix="gq-bench-targets.")
	wl, run = write_run(
		d, "a\t4\nb\t4\n",
		"1\t0.0\ta\t4\t60\t1\tjob\t1\n2\t0.0\ta\t4\t60\t1\tjob\t1\n"
		"3\t0.5\tb\t2\t60\t1\tjob\t2\n4\t12.0\tb\t2\t60\t1\tjob\t1\n",
		TARGET_SAMPLES,
		"1\t0.000\t-1.000\t-0.900\t0\t1\t-\ta\t4\t1\tjob\t\n"
		"2\t0.000\t-0.900\t-0.800\t0\t2\t-\ta\t4\t1\tjob\t\n"
		"3\t0.500\t0.500\t0.600\t0\t3\t-\tb\t4\t1\tjob\t\n"
		"4\t12.000\t12.000\t12.100\t0\t4\t-\tb\t2\t1\tjob\t\n",
		200.0, 220.0)
	os.makedirs(os.path.join(d, "r1-gpuquota", "log"))
	with open(os.path.join(d, "r1-gpuquota", "log", "slurmctld.log"), "w") as f:
		f.write("[t] gpuquota: move: JobId=2 of a (in quota) is requeued to empty n1\n"
			"[t] gpuquota: reclaim: JobId=3 takes JobId=2\n")
	bad = analyzed(wl, run, TARGET_EXPECT)
	if not bad:
		subprocess.run(["rm", "-rf", d], check=True)
	return ["targets (work dir %s): %s" % (d, b) for b in bad]


def main():
	bad = test_episodes() + test_lost_work() + test_per_start() + test_targets()
	if bad:
		print("test_analyze: episodes: FAIL:\n  " + "\n  ".join(bad), file=sys.stderr)
		sys.exit(1)
	d = tempfile.mkdtemp(prefix="gq-bench-selftest.")
	wl, run = write_run(
		d, "a\t2\nb\t2\n",
		"1\t0.0\ta\t2\t60\t1\tjob\t1\n2\t0.0\ta\t2\t60\t1\tjob\t1\t2\n"
		"3\t0.5\tb\t2\t60\t1\tjob\t1\n4\t0.49\tb\t2\t60\t1\tjob\t1\n",
		SAMPLES,
		"1\t0.000\t-1.000\t-0.900\t0\t1\t-\ta\t2\t1\tjob\t\n"
		"2\t0.000\t-0.900\t-0.800\t0\t2\t-\ta\t2\t1\tjob\t\n"
		"3\t0.500\t0.500\t0.600\t0\t3\t-\tb\t2\t1\tjob\t\n"
		"4\t0.490\t0.490\t0.700\t0\t4\t-\tb\t2\t1\tjob\t\n",
		100.0, 105.0)
	bad = analyzed(wl, run, EXPECT)
	if bad:
		print("test_analyze: FAIL (work dir %s):\n  %s" % (d, "\n  ".join(bad)), file=sys.stderr)
		sys.exit(1)
	subprocess.run(["rm", "-rf", d], check=True)
	print("test_analyze: PASS")


if __name__ == "__main__":
	main()
