#!/usr/bin/python3
"""Owns the benchmark's workload: a seeded generator of the projects (quotas
summing to the cluster, a few zero-quota accounts) and of the submit schedule
both systems replay (tests/bench/cluster/run.sh).

  workload.py --seed S --nodes N --gpus G --projects P --zero Z [--shape churn]
              --jobs J --seconds D [--ckpt-share F --ckpt-every E] --out DIR

Writes DIR/projects.tsv ("name quota", the burst project last) and
DIR/schedule.tsv (schedule.py's format; every job on one node).  The same
arguments give the same files byte for byte.

Shape: each regular project alternates busy and quiet periods (60-240 s and
30-180 s), submitting only while busy, so projects borrow idle GPUs and then
get them back by reclaim; its job count is its quota times a random factor
0.5-2 (zero-quota accounts: as a mid-size project).  Jobs take 1/2/4/8 GPUs
(40/30/20/10 %, at most G), run log-uniform 20-180 s; 10 % are arrays of 2-6
tasks of 1-2 GPUs.  The burst project (quota C/16) submits nothing until half
time, then 2 x its quota one-GPU jobs of 120 s at once, into a full cluster.
With --ckpt-share F > 0, each regular submission checkpoints with
probability F: its batch script notes `gpuquota checkpoint` every E seconds
of its run (its own draw: the rest of the workload is the one without).
--shape churn: the controller's cost instead (churn() below).
--shape gangs: the default shape with one regular job in ten (its own
draw) made a gang of 2-4 whole nodes (G GPUs on each), run 60-180 s;
these are mostly beyond their projects' quotas.  The multi-node in-quota
jobs of the bench's targets come from the four projects of largest quota
(at least 2 x G): their rows give way to one gang after another, each of
2 to min(4, quota / G) whole nodes, run 60-180 s, the next submitted
5-30 s after the one before would end had it started at once (its own
draw).
"""
import argparse
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedule  # noqa: E402


def quotas(rng, capacity, n):
	"""n positive integer quotas summing to capacity, random sizes."""
	w = [rng.uniform(0.3, 3.0) for _ in range(n)]
	s = sum(w)
	q = [max(1, int(capacity * x / s)) for x in w]
	i = 0
	while sum(q) < capacity:
		q[i % n] += 1
		i += 1
	while sum(q) > capacity:
		j = max(range(n), key=lambda k: q[k])
		q[j] -= 1
	return q


def busy_periods(rng, seconds):
	"""Alternating busy/quiet intervals over [0, seconds): the busy ones."""
	out = []
	t = rng.uniform(-120, 60)
	busy = rng.random() < 0.6
	while t < seconds:
		d = rng.uniform(60, 240) if busy else rng.uniform(30, 180)
		if busy:
			a, b = max(0.0, t), min(float(seconds), t + d)
			if b > a:
				out.append((a, b))
		t += d
		busy = not busy
	if not out:
		a = rng.uniform(0, seconds * 0.5)
		out.append((a, min(float(seconds), a + 120)))
	return out


def pick_time(rng, periods):
	total = sum(b - a for a, b in periods)
	x = rng.uniform(0, total)
	for a, b in periods:
		if x <= b - a:
			return a + x
		x -= b - a
	return periods[-1][1]


def mixed(rng, a, regular, weight, sizes, sw, qb):
	"""The default shape: busy periods, 1-8 GPU jobs and arrays, the burst."""
	n_burst = min(2 * qb, max(4, a.jobs // 20))
	n_reg = max(1, a.jobs - n_burst)
	periods = [busy_periods(rng, a.seconds) for _ in regular]
	rows = []
	for _ in range(n_reg):
		i = rng.choices(range(len(regular)), weights=weight)[0]
		t = pick_time(rng, periods[i])
		rt = int(round(math.exp(rng.uniform(math.log(20), math.log(180)))))
		if rng.random() < 0.10:
			rows.append((t, regular[i], rng.choice([1, 2]), rt, rng.randint(2, 6), "array"))
		else:
			g = rng.choices(sizes, weights=sw)[0]
			rows.append((t, regular[i], g, rt, 1, "job"))
	tb = a.seconds / 2.0
	for k in range(n_burst):
		rows.append((tb, "burst", 1, 120, 1, "burst"))
	rows.sort(key=lambda r: r[0])
	return rows


def gangs(seed, rows, gpus):
	"""One "job" row in ten made a gang (its own draw, so the other rows
	stay those of the default shape): G GPUs on each of 2-4 nodes, run
	60-180 s.  Returns the rows and each row's node count."""
	rng = random.Random(seed * 1000003 + 11)
	out, nodes = [], []
	for r in rows:
		if r[5] == "job" and rng.random() < 0.10:
			r = (r[0], r[1], gpus, rng.randint(60, 180), 1, "job")
			nodes.append(rng.randint(2, 4))
		else:
			nodes.append(1)
		out.append(r)
	return out, nodes


def gang_projects(seed, rows, nodes, names, quota, gpus, seconds):
	"""The four projects of largest quota (>= 2 x gpus) submit gangs alone,
	one after another (gang_stream).  Returns the rows and node counts."""
	rng = random.Random(seed * 1000003 + 13)
	big = sorted((q, n) for n, q in zip(names, quota) if q >= 2 * gpus)[-4:]
	keep = [(r, k) for r, k in zip(rows, nodes) if r[1] not in
		[n for _, n in big]]
	for q, name in big:
		t = rng.uniform(0, 30)
		while t < seconds:
			k, rt = rng.randint(2, min(4, q // gpus)), rng.randint(60, 180)
			keep.append(((t, name, gpus, rt, 1, "job"), k))
			t += rt + rng.uniform(5, 30)
	keep.sort(key=lambda x: x[0][0])
	return [r for r, _ in keep], [k for _, k in keep]


def churn(rng, jobs, seconds, names, quota):
	"""The controller's cost: short one-GPU jobs, submitted evenly over the
	window by projects with a quota (in proportion to it), each running
	log-uniform 5-40 s.  Few wait long: most of the cost is starts and ends."""
	rows = []
	for _ in range(jobs):
		i = rng.choices(range(len(names)), weights=quota)[0]
		rt = int(round(math.exp(rng.uniform(math.log(5), math.log(40)))))
		rows.append((rng.uniform(0, seconds), names[i], 1, rt, 1, "job"))
	rows.sort(key=lambda r: r[0])
	return rows


def main():
	ap = argparse.ArgumentParser()
	for k, d in (("seed", 1), ("nodes", 64), ("gpus", 8), ("projects", 24),
		     ("zero", 3), ("jobs", 2000), ("seconds", 420)):
		ap.add_argument("--" + k, type=int, default=d)
	ap.add_argument("--shape", choices=("mixed", "churn", "gangs"),
			default="mixed")
	ap.add_argument("--ckpt-share", type=float, default=0.0)
	ap.add_argument("--ckpt-every", type=int, default=30)
	ap.add_argument("--out", required=True)
	a = ap.parse_args()
	if not 0 <= a.ckpt_share <= 1 or a.ckpt_every < 1:
		ap.error("need 0 <= --ckpt-share <= 1 and --ckpt-every >= 1")
	if a.projects < 2 or a.nodes < 1 or a.gpus < 1 or a.jobs < 1 or a.seconds < 10:
		ap.error("need --projects >= 2, --nodes/--gpus/--jobs >= 1, --seconds >= 10")
	rng = random.Random(a.seed)
	cap = a.nodes * a.gpus
	qb = max(1, cap // 16)
	if cap - qb < a.projects - 1:
		ap.error("cluster of %d GPUs too small for %d projects" % (cap, a.projects))
	names = ["p%02d" % (i + 1) for i in range(a.projects - 1)]
	q = quotas(rng, cap - qb, a.projects - 1)
	zero = ["z%02d" % (i + 1) for i in range(a.zero)]
	burst = "burst"
	sizes = [g for g in (1, 2, 4, 8) if g <= a.gpus]
	sw = [40, 30, 20, 10][:len(sizes)]

	regular = names + zero
	rq = q + [0] * len(zero)
	factor = [rng.uniform(0.5, 2.0) for _ in regular]
	weight = [(rq[i] if rq[i] > 0 else cap / a.projects) * factor[i]
		  for i in range(len(regular))]
	if a.shape == "churn":
		rows = churn(rng, a.jobs, a.seconds, names + [burst], q + [qb])
	else:
		rows = mixed(rng, a, regular, weight, sizes, sw, qb)
	nodes = [1] * len(rows)
	if a.shape == "gangs":
		rows, nodes = gangs(a.seed, rows, a.gpus)
		rows, nodes = gang_projects(a.seed, rows, nodes, names, q, a.gpus,
					    a.seconds)

	os.makedirs(a.out, exist_ok=True)
	with open(os.path.join(a.out, "projects.tsv"), "w") as f:
		for n, x in zip(names, q):
			f.write("%s\t%d\n" % (n, x))
		for n in zero:
			f.write("%s\t0\n" % n)
		f.write("%s\t%d\n" % (burst, qb))
	ck = random.Random(a.seed * 1000003 + 7)	# its own draw
	ckpt = [a.ckpt_every if r[5] != "burst" and ck.random() < a.ckpt_share else 0
		for r in rows]
	schedule.write(os.path.join(a.out, "schedule.tsv"),
		       [schedule.Entry(*((s + 1,) + r + (nodes[s], ckpt[s])))
			for s, r in enumerate(rows)])


if __name__ == "__main__":
	main()
