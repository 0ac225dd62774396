"""Owns the format of the benchmark's submit schedule, DIR/schedule.tsv,
written by workload.py or trace_workload.py and read by replay.py,
analyze.py and episodes.py.  One line per submission, tab-separated:

  seq t account gpus runtime tasks tag nodes [ckpt]

seq from 1; t seconds from the start (sorted by t); gpus per node (what
`--gres=gpu:` asks); runtime whole seconds; tasks > 1 an array; tag job,
array or burst; nodes the job's nodes (`-N`; 1: one node); ckpt the
seconds between the checkpoints its batch script notes with `gpuquota
checkpoint` (written only when > 0; absent: 0, none).  A job's GPUs (one
task's) are gpus x nodes.  A file without the nodes column (older work
dirs) reads as one node a job."""
import collections

Entry = collections.namedtuple("Entry", "seq t account gpus runtime tasks tag nodes ckpt",
			       defaults=(0,))


def line(e):
	"""One entry as its line, newline included."""
	text = "%d\t%.3f\t%s\t%d\t%d\t%d\t%s\t%d" % tuple(e)[:8]
	return text + ("\t%d\n" % e.ckpt if e.ckpt else "\n")


def write(path, entries):
	with open(path, "w") as f:
		for e in entries:
			f.write(line(e))


def parse(text):
	x = text.split()
	nodes = int(x[7]) if len(x) > 7 else 1
	ckpt = int(x[8]) if len(x) > 8 else 0
	return Entry(int(x[0]), float(x[1]), x[2], int(x[3]), int(x[4]), int(x[5]), x[6], nodes,
		     ckpt)


def read(path):
	with open(path) as f:
		return [parse(l) for l in f if l.strip()]


def job_gpus(e):
	"""The GPUs one task of entry e holds, over all its nodes."""
	return e.gpus * e.nodes


def ckpt_of(entries):
	"""Job name -> seconds between its checkpoints (0: none)."""
	return {"j%d" % e.seq: e.ckpt for e in entries}


def gpus_of(entries):
	"""Job name (j<seq>, the name replay.py submits with) -> its GPUs a task."""
	return {"j%d" % e.seq: job_gpus(e) for e in entries}
