#!/usr/bin/python3
"""Owns the explanation of gpuquota's quota-guarantee violation episodes
past the grace (docs/PERFORMANCE.md, "Every second past the grace"):

  episodes.py --work WORKLOADDIR --dir WORKDIR --rounds N --out OUTDIR
      reads WORKDIR/rK-gpuquota.out (what replay.py recorded) and
      WORKDIR/rK-gpuquota (the cluster: slurm.conf, log/slurmctld.log),
      writes rK-gpuquota.out/episodes.json and OUTDIR/episodes.md

An episode is a run of samples during which a project is in violation, by
analyze.py's condition (an eligible pending job of it fits what is left of
its quota while another project holds more than its own).  Each second of
an episode past the grace goes to the cause of its sample, one of CAUSES,
from what the sampler recorded (job states, the band from the priority or
from gpuquota's reason, its hold reasons) and what slurmctld's log says
(gpuquota's reclaim lines; the node each job started on).  The seconds of
all causes add up to analyze.py's violation_grace_total_s: checked."""
import argparse
import datetime
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import analyze  # noqa: E402
import schedule  # noqa: E402

GRACE = analyze.GRACE
IQ, FS, OFS, UNKNOWN = "in-quota", "fair-share", "over-fair-share", "none"
# held for another job's reclaim or room, or a task past its array's
# throttle: never in quota
HELD = "held outside quota"
IN_FLIGHT_S = 30.0	# victims of a reclaim are in flight this long at most (GQ_RECLAIM_WAIT)
AHEAD_S = 3.0		# a reclaim logged this soon after the sample: a pass and a cycle away

CAUSES = {
	"reclaim under way":
		"an in-quota job of the project is reclaiming: its reclaim is logged at most "
		"%g s before the sample or %g s after it (a pass, a scheduling cycle, the "
		"victims' exit, the next cycle)" % (IN_FLIGHT_S, AHEAD_S),
	"no room on one node":
		"an in-quota job needs G GPUs on one node (a job of k nodes: on each of k "
		"nodes) and no node has G idle plus "
		"reclaimable within the other projects' quota floors; GPUs that come free go "
		"to other work before a node's worth gathers (or the waiting job is held "
		"while GPUs are kept for such a job of its own project: its project's queue "
		"is served in order)",
	"array wider than its quota":
		"a job array one task of which fits what is left of the quota, but not all its "
		"pending tasks together: banded as a whole, out of the in-quota band (plugins "
		"that do not split an array at its band)",
	"not classified yet":
		"the waiting job has no band in any sample yet (just submitted, or Slurm "
		"cleared the reason before a pass wrote it)",
	"starting":
		"the waiting job starts within %g s of the sample, without a reclaim "
		"(a pass and a scheduling cycle)" % AHEAD_S,
	"pass and cycle latency":
		"an in-quota job has had its band and room on a node for less than %g s, "
		"or the project's allocation changed less than %g s ago and its jobs wait "
		"for a pass to band them again: a pass and a scheduling cycle away from a "
		"reclaim" % (AHEAD_S, AHEAD_S),
	"no room by gpuquota, room by this analysis":
		"an in-quota job whose reason says gpuquota found no node that can free its "
		"GPUs within the floors (\"no node can free\"), "
		"while this script, which places jobs from the log and takes each project's "
		"jobs youngest first, finds room: the two reckonings differ (the script does "
		"not know min_runtime, nor which victims gpuquota already offered to other "
		"preemptors of the pass); a defect unless explained otherwise",
	"in quota, room, no reclaim":
		"an in-quota job, room within the floors on some node, no reclaim for it "
		"logged near the sample: a defect unless explained otherwise",
	"other":
		"none of the above (the episode's row names the waiting jobs' bands)",
}


def base_id(jid):
	return jid.partition("_")[0]


def band_of(prio, reason):
	"""A pending job's band: from its priority when recorded (the bands'
	disjoint ranges, docs/MODEL.md; 0 is a hold), else from gpuquota's
	reason text; UNKNOWN when neither says.  A job gpuquota holds while GPUs
	are reclaimed or kept for another job is outside quota (gpuquota never
	holds in-quota work for that: docs/MODEL.md, "Holds"): HELD, not the
	band last seen, which a project's changing allocation may have moved.
	So is an array task waiting on its array's throttle: gpuquota lowers
	the array's %N to the tasks in the band its priority names (docs/MODEL.md,
	"An array split at its band"; the workload sets no %N of its own)."""
	if HELD_FOR.match(reason) or reason.startswith("JobArrayTaskLimit"):
		return HELD
	if prio is not None and prio > 0:
		if prio > 1400000000:
			return IQ
		if prio > 700000000:
			return FS
		return OFS
	if "gpuquota: in quota" in reason:
		return IQ
	if "within fair share" in reason:
		return FS
	if "over fair share" in reason:
		return OFS
	return UNKNOWN


def read_samples(path, gpus_of, nodes_of=None):
	"""[(t, [row])], each row a dict: id, name, acct, state, start (int or
	None), reason, gpus (over all its nodes), nodes (how many it asks), node
	(its node list) and prio (None when not recorded).  An "F"
	line names the columns; without one they are analyze.py's seven."""
	cols = analyze.COLUMNS
	out = []
	cur = None
	with open(path) as f:
		for line in f:
			line = line.rstrip("\n")
			if line.startswith("F\t"):
				cols = line.split("\t")[1:]
				continue
			if line.startswith("S\t"):
				_, t0, t1, _n = line.split("\t")
				cur = []
				out.append(((float(t0) + float(t1)) / 2, cur))
				continue
			if line.startswith("E\t") or cur is None:
				continue
			x = line.split("\t")
			if len(x) < len(cols):
				continue
			r = dict(zip(cols, x))
			for k in ("start", "prio"):
				try:
					r[k] = int(r[k])
				except (KeyError, ValueError):
					r[k] = None
			if r.get("node") in (None, "", "(null)", "N/A"):
				r["node"] = None
			r["gpus"] = gpus_of.get(r["name"], 0)
			r["nodes"] = (nodes_of or {}).get(r["name"], 1)
			cur.append(r)
	return out


LOG_RE = re.compile(r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?\] (.*)$")
START_RE = re.compile(r"sched: Allocate JobId=(\S+) NodeList=(\S+)|"
		      r"_start_job: Started JobId=(\S+) in \S+ on (\S+)")
RECLAIM_RE = re.compile(r"gpuquota: reclaim: JobId=(\d+) \((\S+), (\S+), A=(\d+)[^)]*\) "
			r"takes JobId=(\d+) \((\S+), (\d+) GPU")


def read_log(lines):
	"""slurmctld's log lines -> (starts {job: [(t, node)]}, reclaims
	[{t, preemptor, project, band, A, victim, vproject, gpus}]).  An array
	task is known by both its "12_3" and its own job id."""
	starts = {}
	reclaims = []
	for line in lines:
		m = LOG_RE.match(line)
		if not m or "JobId=" not in m.group(3):
			continue
		msg = m.group(3)
		s = START_RE.search(msg)
		r = None if s else RECLAIM_RE.search(msg)
		if not s and not r:
			continue
		t = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S").replace(
			tzinfo=datetime.timezone.utc).timestamp() + float(m.group(2) or 0)
		if s:
			jid, node = (s.group(1), s.group(2)) if s.group(1) else (s.group(3), s.group(4))
			k = re.match(r"^([0-9_]+)\((\d+)\)$", jid)
			for key in ((k.group(1), k.group(2)) if k else (jid,)):
				starts.setdefault(key, []).append((t, node))
		else:
			reclaims.append({"t": t, "preemptor": r.group(1), "project": r.group(2),
					 "band": r.group(3), "A": int(r.group(4)), "victim": r.group(5),
					 "vproject": r.group(6), "gpus": int(r.group(7))})
	return starts, reclaims


def node_of(starts, jid, t):
	"""The node job jid last started on before t (with 1 s of slack for
	the log's and the sampler's clocks), else None."""
	best = None
	for ts, node in starts.get(jid, ()):
		if ts <= t + 1.0:
			best = node
	return best


def hostnames(nodelist):
	"""Slurm's node list ("n3", "n[1-2,5]", "n[1-2],n7") as node names."""
	out = []
	for m in re.finditer(r"([^,\[]+)(?:\[([^\]]+)\])?", nodelist):
		if not m.group(2):
			out.append(m.group(1))
			continue
		for part in m.group(2).split(","):
			a, _, b = part.partition("-")
			out += ["%s%0*d" % (m.group(1), len(a), i) for i in range(int(a), int(b or a) + 1)]
	return out


def node_rooms(rows, quota, project, node_gpus, nnodes, starts, t):
	"""The GPUs each node could give a preemptor of `project`, most first:
	its idle GPUs plus, for each other project over its quota, its jobs
	there, youngest first, while they fit in what that project holds above
	its quota (room.c's choice on one node, with a fresh budget; the quota
	floor, the lowest).  A job on k nodes holds 1/k of its GPUs on each and
	costs the budget all of them.  None when a running job's node is not
	known."""
	alloc = {}
	for r in rows:
		if r["state"] in analyze.ALLOCATED:
			alloc[r["acct"]] = alloc.get(r["acct"], 0) + r["gpus"]
	used, on = {}, {}
	for r in rows:
		if r["state"] not in analyze.ALLOCATED or not r["gpus"]:
			continue
		nl = r.get("node") or node_of(starts, r["id"], t)
		if nl is None:
			return None
		names = hostnames(nl)
		for n in names:
			used[n] = used.get(n, 0) + r["gpus"] / len(names)
			on.setdefault(n, []).append((r, r["gpus"] / len(names)))
	rooms = [node_gpus] * max(0, nnodes - len(used))
	for n in used:
		give = max(0, node_gpus - used[n])
		budget = {p: a - quota.get(p, 0) for p, a in alloc.items()
			  if p != project and a > quota.get(p, 0)}
		for r, here in sorted(on[n], key=lambda x: -(x[0]["start"] or 0)):
			b = budget.get(r["acct"], 0)
			if 0 < r["gpus"] <= b:
				budget[r["acct"]] = b - r["gpus"]
				give += here
		rooms.append(give)
	return sorted(rooms, reverse=True)


def best_room(rows, quota, project, node_gpus, nnodes, starts, t):
	"""The most GPUs one node could give a preemptor of `project`
	(node_rooms); None when a running job's node is not known."""
	rooms = node_rooms(rows, quota, project, node_gpus, nnodes, starts, t)
	return None if rooms is None else max(rooms + [0])


def no_room(rooms, r):
	"""Whether pending row r (on r["nodes"] nodes) finds no room: fewer of
	the nodes' rooms (node_rooms) than its nodes give its GPUs a node."""
	k = r.get("nodes", 1)
	return rooms is not None and sum(1 for g in rooms if g >= r["gpus"] / k) < k


class Run:
	"""One run's fixed facts: quotas, the cluster's shape, the log."""

	def __init__(self, quota, order, node_gpus, nnodes, starts, reclaims):
		self.quota, self.order = quota, order
		self.node_gpus, self.nnodes = node_gpus, nnodes
		self.starts, self.reclaims = starts, reclaims


SEVERITY = ("in quota, room, no reclaim", "no room by gpuquota, room by this analysis",
	    "no room on one node", "array wider than its quota",
	    "other", "not classified yet", "reclaim under way", "pass and cycle latency",
	    "starting")


class Seen:
	"""What the samples so far said of each job (by base id): its last
	known band, since when it is in quota, since when it has room; and of
	each project when its allocation last changed."""

	def __init__(self):
		self.band, self.iq_since, self.room_since = {}, {}, {}
		self.alloc, self.alloc_changed = {}, {}

	def update(self, t, rows):
		alloc = {}
		for r in rows:
			if r["state"] in analyze.ALLOCATED:
				alloc[r["acct"]] = alloc.get(r["acct"], 0) + r["gpus"]
		for p in set(alloc) | set(self.alloc):
			if alloc.get(p, 0) != self.alloc.get(p, 0):
				self.alloc_changed[p] = t
		self.alloc = alloc
		for r in rows:
			if r["state"] != "PENDING":
				continue
			b = base_id(r["id"])
			bd = band_of(r.get("prio"), r["reason"])
			if bd != UNKNOWN:
				self.band[b] = bd
			if self.band.get(b) == IQ:
				self.iq_since.setdefault(b, t)
			else:
				self.iq_since.pop(b, None)
				self.room_since.pop(b, None)


# an in-quota job gpuquota found no room for (write_slurm.c)
NO_ROOM = re.compile(r"gpuquota: in quota.*; (no node|not enough nodes) can free \d+ GPU")

# gpuquota's hold of work outside quotas, naming the job it waits for (a
# room wait names the node GPUs are kept on)
HELD_FOR = re.compile(r"gpuquota: GPUs (?:that come free on \S+ )?are (kept|being reclaimed) for job \d+ of ([^,;]+)[,;]")


def job_cause(run, p, t, r, band, alloc, tasks, rows, seen, room):
	"""The cause of one fitting pending job's wait at time t; room() gives
	node_rooms() for p at t."""
	b = base_id(r["id"])
	m = HELD_FOR.match(r["reason"])
	if m and m.group(2) == p:
		# held for a job of its own project, served first: that job's
		# wait (its room, or its reclaim) is the cause
		return "no room on one node" if m.group(1) == "kept" else "reclaim under way"
	if band == IQ and any(x["preemptor"] == b and t - IN_FLIGHT_S <= x["t"] <= t + AHEAD_S
			      for x in run.reclaims):
		return "reclaim under way"
	if any(t < ts <= t + AHEAD_S for ts, _ in run.starts.get(r["id"], ())):
		return "starting"
	if band == IQ:
		if no_room(room(), r):
			seen.room_since.pop(b, None)
			return "no room on one node"
		ready = max(seen.iq_since.get(b, t), seen.room_since.setdefault(b, t))
		if t - ready < AHEAD_S:
			return "pass and cycle latency"
		if NO_ROOM.search(r["reason"]):
			return "no room by gpuquota, room by this analysis"
		return "in quota, room, no reclaim"
	if "_" in r["id"] and alloc + tasks.get(b, 0) * r["gpus"] > run.quota[p]:
		return "array wider than its quota"
	if t - seen.alloc_changed.get(p, float("-inf")) < AHEAD_S:
		return "pass and cycle latency"
	if band == UNKNOWN:
		return "not classified yet"
	return "other"


def classify(run, p, t, rows, fits, seen):
	"""(cause, the pending row it names) for one sample of project p's
	violation: the most lasting cause (SEVERITY) of its fitting jobs.
	fits: p's eligible pending rows that fit what is left of its quota;
	seen: a Seen updated with this sample.  A job that would no longer fit
	once p's in-quota jobs start waits for them: theirs is the cause."""
	alloc = sum(r["gpus"] for r in rows if r["acct"] == p and r["state"] in analyze.ALLOCATED)
	tasks = {}
	for r in rows:
		if r["acct"] == p and r["state"] == "PENDING":
			tasks[base_id(r["id"])] = tasks.get(base_id(r["id"]), 0) + 1
	bands = [seen.band.get(base_id(r["id"]), UNKNOWN) for r in fits]
	iq = sum(r["gpus"] for r, b in zip(fits, bands) if b == IQ)
	cache = []

	def room():
		if not cache:
			cache.append(node_rooms(rows, run.quota, p, run.node_gpus, run.nnodes,
					       run.starts, t))
		return cache[0]

	best = None
	for r, b in zip(fits, bands):
		if b != IQ and iq and alloc + iq + r["gpus"] > run.quota[p]:
			continue
		c = job_cause(run, p, t, r, b, alloc, tasks, rows, seen, room)
		if best is None or SEVERITY.index(c) < SEVERITY.index(best[0]):
			best = (c, r)
	return best


def explain(run, samples):
	"""The episodes of every project, each sample past the grace with its
	cause: [{project, t, length, past, causes {cause: s}, jobs, over,
	samples}], in the order they start.  analyze.py's condition, sample by
	sample, with its dt and its grace."""
	order, quota = run.order, run.quota
	seen = Seen()
	open_ = {}
	done = []
	for i, (t, rows) in enumerate(samples):
		dt = samples[i + 1][0] - t if i + 1 < len(samples) else 0.0
		alloc = {p: 0 for p in order}
		pend = {p: [] for p in order}
		for r in rows:
			if r["state"] in analyze.ALLOCATED:
				alloc[r["acct"]] = alloc.get(r["acct"], 0) + r["gpus"]
			elif r["state"] == "PENDING" and not r["reason"].startswith(analyze.NOT_ELIGIBLE):
				pend.setdefault(r["acct"], []).append(r)
		over = {p: alloc[p] - quota[p] for p in order if alloc[p] > quota[p]}
		seen.update(t, rows)
		for p in order:
			fits = []
			if quota[p] > 0 and any(x != p for x in over):
				fits = [r for r in pend[p] if alloc[p] + r["gpus"] <= quota[p]]
			if not fits:
				if p in open_:
					done.append(open_.pop(p))
				continue
			e = open_.setdefault(p, {"project": p, "t": t, "length": 0.0, "past": 0.0,
						 "causes": {}, "named": {}, "jobs": {}, "over": {},
						 "samples": []})
			e["length"] += dt
			past = max(0.0, min(dt, e["length"] - GRACE))
			cause, job = classify(run, p, t, rows, fits, seen)
			if past > 0:
				e["past"] += past
				e["causes"][cause] = e["causes"].get(cause, 0.0) + past
				e["named"].setdefault(base_id(job["id"]), cause)
			e["samples"].append((t, alloc[p], cause, job["id"], past))
			for r in fits:
				b = base_id(r["id"])
				j = e["jobs"].setdefault(b, {"gpus": r["gpus"], "tasks": 0, "bands": [],
							     "reasons": []})
				j["tasks"] = max(j["tasks"], sum(1 for x in fits if base_id(x["id"]) == b))
				bd = band_of(r.get("prio"), r["reason"])
				if bd not in j["bands"]:
					j["bands"].append(bd)
				short = re.sub(r" \(.*|; work outside quotas.*", "", r["reason"])
				if short not in j["reasons"]:
					j["reasons"].append(short)
			for x, d in over.items():
				if x != p:
					e["over"][x] = max(e["over"].get(x, 0), d)
	done.extend(open_.values())
	return sorted(done, key=lambda e: (e["t"], e["project"]))


def log_in(run, e, t_end):
	"""What gpuquota's log says for an episode: reclaims for the project's
	jobs during it (and up to 2 s after), as short strings."""
	out = []
	for x in run.reclaims:
		if x["project"] == e["project"] and e["t"] - 2 <= x["t"] <= t_end + 2:
			out.append((x["t"], x["preemptor"], x["band"], x["victim"], x["vproject"], x["gpus"]))
	return out


def load_run(work, rundir, cluster):
	quota, order = {}, []
	with open(os.path.join(work, "projects.tsv")) as f:
		for line in f:
			n, q = line.split()
			quota[n] = int(q)
			order.append(n)
	entries = schedule.read(os.path.join(work, "schedule.tsv"))
	gpus_of = schedule.gpus_of(entries)
	nodes_of = {"j%d" % e.seq: e.nodes for e in entries}
	node_gpus, nnodes = 0, 0
	with open(os.path.join(cluster, "slurm.conf")) as f:
		for line in f:
			m = re.match(r"NodeName=\S+ .*Gres=gpu:(\d+)", line)
			if m:
				node_gpus = max(node_gpus, int(m.group(1)))
				nnodes += 1
	with open(os.path.join(cluster, "log", "slurmctld.log"), errors="replace") as f:
		starts, reclaims = read_log(f)
	with open(os.path.join(rundir, "ctld.json")) as f:
		ctld = json.load(f)
	samples = [s for s in read_samples(os.path.join(rundir, "samples.txt"), gpus_of, nodes_of)
		   if ctld["t0"] - 2 <= s[0] <= ctld["t1"]]
	return Run(quota, order, node_gpus, nnodes, starts, reclaims), samples, ctld["t0"]


def episode_rows(run, eps, t0):
	"""Markdown rows of the episodes past the grace."""
	out = []
	for e in eps:
		if e["past"] <= 0:
			continue
		t_end = e["samples"][-1][0]
		causes = ", ".join("%s %.1f s" % (c, s) for c, s in
				   sorted(e["causes"].items(), key=lambda x: -x[1]))
		order = sorted(e["jobs"], key=lambda b: b not in e["named"])
		jobs = "; ".join("%s %dx%d GPU %s [%s]" % (b, e["jobs"][b]["tasks"], e["jobs"][b]["gpus"],
							    "/".join(e["jobs"][b]["bands"]),
							    "; ".join(e["jobs"][b]["reasons"][:3]))
				 for b in order[:4])
		if len(e["jobs"]) > 4:
			jobs += "; +%d more" % (len(e["jobs"]) - 4)
		over = ", ".join("%s +%d" % (x, d) for x, d in
				 sorted(e["over"].items(), key=lambda x: -x[1])[:4])
		rec = log_in(run, e, t_end)
		log = "; ".join("%.0f s: %s (%s) takes %s (%s, %d)" % (x[0] - t0, x[1], x[2], x[3], x[4], x[5])
				for x in rec[:3])
		if len(rec) > 3:
			log += "; +%d more" % (len(rec) - 3)
		out.append("| %s (%d) | %.0f | %.1f | %.1f | %s | %s | %s | %s |" % (
			e["project"], run.quota[e["project"]], e["t"] - t0, e["length"], e["past"],
			causes, jobs, over, log or "no reclaim for its jobs"))
	return out


def main():
	ap = argparse.ArgumentParser()
	ap.add_argument("--work", required=True)
	ap.add_argument("--dir", required=True)
	ap.add_argument("--rounds", type=int, required=True)
	ap.add_argument("--out", required=True)
	a = ap.parse_args()
	per_round = []
	detail = []
	bad = []
	for k in range(1, a.rounds + 1):
		rundir = os.path.join(a.dir, "r%d-gpuquota.out" % k)
		run, samples, t0 = load_run(a.work, rundir, os.path.join(a.dir, "r%d-gpuquota" % k))
		eps = explain(run, samples)
		tot = {}
		for e in eps:
			for c, s in e["causes"].items():
				n, x = tot.get(c, (0, 0.0))
				tot[c] = (n + 1, x + s)
		past = sum(e["past"] for e in eps)
		with open(os.path.join(rundir, "result.json")) as f:
			want = json.load(f)["violation_grace_total_s"]
		if abs(past - want) > 1e-6:
			bad.append("round %d: episodes add up to %.3f s past the grace, analyze.py says %.3f s"
				   % (k, past, want))
		with open(os.path.join(rundir, "episodes.json"), "w") as f:
			json.dump({"past_grace_s": past, "causes": {c: {"episodes": n, "s": s}
								   for c, (n, s) in tot.items()},
				   "episodes": [dict(e, t=e["t"] - t0, samples=[
					   (s[0] - t0,) + tuple(s[1:]) for s in e["samples"]])
						for e in eps if e["past"] > 0]}, f, indent=1)
		per_round.append((tot, past, sum(1 for e in eps if e["past"] > 0)))
		detail.append("\n### Round %d\n\n| project (quota) | start s | length s | past grace s "
			      "| cause (s past the grace) | waiting jobs that fit (id tasks x GPUs band "
			      "[reasons sampled]) | over quota meanwhile (max GPUs) | gpuquota's reclaims "
			      "for its jobs |\n|---|---|---|---|---|---|---|---|" % k)
		detail.extend(episode_rows(run, eps, t0))
	lines = ["## gpuquota: violation past the %g s grace, by cause" % GRACE, "",
		 "| cause | " + " | ".join("round %d: episodes, s" % (k + 1) for k in range(a.rounds)) + " |",
		 "|---|" + "---|" * a.rounds]
	for c in CAUSES:
		if any(c in tot for tot, _, _ in per_round):
			lines.append("| %s | %s |" % (c, " | ".join(
				"%d, %.1f" % tot.get(c, (0, 0.0)) for tot, _, _ in per_round)))
	lines.append("| all | %s |" % " | ".join("%d, %.1f" % (n, past) for _, past, n in per_round))
	lines += ["", "An episode with seconds of several causes counts once under each; "
		  "\"all\" counts each once.", ""]
	lines += ["- **%s**: %s" % (c, d) for c, d in CAUSES.items()]
	lines += detail
	os.makedirs(a.out, exist_ok=True)
	with open(os.path.join(a.out, "episodes.md"), "w") as f:
		f.write("\n".join(lines) + "\n")
	if bad:
		print("episodes: the causes do not account for every second:\n  " + "\n  ".join(bad),
		      file=sys.stderr)
		sys.exit(1)


if __name__ == "__main__":
	main()
