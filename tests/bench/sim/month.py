#!/usr/bin/python3
"""Owns the simulator's speed case: a month of a 1 000-GPU cluster (125
nodes x 8 GPUs), 100 000 jobs drawn with a fixed seed from the Philly
trace (philly_15k.csv, GQ_BENCH_TRACE names it): each job's user, GPUs, nodes and
status from a row drawn at random, submits as a Poisson stream over 30
days, run times the row's scaled by --scale (clipped to [2 s, 3 days]),
written as a trace CSV for `gpuquota simulate --trace`; and a
gpuquota.json giving the ten heaviest users quotas proportional to their
GPU-seconds, summing to 1 000 (the rest: zero-quota accounts).

  month.py --trace CSV --out DIR [--scale S] [--jobs J] [--seed N]
           [--nodes N] [--days D]

--nodes (8 GPUs each, default 125) and --days (default 30) scale the
case: 1 250 nodes and 1 000 000 jobs over 30 days is the same offered
load on ten times the cluster (quotas then sum to its GPUs).  Prints the
offered load (the jobs' GPU-seconds over the GPUs x the days).  The same
arguments give the same files byte for byte.
"""
import argparse
import csv
import json
import os
import random

NODE_GPUS = 8


def gpus_of(gpu_num, node_num):
	"""A job's GPUs on 8-GPU nodes, as trace_csv.h shapes it."""
	if node_num > 1:
		return node_num * NODE_GPUS
	return max(1, min(gpu_num, NODE_GPUS))


def main():
	ap = argparse.ArgumentParser()
	ap.add_argument("--trace", required=True)
	ap.add_argument("--out", required=True)
	ap.add_argument("--scale", type=float, default=0.13)
	ap.add_argument("--jobs", type=int, default=100000)
	ap.add_argument("--seed", type=int, default=29)
	ap.add_argument("--nodes", type=int, default=125)
	ap.add_argument("--days", type=float, default=30)
	a = ap.parse_args()
	gpus = a.nodes * NODE_GPUS
	rows = list(csv.DictReader(open(a.trace, newline="")))
	rnd = random.Random(a.seed)
	span = a.days * 86400
	usage, offered = {}, 0
	t, last = 0.0, 0	# the submit time, and its whole seconds written
	os.makedirs(a.out, exist_ok=True)
	with open(os.path.join(a.out, "month.csv"), "w") as out:
		out.write("u_id,user,gpu_num,cpu_num,node_num,interval,run_time,wall_time,new_status\n")
		for i in range(a.jobs):
			r = rows[rnd.randrange(len(rows))]
			if i:	# fractions carried: the stream keeps its rate
				t += rnd.expovariate(a.jobs / span)
			iv, last = int(t) - last, int(t)
			rt = min(max(2, int(int(r["run_time"]) * a.scale)), 3 * 86400)
			g = gpus_of(int(r["gpu_num"]), int(r["node_num"]))
			usage[r["user"]] = usage.get(r["user"], 0) + g * rt
			offered += g * rt
			out.write("%d,%s,%s,0,%s,%d,%d,0,%s\n" % (i, r["user"], r["gpu_num"],
								   r["node_num"], iv, rt, r["new_status"]))
	top = sorted(usage, key=lambda u: (-usage[u], u))[:10]
	total = sum(usage[u] for u in top)
	quota = [gpus * usage[u] // total for u in top]
	quota[0] += gpus - sum(quota)
	with open(os.path.join(a.out, "month.json"), "w") as f:
		json.dump({"projects": [{"name": "u" + u, "gpu_quota": q}
					for u, q in zip(top, quota)]}, f)
		f.write("\n")
	print("offered load %.2f" % (offered / (gpus * span)))


if __name__ == "__main__":
	main()
