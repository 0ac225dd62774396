#!/usr/bin/python3
"""Owns the measures of one run, computed from what replay.py recorded
(docs/PERFORMANCE.md defines each one):

  analyze.py --work WORKLOADDIR --run RUNDIR  ->  RUNDIR/result.json,
                                                  RUNDIR/alloc.tsv

Per sample of the sampler (about 1 s apart; a sample's state holds until
the next one): GPUs allocated per project (running, configuring and
completing jobs), eligible pending GPUs (pending jobs not waiting for a
begin time or a hold; the workload submits no dependencies).  From these: idle GPU-seconds while
eligible demand waited, quota-guarantee violation time per project, GPU
seconds lost to requeues (a job seen running, then pending again), reclaim
latency of under-quota submits into a full cluster.  Plus the controller's
figures (sdiag, /proc), gpuquota's pass timings, sbatch and squeue timings."""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedule  # noqa: E402

GRACE = 10.0	# seconds: violation episodes shorter than this are scheduling latency
# Not "Dependency": the workload has none, and Slurm shows it for a job
# gpuquota held whose priority Slurm's main scheduler put back in the same
# cycle (docs/PERFORMANCE.md, "Every second past the grace"): demand.
NOT_ELIGIBLE = ("BeginTime", "JobHeld", "DependencyNeverSatisfied",
		"gpuquota: project", "gpuquota: department", "gpuquota: job cannot")
ALLOCATED = ("RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED")


def _id(jobid):
	"""A submit's job id as a number (an array's: its first)."""
	try:
		return int(str(jobid).split("_")[0])
	except ValueError:
		return float("inf")


def pct(xs, p):
	"""Nearest-rank percentile; None for no data."""
	if not xs:
		return None
	s = sorted(xs)
	k = max(0, min(len(s) - 1, int(-(-p * len(s) // 100)) - 1))
	return s[k]


def stats(xs):
	return {"n": len(xs), "p50": pct(xs, 50), "p99": pct(xs, 99),
		"max": max(xs) if xs else None,
		"mean": sum(xs) / len(xs) if xs else None}


def job_key(jid):
	"""Sort key of a job id, array tasks ("12_3") after their array's id."""
	a, _, b = jid.partition("_")
	try:
		return (int(a), int(b) if b.isdigit() else -1)
	except ValueError:
		return (1 << 60, 0)


COLUMNS = ["id", "name", "acct", "qos", "state", "start", "reason"]


def lost_work(requeued, start, gpus, ckpt):
	"""GPU-seconds a requeue at `requeued` loses of a run from `start`: its
	GPUs x the time since its last checkpoint (every ckpt seconds of its
	run; 0: none, since its start)."""
	run = max(0.0, requeued - start)
	if ckpt > 0:
		run -= ckpt * int(run // ckpt)
	return run * gpus


def read_samples(path, gpus_of, ckpt_of=None, nodes_of=None):
	"""[(t, [(jobid, account, state, start, reason, gpus, ckpt, nodes)])]
	(ckpt: ckpt_of's for the job's name, 0 without; nodes: nodes_of's, 1
	without).  An "F" line
	names the columns of the rows after it (sampler.py); without one they
	are COLUMNS."""
	out = []
	cur = None
	pos = [COLUMNS.index(c) for c in ("id", "name", "acct", "state", "start", "reason")]
	width = len(COLUMNS)
	with open(path) as f:
		for line in f:
			line = line.rstrip("\n")
			if line.startswith("F\t"):
				cols = line.split("\t")[1:]
				pos = [cols.index(c) for c in ("id", "name", "acct", "state", "start", "reason")]
				width = len(cols)
				continue
			if line.startswith("S\t"):
				_, t0, t1, _n = line.split("\t")
				cur = []
				out.append(((float(t0) + float(t1)) / 2, cur))
			elif line.startswith("E\t") or cur is None:
				continue
			else:
				f_ = line.split("\t")
				if len(f_) < width:
					continue
				jid, name, acct, state, start, reason = (f_[i] for i in pos)
				try:
					st = int(start)
				except ValueError:
					st = None
				cur.append((jid, acct, state, st, reason, gpus_of.get(name, 0),
					    (ckpt_of or {}).get(name, 0),
					    (nodes_of or {}).get(name, 1)))
	return out


def _violation(fits, dt, p, viol, viol_grace, episode):
	"""Project p's violation for a sample of dt seconds: while any of its
	eligible pending jobs fits in what is left of its quota (fits) and
	another project is over its own, the time counts, and past GRACE
	seconds of the episode, in viol_grace too."""
	if fits:
		viol[p] += dt
		episode[p] += dt
		viol_grace[p] += max(0.0, min(dt, episode[p] - GRACE))
	else:
		episode[p] = 0.0


def moves_in(rundir):
	"""The jobs gpuquota moved in a run (docs/MODEL.md "Moves"): its
	slurmctld log's "gpuquota: move:" lines, in the cluster dir beside the
	run dir (rN-SYSTEM for rN-SYSTEM.out); None when no log is there."""
	log = os.path.join(rundir[:-len(".out")] if rundir.endswith(".out") else rundir,
			   "log", "slurmctld.log")
	try:
		with open(log, errors="replace") as f:
			return sum(1 for line in f if "gpuquota: move: JobId=" in line)
	except OSError:
		return None


def _in_quota(s, b, ok_by_call, first_seen, quota):
	"""Was submit s in its project's quota when made: in sample b (the
	last before it), the project's allocated and eligible pending GPUs,
	its earlier submits b does not show yet (earlier by job id, the order
	slurmctld took them in: concurrent clients' calls may cross) and s's
	own, at most its quota (> 0)?"""
	_, alloc, pend, _ = b
	p = s["acct"]
	if quota.get(p, 0) <= 0:
		return False
	since = sum(x["gpus"] * x["tasks"] for x in ok_by_call
		    if x["acct"] == p and _id(x["jobid"]) < _id(s["jobid"])
		    and first_seen.get(x["jobid"], float("inf")) > b[0])
	return alloc.get(p, 0) + pend.get(p, 0) + since + s["gpus"] <= quota[p]


def _multinode_waits(ok_by_call, nodes_by_seq, before, first_seen, first_start, quota,
		     t0, t1):
	"""The waits of multi-node in-quota jobs: each non-array submit of
	more than one node, in its project's quota when made (_in_quota, the
	cluster full or not): its start minus its sbatch call, or the rest of
	the window (censored).  stats() of them, with "censored"."""
	out, cens, j = [], 0, 0
	for s in ok_by_call:
		if s["tasks"] != 1 or nodes_by_seq.get(s["seq"], 1) < 2:
			continue
		ts = t0 + s["call"]
		while j + 1 < len(before) and before[j + 1][0] <= ts:
			j += 1
		if not before or before[j][0] > ts or \
		   not _in_quota(s, before[j], ok_by_call, first_seen, quota):
			continue
		st = first_start.get(s["jobid"])
		cens += st is None
		out.append(t1 - ts if st is None else max(0.0, st - ts))
	r = stats(out)
	r["censored"] = cens
	return r


def _per_start(sd, which):
	"""Microseconds of scheduling cycles per job started (sdiag since the
	reset): the main cycle's per job it started ("main"), or both cycles'
	per job started ("all"); None without the counts."""
	started, bf = sd.get("jobs_started"), sd.get("bf_started")
	if started is None or bf is None or sd.get("main_mean_cycle") is None:
		return None
	main = sd["main_mean_cycle"] * sd.get("main_total_cycles", 0)
	back = (sd.get("bf_mean_cycle") or 0) * sd.get("bf_total_cycles", 0)
	n = started - bf if which == "main" else started
	if n <= 0:
		return None
	return main / n if which == "main" else (main + back) / n


def main():
	ap = argparse.ArgumentParser()
	ap.add_argument("--work", required=True)
	ap.add_argument("--run", required=True)
	a = ap.parse_args()

	quota = {}
	order = []
	with open(os.path.join(a.work, "projects.tsv")) as f:
		for line in f:
			n, q = line.split()
			quota[n] = int(q)
			order.append(n)
	entries = schedule.read(os.path.join(a.work, "schedule.tsv"))
	gpus_of = schedule.gpus_of(entries)
	ckpt_of = schedule.ckpt_of(entries)
	nodes_of = {"j%d" % e.seq: e.nodes for e in entries}
	nodes_by_seq = {e.seq: e.nodes for e in entries}
	cap = sum(quota.values())
	with open(os.path.join(a.run, "ctld.json")) as f:
		ctld = json.load(f)
	t0, t1 = ctld["t0"], ctld["t1"]
	samples = [s for s in read_samples(os.path.join(a.run, "samples.txt"), gpus_of, ckpt_of,
					   nodes_of)
		   if t0 - 2 <= s[0] <= t1]

	idle_wait = 0.0
	busy = 0.0		# GPU-seconds allocated in the window
	viol = {p: 0.0 for p in order}
	viol_grace = {p: 0.0 for p in order}
	episode = {p: 0.0 for p in order}
	# the same for the pending jobs that fit one node alone
	viol1 = {p: 0.0 for p in order}
	viol1_grace = {p: 0.0 for p in order}
	episode1 = {p: 0.0 for p in order}
	lost = 0.0
	victims = 0
	lost_ckpt = 0.0		# of the jobs that checkpoint
	victims_ckpt = 0
	first_start = {}
	first_seen = {}		# job id (an array's for its tasks) -> first sample showing it
	last_run = {}		# jobid -> (t, start, gpus)
	pending_counts = []
	timeline = []		# (t, allocs, pendings)
	before = []		# (t, alloc, eligible pending GPUs by project, idle)
	for i, (t, rows) in enumerate(samples):
		dt = samples[i + 1][0] - t if i + 1 < len(samples) else 0.0
		alloc = {p: 0 for p in order}
		pend = {p: [] for p in order}
		npend = 0
		for jid, acct, state, st, reason, g, ck, nn in rows:
			first_seen.setdefault(jid.partition("_")[0], t)
			if state in ALLOCATED:
				alloc[acct] = alloc.get(acct, 0) + g
				if st is not None:
					first_start.setdefault(jid, st)
					last_run[jid] = (t, st, g)
			elif state == "PENDING":
				npend += 1
				if jid in last_run:
					lt, st0, g0 = last_run.pop(jid)
					x = lost_work((lt + t) / 2, st0, g0, ck)
					lost += x
					victims += 1
					if ck:
						lost_ckpt += x
						victims_ckpt += 1
				if not reason.startswith(NOT_ELIGIBLE):
					pend.setdefault(acct, []).append((job_key(jid), g, nn))
		used = sum(alloc.values())
		waiting = sum(x[1] for p in pend for x in pend[p])
		idle_wait += min(max(0, cap - used), waiting) * dt
		if t >= t0:
			busy += used * dt
		over = [p for p in order if alloc[p] > quota[p]]
		for p in order:
			lent = quota[p] > 0 and any(q != p for q in over)
			fits = [x for x in pend[p] if alloc[p] + x[1] <= quota[p]] if lent else []
			_violation(fits, dt, p, viol, viol_grace, episode)
			_violation([x for x in fits if x[2] == 1], dt, p, viol1, viol1_grace, episode1)
		pending_counts.append(npend)
		if t >= t0:
			timeline.append((t - t0, [alloc[p] for p in order]))
		before.append((t, alloc, {p: sum(x[1] for x in pend[p]) for p in order}, cap - used))

	# Reclaim latency: non-array submits of a project under its quota (its
	# allocated + eligible pending GPUs + the job's <= quota) when the last
	# sample before the submit had fewer idle GPUs than the job asks.
	subs = []
	with open(os.path.join(a.run, "submits.tsv")) as f:
		for line in f:
			x = line.rstrip("\n").split("\t")
			subs.append({"seq": int(x[0]), "sched": float(x[1]), "call": float(x[2]),
				     "ret": float(x[3]), "rc": int(x[4]), "jobid": x[5], "qos": x[6],
				     "acct": x[7], "gpus": int(x[8]), "tasks": int(x[9]), "tag": x[10]})
	lat = []
	probes = []
	censored = 0
	j = 0
	ok_by_call = sorted((s for s in subs if s["rc"] == 0), key=lambda s: s["call"])
	for s in ok_by_call:
		if s["tasks"] != 1:
			continue
		ts = t0 + s["call"]
		while j + 1 < len(before) and before[j + 1][0] <= ts:
			j += 1
		if not before or before[j][0] > ts:
			continue
		if before[j][3] >= s["gpus"] or not _in_quota(s, before[j], ok_by_call,
								 first_seen, quota):
			continue
		st = first_start.get(s["jobid"])
		if st is None:
			censored += 1
			lat.append(t1 - ts)
		else:
			lat.append(max(0.0, st - ts))
		probes.append((s["jobid"], s["acct"], s["gpus"], ts - t0, lat[-1], st is None))
	mwait = _multinode_waits(ok_by_call, nodes_by_seq, before, first_seen, first_start,
				 quota, t0, t1)

	ok = [s for s in subs if s["rc"] == 0]
	burst = [s for s in ok if s["tag"] == "burst"]
	rate = None
	if len(burst) > 1:
		rate = len(burst) / (max(s["ret"] for s in burst) - min(s["call"] for s in burst))
	# the submit storm after the window (replay.py; absent from runs
	# without one): held submits per second, none failed
	storm_rate = None
	try:
		with open(os.path.join(a.run, "storm.json")) as f:
			st = json.load(f)
		if st.get("submits") and st.get("seconds") and not st.get("failed"):
			storm_rate = st["submits"] / st["seconds"]
	except (OSError, ValueError):
		pass
	with open(os.path.join(a.run, "squeue_latency.txt")) as f:
		sq = [float(x) for x in f.read().split()]
	with open(os.path.join(a.run, "passes.json")) as f:
		pj = json.load(f)
	sd = ctld["sdiag"]
	res = {
		"system": ctld["system"],
		"window_s": t1 - t0,
		"capacity": cap,
		"main_mean_us": sd.get("main_mean_cycle"),
		"main_max_us": sd.get("main_max_cycle"),
		"main_cycles": sd.get("main_total_cycles"),
		"bf_mean_us": sd.get("bf_mean_cycle"),
		# the cycles' time per job they started: which of the two
		# schedulers catches a new job first is the phase of their
		# timers, and a cycle's mean follows the jobs it starts
		"main_per_start_us": _per_start(sd, "main"),
		"sched_per_start_us": _per_start(sd, "all"),
		# RPCs served in the window (sdiag), all types; absent before
		"rpc_count": sum(c for c, _ in sd["rpc"].values()) if "rpc" in sd else None,
		"rpc_s": sum(t for _, t in sd["rpc"].values()) / 1e6 if "rpc" in sd else None,
		"rpc": sd.get("rpc"),
		"cpu_s": ctld["cpu_s"],
		"vmhwm_mib": ctld["vmhwm_kib"] / 1024.0,
		"metrics_file": pj["file_seen"],
		# passes only; the lock holds of passes and re-holds (a walk that
		# writes holds again after Slurm's cycle)
		"pass_us": stats([p["pass_us"] for p in pj["passes"] if not p.get("rehold")])
		if pj["file_seen"] else None,
		"lock_us": stats([p["lock_hold_us"] for p in pj["passes"]]) if pj["file_seen"] else None,
		"reholds": sum(1 for p in pj["passes"] if p.get("rehold")) if pj["file_seen"] else None,
		# the pass thread's CPU while it held the lock (absent from older plugins' files)
		"lock_cpu_us": stats([p["lock_cpu_us"] for p in pj["passes"]
				      if p.get("lock_cpu_us") is not None]) if pj["file_seen"] else None,
		# passes in two holds (absent from older plugins' files): the read-lock
		# hold of each pass read in two, and the passes made whole
		"read_us": stats([p["read_hold_us"] for p in pj["passes"]
				  if not p.get("rehold") and p.get("read_hold_us")]) if pj["file_seen"] else None,
		"read_cpu_us": stats([p["read_cpu_us"] for p in pj["passes"]
				      if not p.get("rehold") and p.get("read_cpu_us")]) if pj["file_seen"] else None,
		"whole_passes": sum(1 for p in pj["passes"] if not p.get("rehold")
				    and p.get("tries") is not None and p["tries"] > 3) if pj["file_seen"] else None,
		"submits": len(subs), "submit_failed": len(subs) - len(ok),
		"sbatch_s": stats([s["ret"] - s["call"] for s in ok]),
		"submit_lag_s": stats([max(0.0, s["call"] - s["sched"]) for s in ok]),
		"burst_sbatch_per_s": rate,
		"storm_sbatch_per_s": storm_rate,
		"squeue_s": stats(sq),
		"pending_jobs": {"max": max(pending_counts) if pending_counts else 0,
				 "mean": sum(pending_counts) / len(pending_counts) if pending_counts else 0},
		"reclaim_s": stats(lat), "reclaim_censored": censored,
		"idle_wait_gpu_s": idle_wait,
		"allocated_pct": 100.0 * busy / (cap * (t1 - t0)) if t1 > t0 else None,
		"lost_gpu_s": lost, "requeues": victims,
		"moves": moves_in(a.run),
		"moves_share": (moves_in(a.run) or 0) / victims if victims else None,
		"multinode_wait_s": mwait,
		"lost_ckpt_gpu_s": lost_ckpt, "requeues_ckpt": victims_ckpt,
		"violation_s": viol, "violation_total_s": sum(viol.values()),
		"violation_grace_s": viol_grace, "violation_grace_total_s": sum(viol_grace.values()),
		"violation_one_node_total_s": sum(viol1.values()),
		"violation_one_node_grace_total_s": sum(viol1_grace.values()),
		"grace_s": GRACE,
		"stock_routing": {"q": sum(1 for s in ok if s["qos"].startswith("q-")),
				  "scavenger": sum(1 for s in ok if s["qos"] == "scavenger")},
	}
	with open(os.path.join(a.run, "result.json"), "w") as f:
		json.dump(res, f, indent=1)
	with open(os.path.join(a.run, "probes.tsv"), "w") as f:
		f.write("jobid\taccount\tgpus\tsubmitted\tlatency\tcensored\n")
		for x in probes:
			f.write("%s\t%s\t%d\t%.1f\t%.2f\t%d\n" % x)
	with open(os.path.join(a.run, "alloc.tsv"), "w") as f:
		f.write("t\t" + "\t".join(order) + "\n")
		for t, al in timeline:
			f.write("%.1f\t%s\n" % (t, "\t".join(str(x) for x in al)))


if __name__ == "__main__":
	main()
