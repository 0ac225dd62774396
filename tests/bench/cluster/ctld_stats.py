"""Owns what the benchmark reads about slurmctld itself: sdiag's scheduler
cycle statistics and RPCs by type (reset with `sdiag -r` at the start of
the measured window) and the controller process's CPU seconds and peak RSS
from /proc."""
import os
import re
import subprocess

TICK = os.sysconf("SC_CLK_TCK")


def sdiag_reset():
	subprocess.run(["sdiag", "-r"], check=True, stdout=subprocess.DEVNULL)


def sdiag():
	"""Main-cycle mean/max, backfill mean (microseconds), cycle counts;
	"rpc": {message type: [count, total microseconds]}; jobs started, and
	of them by backfill (since the reset)."""
	out = subprocess.run(["sdiag"], check=True, capture_output=True, text=True).stdout
	res = {"rpc": {}}
	for m in re.finditer(r"^\s*([A-Z_]+)\s+\(\s*\d+\)\s+count:(\d+)\s+ave_time:\d+\s+total_time:(\d+)",
			     out, re.M):
		res["rpc"][m.group(1)] = [int(m.group(2)), int(m.group(3))]
	m = re.search(r"^\s*Jobs started:\s+(\d+)", out, re.M)
	if m:
		res["jobs_started"] = int(m.group(1))
	m = re.search(r"Total backfilled jobs \(since last stats cycle start\):\s+(\d+)", out)
	if m:
		res["bf_started"] = int(m.group(1))
	section = None
	for line in out.splitlines():
		s = line.strip()
		if s.startswith("Main schedule statistics"):
			section = "main"
		elif s.startswith("Backfilling stats"):
			section = "bf"
		elif s.startswith("Latency for") or s.startswith("Remote Procedure"):
			section = None
		m = re.match(r"([A-Za-z ]+):\s+(\d+)", s)
		if not m or section is None:
			continue
		key = m.group(1).strip().lower()
		val = int(m.group(2))
		if section == "main" and key in ("max cycle", "mean cycle", "total cycles"):
			res["main_" + key.replace(" ", "_")] = val
		if section == "bf" and key in ("mean cycle", "max cycle", "total cycles"):
			res["bf_" + key.replace(" ", "_")] = val
	return res


def proc(pid):
	"""CPU seconds (user + system) and peak RSS (VmHWM, KiB) of PID."""
	with open("/proc/%d/stat" % pid) as f:
		st = f.read()
	fields = st[st.rindex(")") + 2:].split()
	cpu = (int(fields[11]) + int(fields[12])) / TICK
	hwm = 0
	with open("/proc/%d/status" % pid) as f:
		for line in f:
			if line.startswith("VmHWM:"):
				hwm = int(line.split()[1])
	return {"cpu_s": cpu, "vmhwm_kib": hwm}
